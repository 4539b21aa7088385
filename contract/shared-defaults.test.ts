/**
 * Every default both platforms show, read from what they ship: the built n8n node description (every
 * version) and the built Node-RED editor's node defaults. A default written twice would disagree; this
 * fails when one does (packages/core/src/catalogue/defaults.ts is where they live).
 */
import { readFileSync } from 'node:fs';
import type { INodeProperties, INodePropertyCollection } from 'n8n-workflow';

import { DEFAULT_REPLY_TIMEOUT_S, EVENT_FILTER_OPTIONS, LIST_DEFAULTS } from '@chat-messaging/core';
import { loadEditor, n8nNodes, NODE_RED_EDITOR, type EditorDefinition } from './contract';

const UNIT_SECONDS: Record<string, number> = { minutes: 60, hours: 3600, days: 86400 };

/** Every parameter of a description, members of collections included. */
function allParameters(properties: readonly INodeProperties[]): INodeProperties[] {
	return properties.flatMap((property) => [
		property,
		...allParameters(
			((property.options ?? []) as Array<INodeProperties | INodePropertyCollection>).filter(
				(option): option is INodeProperties => 'type' in option && 'name' in option,
			),
		),
	]);
}

/** The shared defaults of one n8n description: each name with every default it is given there. */
function n8nDefaults(properties: readonly INodeProperties[]): Record<string, unknown[]> {
	const all = allParameters(properties);
	const defaultsOf = (name: string) => [...new Set(all.filter((p) => p.name === name).map((p) => p.default))];
	const amount = defaultsOf('replyWaitTimeout');
	const unit = defaultsOf('replyWaitTimeoutUnit');
	return {
		returnAll: defaultsOf('returnAll'),
		limit: defaultsOf('limit'),
		waitTimeout: defaultsOf('waitTimeout'),
		sendTo: defaultsOf('sendTo'),
		replyTimeout: amount.length && unit.length ? [Number(amount[0]) * UNIT_SECONDS[String(unit[0])]] : [],
	};
}

/** What differs: each shared default n8n gives (any version) against the Node-RED action node's. */
export function sharedDefaultDifferences(
	descriptions: Array<{ version: number; properties: readonly INodeProperties[] }>,
	action: EditorDefinition,
): string[] {
	const problems: string[] = [];
	for (const { version, properties } of descriptions) {
		for (const [name, values] of Object.entries(n8nDefaults(properties))) {
			if (!values.length) continue; // this version does not offer it
			const nodeRed = action.defaults?.[name]?.value;
			if (nodeRed === undefined) problems.push(`${name}: n8n v${version} has ${JSON.stringify(values)}, Node-RED has none`);
			for (const value of values) {
				if (JSON.stringify(value) !== JSON.stringify(nodeRed))
					problems.push(`${name}: n8n v${version} ${JSON.stringify(value)}, Node-RED ${JSON.stringify(nodeRed)}`);
			}
		}
	}
	return problems;
}

const html = readFileSync(NODE_RED_EDITOR, 'utf8');
const action = loadEditor(html).definitions['chat-messaging'];
const descriptions = n8nNodes()
	.filter((node) => node.name === 'chatMessaging')
	.map(({ version, description }) => ({ version, properties: description.properties }));

test('the built n8n node and the built Node-RED editor give every shared default the same value', () => {
	expect(descriptions.map((d) => d.version).sort()).toEqual([1, 2, 2.1, 2.2]);
	expect(sharedDefaultDifferences(descriptions, action!)).toEqual([]);
	// Each of them is really compared: version 2 offers all five.
	const v2 = n8nDefaults(descriptions.find((d) => d.version === 2)!.properties);
	expect(Object.entries(v2).filter(([, values]) => values.length !== 1)).toEqual([]);
	expect(v2.limit).toEqual([LIST_DEFAULTS.limit]);
	expect(v2.replyTimeout).toEqual([DEFAULT_REPLY_TIMEOUT_S]);
});

test('a default changed on one platform only is reported, naming it', () => {
	const changed = html.replace(`"replyTimeout":${DEFAULT_REPLY_TIMEOUT_S}`, '"replyTimeout":300');
	expect(changed).not.toEqual(html);
	const edited = loadEditor(changed).definitions['chat-messaging'];
	expect(sharedDefaultDifferences(descriptions, edited!)).toEqual([
		'replyTimeout: n8n v2 3600, Node-RED 300',
		'replyTimeout: n8n v2.1 3600, Node-RED 300',
		'replyTimeout: n8n v2.2 3600, Node-RED 300',
	]);
});

test('the event filters: the same names, choices and defaults in both triggers and the Node-RED event node, as the catalogue defines them', () => {
	const expected = EVENT_FILTER_OPTIONS.map((option) => ({
		name: option.name,
		default: option.default,
		values: option.options?.map((choice) => choice.value),
	}));
	const n8nFilters = (type: string, version: number) => {
		const node = n8nNodes().find((candidate) => candidate.name === type && candidate.version === version)!;
		// The Options collection this version shows (the webhook trigger's differ by `@version`).
		const members = node.description.properties
			.filter((property) => property.name === 'options')
			.filter((property) => {
				const shown = property.displayOptions?.show?.['@version'] as unknown[] | undefined;
				return (
					!shown ||
					shown.some(
						(value) => value === version || (typeof value === 'object' && version >= (value as { _cnd: { gte: number } })._cnd.gte),
					)
				);
			})
			.flatMap((property) => property.options as INodeProperties[]);
		return EVENT_FILTER_OPTIONS.map((option) => {
			const member = members.find((candidate) => candidate.name === option.name);
			return (
				member && {
					name: member.name,
					default: member.default,
					values: (member.options as Array<{ value: string }> | undefined)?.map((choice) => choice.value),
				}
			);
		});
	};
	expect(n8nFilters('chatMessagingTrigger', 1.1)).toEqual(expected);
	expect(n8nFilters('chatMessagingPollTrigger', 1)).toEqual(expected);
	const event = loadEditor(html).definitions['chat-messaging-event']!;
	const catalogue = loadEditor(html).catalogue as unknown as { eventNode: { filterOptions: Array<{ name: string }> } };
	expect(catalogue.eventNode.filterOptions.map((option) => option.name)).toEqual(expected.map((option) => option.name));
	for (const option of expected) {
		expect([option.name, event.defaults?.[option.name]?.value]).toEqual([option.name, option.default]);
		for (const value of option.values ?? [])
			expect(html).toContain(`<option value="${value}" data-i18n="chat-messaging-event.filter.${option.name}.${value}">`);
	}
});
