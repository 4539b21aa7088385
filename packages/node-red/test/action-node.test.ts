/**
 * The action node's behaviour beyond "each operation works": list modes, typed-input sources, the
 * msg.payload fallback, a configuration without a token (action-node-errors.test.ts has errors as Catch nodes see them,
 * attachments and waiting for delivery).
 */
import { OPERATIONS, operationId } from '@chat-messaging/core';
import {
	actionNodeTestHooks,
	CONFIG_ID,
	configNode,
	fields,
	helper,
	nodesUnderTest,
	runAction,
	sandboxData,
	TAB,
	type Sandbox,
} from './support';

const TOKEN = 'action-secret-token-7f3a';
const shared = actionNodeTestHooks(TOKEN);
let sbx: Sandbox;
let allChats: any[] = [];
let directChat: any;
beforeAll(() => ({ sandbox: sbx, chats: allChats, directChat } = shared));

const listChats = (props: Record<string, unknown>, expectOutputs = 1) =>
	runAction(
		sbx,
		{ resource: 'chat', operation: 'getAll', fields: {}, ...props },
		{ topic: 'keep me', payload: 'ignored' },
		{ expectOutputs, settleMs: 50 },
	);

/** The newest message of a chat, as the sandbox reports it. */
const latestMessage = async (chatId: number) => (await sandboxData(sbx, `/chats/${chatId}/messages`)).messages[0];

describe('lists', () => {
	test('sanity: the sandbox holds more than two pages of chats', () => {
		expect(allChats.length).toBe(130);
	});

	test('array mode: one msg holding every page, other msg properties kept', async () => {
		const run = await listChats({ outputMode: 'array', returnAll: true });
		expect(run.outputs).toHaveLength(1);
		expect(run.outputs[0]!.topic).toBe('keep me');
		expect((run.outputs[0]!.payload as any[]).map((chat) => chat.id)).toEqual(allChats.map((chat) => chat.id));
	});

	test('split mode: one msg per item, in order, with msg.parts for a Join node', async () => {
		const run = await listChats({ outputMode: 'split', returnAll: true }, 130);
		expect(run.outputs).toHaveLength(130);
		expect(run.outputs.map((msg) => (msg.payload as any).id)).toEqual(allChats.map((chat) => chat.id));
		const parts = run.outputs.map((msg) => msg.parts as any);
		expect(parts.map((p) => p.index)).toEqual([...Array(130).keys()]);
		expect(new Set(parts.map((p) => p.id)).size).toBe(1);
		expect(parts.every((p) => p.count === 130 && p.type === 'array')).toBe(true);
		expect(run.outputs.every((msg) => msg.topic === 'keep me')).toBe(true);
	});

	test('limit: returnAll off stops after `limit` items (the first ones, across a page boundary)', async () => {
		const run = await listChats({ outputMode: 'array', returnAll: false, limit: 60 });
		expect((run.outputs[0]!.payload as any[]).map((chat) => chat.id)).toEqual(allChats.slice(0, 60).map((chat) => chat.id));
	});

	test('limit with split mode: exactly `limit` messages', async () => {
		const run = await listChats({ outputMode: 'split', returnAll: false, limit: 3 }, 3);
		expect(run.outputs.map((msg) => (msg.payload as any).id)).toEqual(allChats.slice(0, 3).map((chat) => chat.id));
	});

	test('an explicit page returns that page as the service sends it', async () => {
		const run = await listChats({ fields: fields({ page: 3 }) });
		const page = run.outputs[0]!.payload as any;
		expect(page.has_more_pages).toBe(false);
		expect(page.chats.map((chat: any) => chat.id)).toEqual(allChats.slice(100).map((chat) => chat.id));
	});
});

describe('typed-input sources', () => {
	test('msg, flow, global, env and JSONata values all reach the request', async () => {
		process.env.CM_TEST_LABEL = 'from-env';
		const run = await runAction(
			sbx,
			{
				resource: 'message',
				operation: 'sendToChat',
				fields: {
					chat_id: { value: 'targetChat', type: 'flow' },
					text: { value: '"Hello " & customer.name & ", order " & $string(order.id)', type: 'jsonata' },
					label: { value: 'CM_TEST_LABEL', type: 'env' },
				},
			},
			{ customer: { name: 'Ada' }, order: { id: 42 } },
			{
				beforeInput: () => {
					const node = helper.getNode('action') as any;
					node.context().flow.set('targetChat', directChat.id);
				},
			},
		);
		expect(run.caught).toBeUndefined();
		const uid = (run.outputs[0]!.payload as any).message_uid;
		const message = await sandboxData(sbx, `/messages/${uid}`);
		expect(message).toMatchObject({ chat_id: directChat.id, text: 'Hello Ada, order 42' });
		expect((await sandboxData(sbx, `/chats/${directChat.id}/labels`)).labels).toContain('from-env');
	});

	test('global context and msg properties', async () => {
		const run = await runAction(
			sbx,
			{
				resource: 'message',
				operation: 'sendToPhone',
				fields: { phone: { value: 'phones.support', type: 'global' }, text: { value: 'body.text', type: 'msg' } },
			},
			{ body: { text: 'via msg.body.text' } },
			{
				beforeInput: () => {
					const node = helper.getNode('action') as any;
					node.context().global.set('phones', { support: '+4915112349999' });
				},
			},
		);
		expect(run.caught).toBeUndefined();
		const message = await sandboxData(sbx, `/messages/${(run.outputs[0]!.payload as any).message_uid}`);
		expect(message.text).toBe('via msg.body.text');
		const chat = await sandboxData(sbx, `/chats/${message.chat_id}`);
		expect(chat.phone).toBe('+4915112349999');
	});

	test('with "From payload" on, fields left empty are filled from msg.payload.<wire name>', async () => {
		const run = await runAction(
			sbx,
			{ resource: 'message', operation: 'sendToChat', fields: { text: { value: '', type: 'str' } }, payloadFields: true },
			{ payload: { chat_id: directChat.id, text: 'from the payload' } },
		);
		expect(run.caught).toBeUndefined();
		expect((await latestMessage(directChat.id)).text).toBe('from the payload');
	});

	test('by default nothing is read from msg.payload: an event-shaped payload does not filter Get Many', async () => {
		const event = { event_type: 'message:received:new', chat_id: directChat.id, phone: directChat.phone, name: directChat.name };
		const run = await runAction(sbx, { resource: 'chat', operation: 'getAll', fields: {}, returnAll: true }, { payload: event });
		let total = 0;
		for (let page = 1; ; page++) {
			const data = await sandboxData(sbx, `/chats?page=${page}`);
			total += data.chats.length;
			if (!data.has_more_pages) break;
		}
		expect((run.outputs[0]!.payload as any[]).length).toBe(total);
		const send = await runAction(
			sbx,
			{ resource: 'message', operation: 'sendToChat', fields: {} },
			{ payload: { chat_id: directChat.id, text: 'x' } },
		);
		expect(send.caught!.chatMessagingError).toMatchObject({ kind: 'input', field: 'chat_id' });
	});

	test.each([
		['webhook', 'delete', 'id'],
		['label', 'replace', 'chat_id'],
		['chat', 'close', 'chat_id'],
		['file', 'delete', 'uid'],
	])('a %s:%s never takes its target id from msg.payload, even with "From payload" on', async (resource, operation, idField) => {
		const hooksBefore = (await sandboxData(sbx, '/webhooks')).webhooks.length;
		const run = await runAction(
			sbx,
			{ resource, operation, fields: {}, payloadFields: true },
			{ payload: { ...directChat, id: directChat.id, chat_id: directChat.id, uid: 'f-1', labels: ['x'] } },
		);
		expect(run.caught!.chatMessagingError).toMatchObject({ kind: 'input', field: idField });
		expect((await sandboxData(sbx, '/webhooks')).webhooks.length).toBe(hooksBefore);
	});

	// Every operation whose effect changes or removes what its path names, read from the catalogue: a record piped in
	// (an event, a chat from Get Many) never aims an update, a rename, a label or reaction set, or a delete.
	const changing = OPERATIONS.filter((op) => op.effect === 'idempotent' && op.fields.some((field) => field.in === 'path'));
	test('the operations that change or remove their target include updates, renames, label and reaction sets, webhook updates', () => {
		expect(changing.map(operationId)).toEqual(
			expect.arrayContaining([
				'chat:update',
				'chat:rename',
				'chat:unassign',
				'label:add',
				'reaction:set',
				'webhook:update',
				'webhook:delete',
			]),
		);
	});
	test.each(changing.map((op) => [operationId(op), op] as const))(
		'%s never takes its target id from msg.payload, even with "From payload" on',
		async (_id, op) => {
			const [target] = op.fields.filter((field) => field.in === 'path');
			const chatBefore = await sandboxData(sbx, `/chats/${directChat.id}`);
			const payload = {
				...directChat,
				chat_id: directChat.id,
				id: 1,
				uid: 'f-1',
				user_id: 1,
				message_uid: directChat.last_message_uid,
				labels: ['piped-in'],
				name: 'Renamed from a payload',
				reaction: '👍',
				responsible: '',
				closed: true,
				url: 'https://example.com/hook',
				enabled: false,
			};
			const run = await runAction(sbx, { resource: op.resource, operation: op.operation, fields: {}, payloadFields: true }, { payload });
			expect(run.caught!.chatMessagingError).toMatchObject({ kind: 'input', field: target!.name });
			expect(await sandboxData(sbx, `/chats/${directChat.id}`)).toEqual(chatBefore);
		},
	);

	test("a failure of the node's own code is an internal error, not bad input", async () => {
		// A payload whose member fails once when read: stands in for a bug in the node's own code.
		let reads = 0;
		const payload = {};
		Object.defineProperty(payload, 'chat_id', {
			enumerable: true,
			get() {
				if (reads++ === 0) throw new TypeError('payload getter failed');
				return 1;
			},
		});
		const run = await runAction(sbx, { resource: 'chat', operation: 'get', fields: {}, payloadFields: true }, { payload });
		expect(run.caught!.chatMessagingError).toMatchObject({ kind: 'internal' });
		expect((run.caught!.error as any).message).toMatch(
			/^Internal error in the Chat Messaging node \(please report it\): payload getter failed/,
		);
	});

	test('a configured field wins over msg.payload', async () => {
		const run = await runAction(
			sbx,
			{ resource: 'chat', operation: 'get', fields: fields({ chat_id: directChat.id }), payloadFields: true },
			{ payload: { chat_id: 999999 } },
		);
		expect((run.outputs[0]!.payload as any).id).toBe(directChat.id);
	});
});

test('a configuration deployed without a token: the action node says so at deploy, and the config node warns', async () => {
	const flow = [
		{ id: TAB, type: 'tab', label: 'no token' },
		configNode(sbx),
		{
			id: 'action',
			z: TAB,
			type: 'chat-messaging',
			config: CONFIG_ID,
			resource: 'chat',
			operation: 'getAll',
			fields: {},
			x: 100,
			y: 100,
			wires: [[]],
		},
	];
	/** Status calls of the action node so far (Node.prototype.status is a spy in the test helper). */
	const statuses = () =>
		((helper.getNode('action') as any).status.getCalls() as Array<{ thisValue: { id: string }; args: [Record<string, unknown>] }>)
			.filter((call) => call.thisValue.id === 'action')
			.map((call) => call.args[0]);
	await helper.load(nodesUnderTest as never, flow, {});
	try {
		const logged = helper.log().args.map((args) => args[0] as { id?: string; level?: number; msg?: unknown });
		expect(logged.find((entry) => entry.id === CONFIG_ID && entry.level === 30)?.msg).toMatch(/^No API token/);
		expect(statuses()).toEqual([{ fill: 'red', shape: 'ring', text: 'no API token in the configuration' }]);
	} finally {
		await helper.unload();
	}
	await helper.load(nodesUnderTest as never, flow, { [CONFIG_ID]: { token: TOKEN } });
	try {
		const logged = helper.log().args.map((args) => args[0] as { id?: string; level?: number; msg?: unknown });
		expect(logged.filter((entry) => entry.id === CONFIG_ID && entry.level === 30)).toEqual([]);
		expect(statuses()).toEqual([]);
	} finally {
		await helper.unload();
	}
});
