/**
 * The action node's Output choice (Simplified / Raw / Selected Fields) for operations that return
 * records, against the sandbox over real HTTP. A node saved before the choice existed holds no
 * `output` and must keep giving the whole records; operations that return no records ignore it.
 */
import { RECORD_SHAPES } from '@chat-messaging/core';
import { migrateAction } from '../src/nodes/action/migrations';
import { outputChoiceOf } from '../src/nodes/action/output';
import { FAST_SANDBOX, fields, runAction, sandboxData, startSandbox, type Sandbox } from './support';

const TOKEN = 'output-token-9d41';
let sbx: Sandbox;
let firstChats: any[];
let chat: any;

beforeAll(async () => {
	sbx = await startSandbox({ ...FAST_SANDBOX, tokens: [TOKEN] });
	firstChats = (await sandboxData(sbx, '/chats?page=1')).chats.slice(0, 5);
	chat = firstChats[0];
});
afterAll(async () => {
	await sbx.stop();
});

async function payload(props: Record<string, unknown>, expectOutputs = 1): Promise<any[]> {
	const run = await runAction(sbx, props, {}, { expectOutputs, settleMs: 30 });
	if (run.caught) throw new Error(`the node failed: ${JSON.stringify(run.caught.error)}`);
	return run.outputs.map((msg) => msg.payload);
}

const listFive = (extra: Record<string, unknown>) => ({
	resource: 'chat',
	operation: 'getAll',
	fields: {},
	returnAll: false,
	limit: 5,
	...extra,
});

test('a node saved without Output (before the choice existed) keeps the whole records the service sends', async () => {
	expect(outputChoiceOf(migrateAction({ id: 'n', type: 'chat-messaging' }))).toEqual({ mode: 'raw', fields: '' });
	const [list] = await payload(listFive({}));
	expect(list).toEqual(firstChats);
	// The sandbox sends more than Simplified keeps, so Raw and Simplified differ here.
	expect(Object.keys(chat).some((name) => !RECORD_SHAPES.chat.simplified.includes(name))).toBe(true);
});

test('Simplified keeps the fields of the record kind that the record has, ids included; Raw keeps all', async () => {
	const [list] = await payload(listFive({ output: 'simplified' }));
	const simplify = (record: any) =>
		Object.fromEntries(RECORD_SHAPES.chat.simplified.filter((name) => name in record).map((name) => [name, record[name]]));
	expect(list).toEqual(firstChats.map(simplify));
	expect(list.every((record: any) => typeof record.id === 'number')).toBe(true);
	expect(await payload(listFive({ output: 'raw' }))).toEqual([firstChats]);
});

test('Simplified with one message per item: each msg carries one simplified record', async () => {
	const payloads = await payload(listFive({ output: 'simplified', outputMode: 'split' }), 5);
	expect(payloads.map((record) => record.id)).toEqual(firstChats.map((record) => record.id));
	for (const record of payloads) expect(Object.keys(record).every((name) => RECORD_SHAPES.chat.simplified.includes(name))).toBe(true);
});

test('Selected Fields keeps the ids and the named fields of one record (Get)', async () => {
	const [record] = await payload({
		resource: 'chat',
		operation: 'get',
		fields: fields({ chat_id: chat.id }),
		output: 'selected',
		outputFields: 'name, labels',
	});
	expect(record).toEqual({ id: chat.id, name: chat.name, labels: chat.labels });
});

test('Selected Fields without a name, and an unknown Output, fail naming the property, before any request', async () => {
	// Reading the count is itself a call: what one read adds is measured first.
	const apiCalls = async (): Promise<number> => (await sandboxData(sbx, '/workspace')).api_calls_quota.used;
	const first = await apiCalls();
	const before = await apiCalls();
	const get = { resource: 'chat', operation: 'get', fields: fields({ chat_id: chat.id }) };
	const empty = await runAction(sbx, { ...get, output: 'selected', outputFields: ' , ' });
	expect(empty.outputs).toEqual([]);
	expect(empty.caught!.chatMessagingError).toMatchObject({ kind: 'input', field: 'outputFields' });
	expect((empty.caught!.error as any).message).toMatch(/^Fields: is empty: name the fields to output/);
	const unknown = await runAction(sbx, { ...get, output: 'short' });
	expect(unknown.caught!.chatMessagingError).toMatchObject({ kind: 'input', field: 'output' });
	expect((unknown.caught!.error as any).message).toMatch(/^Output: must be one of simplified, raw, selected, got "short"/);
	expect((await apiCalls()) - before).toBe(before - first);
});

test('operations that return no records ignore Output (a new node saves it whatever its operation)', async () => {
	const labels = (await sandboxData(sbx, `/chats/${chat.id}/labels`)) as unknown;
	const [got] = await payload({
		resource: 'label',
		operation: 'get',
		fields: fields({ chat_id: chat.id }),
		output: 'selected',
		outputFields: '',
	});
	expect(got).toEqual((labels as { labels: string[] }).labels);
});
