/**
 * The migrations (src/shared/migrate.ts, one step list per node in src/nodes/<node>/migrations.ts): every node of
 * the flows saved with the first release (fixtures/flows-saved-by-the-first-release.json) is filled in with what it ran
 * as then, keeping every property it holds; a node dragged from the palette needs none; the editor runs the same
 * steps as the runtime. (saved-flows.test.ts runs those flows against the sandbox.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { isFilterEmpty, readEventFilter, readInboxOptions, INBOX_OFF, DEFAULT_SEND_TO } from '@chat-messaging/core';
import { loadEditor, NODE_RED_EDITOR } from '../../../contract/contract';
import { outputChoiceOf } from '../src/nodes/action/output';
import { replyTimeoutOf } from '../src/nodes/action/reply';
import { readEventMode, readPollSeconds } from '../src/nodes/event/settings';
import { migrate, type FillStep } from '../src/shared/migrate';
import { MIGRATIONS } from '../src/migrations';

type SavedNode = Record<string, unknown> & { id: string; type: string; name?: string };
const saved = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'flows-saved-by-the-first-release.json'), 'utf8')) as {
	flows: Record<string, SavedNode[]>;
};
const savedNodes = Object.values(saved.flows)
	.flat()
	.filter((node) => node.type.startsWith('chat-messaging'));
const ofType = (type: string) => savedNodes.filter((node) => node.type === type);
const stepsOf = (type: string): readonly FillStep[] => MIGRATIONS[type] ?? [];

const { definitions, catalogue } = loadEditor(readFileSync(NODE_RED_EDITOR, 'utf8'));
/** What a node dragged from the palette holds: its editor defaults. */
const newNode = (type: string): Record<string, unknown> =>
	Object.fromEntries(Object.entries(definitions[type]!.defaults ?? {}).map(([name, spec]) => [name, spec.value]));

test('the fixture holds the three node types', () => {
	expect(ofType('chat-messaging-config')).toHaveLength(6);
	expect(ofType('chat-messaging')).toHaveLength(7);
	expect(ofType('chat-messaging-event')).toHaveLength(3);
});

test('every saved node keeps every property it holds; only missing ones are filled in', () => {
	for (const node of savedNodes) {
		const { node: after, filled } = migrate(node, stepsOf(node.type));
		expect(after).toEqual({ ...node, ...filled });
		for (const property of Object.keys(filled)) expect(node[property]).toBeUndefined();
	}
});

test('saved config nodes: the time zone Node-RED runs in (empty), where they always read dates', () => {
	for (const node of ofType('chat-messaging-config')) {
		expect(migrate(node, stepsOf(node.type))).toMatchObject({ filled: { timeZone: '' }, applied: ['fillTimeZoneOfNodeRed'] });
	}
});

test('saved action nodes: Raw output, 300 s reply time-out, no reply wait, From payload off where unset', () => {
	for (const node of ofType('chat-messaging')) {
		const { node: after, applied } = migrate(node, stepsOf(node.type));
		const expected = ['fillOutputRaw', 'fillReplyTimeout300s', 'fillWaitForReplyOff'];
		if (node.payloadFields === undefined) expected.push('fillPayloadFieldsOff');
		expected.push('fillSendToDefault');
		expect(`${node.name}: ${applied.join(', ')}`).toBe(`${node.name}: ${expected.join(', ')}`);
		// What the runtime reads of it: what these nodes ran with before the settings existed.
		expect(outputChoiceOf(after)).toEqual({ mode: 'raw', fields: '' });
		expect(replyTimeoutOf(after)).toBe(300);
		expect(after).toMatchObject({ waitForReply: false, sendTo: DEFAULT_SEND_TO });
		if (node.payloadFields === undefined) expect(after.payloadFields).toBe(false);
	}
});

test('saved event nodes: webhook mode, every filter passing all, every inbox option off, attachments as saved', () => {
	for (const node of ofType('chat-messaging-event')) {
		const { node: after, applied } = migrate(node, stepsOf(node.type));
		expect(applied.slice(0, 2)).toEqual(['fillModeWebhook', 'fillPollSecondsDefault']);
		expect(applied.includes('fillDownloadAttachmentsOff')).toBe(node.downloadAttachments === undefined);
		expect(applied).toEqual(expect.arrayContaining(['fillLabelsPassingAll', 'fillChatTypePassingAll', 'fillSkipAssignedOff']));
		expect(readEventMode(after.mode)).toBe('webhook');
		expect(readPollSeconds(after.pollSeconds)).toBe(60);
		expect(isFilterEmpty(readEventFilter(after))).toBe(true);
		expect(readInboxOptions(after)).toEqual(INBOX_OFF);
		expect(after.downloadAttachments).toBe(node.downloadAttachments ?? false);
	}
});

test('migrating twice changes nothing more', () => {
	for (const node of savedNodes) {
		const once = migrate(node, stepsOf(node.type)).node;
		expect(migrate(once, stepsOf(node.type)).applied).toEqual([]);
	}
});

test('a new node (the editor defaults) needs no migration, and every step fills one of its properties', () => {
	for (const [type, steps] of Object.entries(MIGRATIONS)) {
		const fresh = newNode(type);
		expect(`${type}: ${migrate(fresh, steps).applied.join(', ')}`).toBe(`${type}: `);
		for (const step of steps) {
			expect(`${type}.${step.property}: ${step.property in fresh}`).toBe(`${type}.${step.property}: true`);
			expect(step.name).toMatch(/^fill[A-Z]/);
		}
		expect(new Set(steps.map((step) => step.name)).size).toBe(steps.length);
	}
});

test('the editor runs the same steps as the runtime: they are embedded in its catalogue', () => {
	expect((catalogue as unknown as { migrations: unknown }).migrations).toEqual(JSON.parse(JSON.stringify(MIGRATIONS)));
	expect(Object.keys(MIGRATIONS).sort()).toEqual(Object.keys(definitions).sort());
});
