/**
 * The catalogue metadata the editor script reads, embedded as JSON (`window.CHAT_MESSAGING_CATALOGUE`): a function
 * of the operation catalogue, so a descriptor added in packages/core/src/catalogue/resources (or a fixture one in a
 * test) appears in the dialogs with no other edit.
 */
import {
	DEFAULT_OUTPUT,
	DEFAULT_REPLY_TIMEOUT_S,
	DEFAULT_WAIT_TIMEOUT_S,
	EVENT_FILTER_OPTIONS,
	EVENT_TYPES,
	FIELD_KINDS,
	INBOX_OPTIONS,
	LIST_DEFAULTS,
	OUTPUT_MODES,
	outputChoiceProblem,
	recordShape,
	RESOURCES,
	SEND_COMPOSITE,
	SEND_TARGETS,
	operationId,
} from '@chat-messaging/core';
import type { ResourceDescriptor } from '@chat-messaging/core';
import type { FillStep } from '../shared/migrate';
import { editorResources, SEND_DESCRIPTOR, sendRows } from './send';

export const CATEGORY = 'chat messaging';

/**
 * Choices of the action and event nodes' own settings: saved flows hold these values (UI contract). The event node's
 * Mode is its own (src/nodes/event/settings.ts), added to the editor's catalogue with the nodes' entries.
 */
export const CHOICES = {
	outputMode: [
		{ value: 'array', name: 'one message with the whole list' },
		{ value: 'split', name: 'one message per item' },
	],
	/** Output of operations that return records: the core's choice, as n8n offers it. */
	output: OUTPUT_MODES.map((mode) => ({ value: mode.value, name: mode.name })),
	waitFor: [
		{ value: '', name: 'do not wait (result: queued)' },
		{ value: 'sent', name: 'sent' },
		{ value: 'delivered', name: 'delivered' },
		{ value: 'read', name: 'read' },
	],
	events: EVENT_TYPES.map((event) => ({ value: event.value, name: event.name })),
};

/** A node property of a dialog as the editor script sets it up: its name, kind, what a new node starts with, its floor. */
export interface EditorProperty {
	name: string;
	type: string;
	default: string | number | boolean;
	minValue?: number;
}

/**
 * What the nodes give the editor's catalogue, gathered from src/nodes by src/generate.ts: given rather than imported,
 * since the nodes' own dialogs, texts and help are written with this folder.
 */
export interface NodeEntries {
	/** Each node type's migrations (src/migrations.ts), run when a saved node's dialog opens or it is checked. */
	migrations: Readonly<Record<string, readonly FillStep[]>>;
	/** The event node's Mode choices (saved flows hold the values). */
	eventModes: ReadonlyArray<{ value: string; name: string }>;
	/** The event node's own settings besides its event types: Mode, the poll interval, Add Conversation. */
	eventNode: { defaultMode: string; defaultPollSeconds: number; minPollSeconds: number; conversationOptions: readonly EditorProperty[] };
}

/** The event node's settings besides its event types: Mode, the poll interval, the event filters and the inbox options (core catalogue). */
const eventNodeSettings = ({ defaultMode, defaultPollSeconds, minPollSeconds, conversationOptions }: NodeEntries['eventNode']) => ({
	defaultMode,
	defaultPollSeconds,
	minPollSeconds,
	filterOptions: EVENT_FILTER_OPTIONS.map((option): EditorProperty => ({ name: option.name, type: option.type, default: option.default })),
	inboxOptions: INBOX_OPTIONS.map((option): EditorProperty => ({
		name: option.name,
		type: option.type,
		default: option.default,
		minValue: option.minValue,
	})),
	conversationOptions,
});

/** Where a date alone is read: the configuration node's time zone (see packages/node-red/src/nodes/config). */
export const TIME_ZONE_PLACE = "the configuration node's time zone";

/**
 * Each field kind's rule as the editor script checks fixed values with it: the core's table (pattern,
 * hint, message), so the editor refuses what the executor would, with the executor's words.
 */
export const editorKinds = () =>
	Object.fromEntries(
		Object.entries(FIELD_KINDS).map(([kind, rule]) => [
			kind,
			{
				pattern: rule.pattern?.source,
				flags: rule.pattern?.flags,
				hint: rule.hint?.replace('{timeZone}', TIME_ZONE_PLACE),
				message: rule.message,
			},
		]),
	);

/** What the editor script reads as `window.CHAT_MESSAGING_CATALOGUE` (texts are in the message catalogue). */
export function editorCatalogue(nodes: NodeEntries, resources: readonly ResourceDescriptor[] = RESOURCES) {
	return {
		category: CATEGORY,
		listDefaults: LIST_DEFAULTS,
		/** packages/core/src/catalogue/defaults.ts: what a new node starts with (n8n shows the same). */
		waitDefaults: { waitTimeout: DEFAULT_WAIT_TIMEOUT_S, replyTimeout: DEFAULT_REPLY_TIMEOUT_S },
		choices: { ...CHOICES, eventModes: nodes.eventModes },
		/**
		 * The Output choice (packages/core/src/catalogue/output.ts): what a new node starts with and the executor's
		 * words for Selected Fields without a name.
		 */
		output: {
			default: DEFAULT_OUTPUT,
			fieldsMissing: outputChoiceProblem({ mode: 'selected' })?.message ?? '',
		},
		kinds: editorKinds(),
		migrations: nodes.migrations,
		eventNode: eventNodeSettings(nodes.eventNode),
		// The catalogue's Send (packages/core/src/catalogue/composites.ts): what a new action node starts on.
		send: { resource: SEND_COMPOSITE.resource, operation: SEND_COMPOSITE.operation },
		// In packages/core/src/catalogue/send.ts order: the first is DEFAULT_SEND_TO.
		sendTargets: SEND_TARGETS.map((target) => ({ value: target.value, name: target.name, operation: target.operation })),
		resources: editorResources(resources).map((resource) => ({
			key: resource.key,
			name: resource.name,
			description: resource.description,
			operations: resource.operations.map((op) => ({
				id: operationId(op),
				resource: op.resource,
				operation: op.operation,
				name: op.name,
				action: op.action,
				description: op.description,
				effect: op.effect,
				paginated: !!op.pagination,
				sendsMessage: !!op.sendsMessage,
				// The fields Simplified keeps, for operations that return records (the core's test); none: no Output choice.
				simplified: recordShape(op)?.simplified,
				fields: op.fields.map((field, index) => ({
					key: op === SEND_DESCRIPTOR ? (sendRows()[index]?.key ?? field.name) : field.name,
					sendTo: op === SEND_DESCRIPTOR ? sendRows()[index]?.sendTo : undefined,
					name: field.name,
					displayName: field.displayName,
					kind: field.kind,
					required: !!field.required,
					default: field.default,
					options: field.options,
					min: field.min,
					max: field.max,
					picker: field.picker,
					triState: field.triState,
				})),
			})),
		})),
	};
}

export type EditorCatalogue = ReturnType<typeof editorCatalogue>;
