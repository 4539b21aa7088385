/**
 * The action node's behaviour beyond "each operation works": list modes, typed-input sources, the
 * msg.payload fallback, errors as Catch nodes see them, attachments and waiting for delivery.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NodeMessage } from 'node-red';
import { OPERATIONS, operationId } from '@chat-messaging/core';
import {
	CONFIG_ID,
	configNode,
	FAST_SANDBOX,
	fields,
	helper,
	nodesUnderTest,
	runAction,
	sandboxCall,
	sandboxData,
	startSandbox,
	TAB,
	type Sandbox,
} from './support';

const TOKEN = 'action-secret-token-7f3a';
let sbx: Sandbox;
let fileServer: Server;
let fileServerUrl = '';
const allChats: any[] = [];
let directChat: any;

beforeAll(async () => {
	// 130 chats: three pages of 50.
	sbx = await startSandbox({ ...FAST_SANDBOX, chats: 130, tokens: [TOKEN] });
	fileServer = createServer((_req, res) => {
		res.writeHead(200, { 'content-type': 'image/jpeg' });
		res.end(Buffer.from('ffd8ffe000104a464946', 'hex'));
	});
	await new Promise<void>((resolve) => fileServer.listen(0, '127.0.0.1', resolve));
	fileServerUrl = `http://127.0.0.1:${(fileServer.address() as AddressInfo).port}/photos/cat.jpg`;
	for (let page = 1; ; page++) {
		const data = await sandboxData(sbx, `/chats?page=${page}`);
		allChats.push(...data.chats);
		if (!data.has_more_pages) break;
	}
	directChat = allChats.find((chat) => !chat.is_group && chat.is_allowed_to_message !== false);
});
afterAll(async () => {
	await sbx.stop();
	fileServer.closeAllConnections();
	await new Promise((resolve) => fileServer.close(resolve));
});

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

describe('errors reach Catch nodes with the service error code and HTTP status', () => {
	function statusCalls(): Array<Record<string, unknown>> {
		const calls: Array<Record<string, unknown>> = [];
		(helper.getNode('action') as any).on('call:status', (call: { args: [Record<string, unknown>] }) => calls.push(call.args[0]));
		return calls;
	}

	test('a service error (bad token): message, code, error_code, http_status; never the token', async () => {
		let statuses: Array<Record<string, unknown>> = [];
		const run = await runAction(
			sbx,
			{ resource: 'workspace', operation: 'get', fields: {} },
			{ topic: 'still here' },
			{ token: 'wrong-token-55aa', beforeInput: () => void (statuses = statusCalls()), settleMs: 30 },
		);
		expect(run.outputs).toHaveLength(0);
		const caught = run.caught!;
		expect(caught.topic).toBe('still here');
		expect(caught.error).toMatchObject({ code: 'invalid_token', source: { id: 'action', type: 'chat-messaging' } });
		expect((caught.error as any).message).toMatch(/token/i);
		expect(caught.error_code).toBe('invalid_token');
		expect(caught.http_status).toBe(401);
		expect(caught.chatMessagingError).toMatchObject({
			kind: 'service',
			httpStatus: 401,
			errorCode: 'invalid_token',
			operation: 'workspace:get',
		});
		expect((caught.error as any).cause).toEqual(caught.chatMessagingError);
		expect(JSON.stringify(caught)).not.toContain('wrong-token-55aa');
		expect(statuses.at(-1)).toMatchObject({ fill: 'red', shape: 'ring', text: '401 invalid_token' });
	});

	test('a validation error from the service (400 validation_error)', async () => {
		// Only the service knows the names in use: renaming a chat to another's name is refused there, not before.
		const [chat, other] = (await sandboxData(sbx, '/chats')).chats;
		const run = await runAction(sbx, {
			resource: 'chat',
			operation: 'rename',
			fields: fields({ chat_id: chat.id, name: other.name }),
		});
		expect(run.caught!.http_status).toBe(400);
		expect(run.caught!.error_code).toBe('validation_error');
		expect((run.caught!.error as any).code).toBe('validation_error');
		expect((run.caught!.chatMessagingError as any).errors[0].fields).toEqual(['name']);
	});

	test('bad input fails before any request, naming the field', async () => {
		const before = await sandboxData(sbx, '/_sandbox/queue');
		const run = await runAction(sbx, {
			resource: 'message',
			operation: 'sendToPhone',
			fields: fields({ phone: '+49 151 123', text: 'x' }),
		});
		expect((run.caught!.error as any).message).toMatch(/^Phone Number: Invalid phone number format/);
		expect(run.caught!.error_code).toBe('input');
		expect(run.caught!.http_status).toBeUndefined();
		expect(run.caught!.chatMessagingError).toMatchObject({ kind: 'input', field: 'phone' });
		const after = await sandboxData(sbx, '/_sandbox/queue');
		expect(after.quota.used).toBe(before.quota.used);
	});

	test.each([
		['create', { event_type: 'chat:created', url: 'http://hooks.example.com/in' }, /is not HTTPS/],
		['create', { event_type: 'chat:created', url: 'https://172.20.1.1/in' }, /is on this machine or a private network/],
		['update', { id: '5', url: 'https://localhost/in' }, /is on this machine or a private network/],
	])(
		'webhook %s with the public service refuses an address it cannot post to, naming URL, before any request',
		async (operation, values, problem) => {
			// The service address is public and the receiver addresses are data: the node must stop before any request.
			const run = await runAction(
				sbx,
				{ resource: 'webhook', operation, fields: fields(values) },
				{},
				{ token: 'never-sent-token-7d2e', config: { baseUrl: 'https://api.chat-messaging.example' } },
			);
			expect((run.caught!.error as any).message).toMatch(/^URL: must be a public HTTPS address/);
			expect((run.caught!.error as any).message).toMatch(problem);
			expect(run.caught!.chatMessagingError).toMatchObject({ kind: 'input', field: 'url' });
		},
	);

	test('a broken JSONata expression is an input error of its field', async () => {
		const run = await runAction(sbx, { resource: 'chat', operation: 'get', fields: { chat_id: { value: '$$$(', type: 'jsonata' } } });
		expect((run.caught!.error as any).message).toMatch(/^Chat ID: /);
		expect(run.caught!.chatMessagingError).toMatchObject({ kind: 'input', field: 'chat_id' });
	});

	test('an unreachable service is a network error (code ECONNREFUSED) whose message holds no token', async () => {
		const run = await runAction(
			sbx,
			{ resource: 'message', operation: 'sendToChat', fields: fields({ chat_id: 1, text: 'x' }) },
			{},
			{ config: { baseUrl: 'http://127.0.0.1:9' } },
		);
		expect(run.caught!.error_code).toBe('ECONNREFUSED');
		expect(run.caught!.chatMessagingError).toMatchObject({ kind: 'network', networkCode: 'ECONNREFUSED' });
		expect(JSON.stringify(run.caught)).not.toContain(TOKEN);
	});

	test('a config node without a token names the missing token', async () => {
		const run = await runAction(sbx, { resource: 'workspace', operation: 'get', fields: {} }, {}, { token: '' });
		expect((run.caught!.error as any).message).toMatch(/^token: /);
	});
});

describe('attachments and waiting for a status', () => {
	test('a Buffer attachment is uploaded and attached (2 credits)', async () => {
		const before = (await sandboxData(sbx, '/workspace')).messaging_quota.used;
		const run = await runAction(
			sbx,
			{
				resource: 'message',
				operation: 'sendToChat',
				fields: fields({ chat_id: directChat.id, text: 'see picture' }),
				attachment: { value: 'image', type: 'msg' },
				attachmentName: 'chart.png',
			},
			{ image: Buffer.from('89504e470d0a1a0a0000', 'hex') },
		);
		expect(run.caught).toBeUndefined();
		const sent = run.outputs[0]!.payload as any;
		expect(sent.file).toMatchObject({ filename: 'chart.png', size: 10, mimetype: 'image/png' });
		const message = await sandboxData(sbx, `/messages/${sent.message_uid}`);
		expect(message).toMatchObject({ has_attachment: true, attachment_filename: 'chart.png', text: 'see picture' });
		expect((await sandboxData(sbx, '/workspace')).messaging_quota.used - before).toBe(2);
	});

	test('{data, filename, mimeType} from msg.payload works as an attachment alone (no text)', async () => {
		const run = await runAction(
			sbx,
			{ resource: 'message', operation: 'sendToJid', fields: fields({ jid: directChat.jid }), attachment: { value: 'file', type: 'msg' } },
			{ file: { data: Buffer.from('%PDF-1.4'), filename: 'invoice.pdf', mimeType: 'application/pdf' } },
		);
		expect(run.caught).toBeUndefined();
		const message = await sandboxData(sbx, `/messages/${(run.outputs[0]!.payload as any).message_uid}`);
		expect(message).toMatchObject({ has_attachment: true, attachment_filename: 'invoice.pdf' });
	});

	test('a URL attachment is registered with POST /files and attached', async () => {
		const run = await runAction(sbx, {
			resource: 'message',
			operation: 'sendToChat',
			fields: fields({ chat_id: directChat.id, text: 'a cat' }),
			attachment: { value: fileServerUrl, type: 'str' },
		});
		expect(run.caught).toBeUndefined();
		const sent = run.outputs[0]!.payload as any;
		expect(sent.file).toMatchObject({ filename: 'cat.jpg', size: 10 });
		const message = await sandboxData(sbx, `/messages/${sent.message_uid}`);
		expect(message).toMatchObject({ has_attachment: true, attachment_filename: 'cat.jpg' });
	});

	test('an attachment that is neither bytes nor a URL is an input error before any upload', async () => {
		const filesBefore = (await sandboxData(sbx, '/files')).files.length;
		const run = await runAction(sbx, {
			resource: 'message',
			operation: 'sendToChat',
			fields: fields({ chat_id: directChat.id, text: 'x' }),
			attachment: { value: 'not a url', type: 'str' },
		});
		expect(run.caught!.chatMessagingError).toMatchObject({ kind: 'input', field: 'attachment' });
		expect((await sandboxData(sbx, '/files')).files.length).toBe(filesBefore);
	});

	test('waitFor delivered: the result carries the delivered message', async () => {
		const run = await runAction(sbx, {
			resource: 'message',
			operation: 'sendToChat',
			fields: fields({ chat_id: directChat.id, text: 'wait for me' }),
			waitFor: 'delivered',
			waitTimeout: 10,
		});
		expect(run.caught).toBeUndefined();
		const result = run.outputs[0]!.payload as any;
		expect(['delivered', 'read']).toContain(result.status);
		expect(result.message).toMatchObject({ uid: result.message_uid, text: 'wait for me' });
		const history = await sandboxData(sbx, `/messages/${result.message_uid}/status_history`);
		expect(history.map((entry: any) => entry.status)).toEqual(expect.arrayContaining(['queued', 'sent', 'delivered']));
	});
});

test('waitFor gives up after waitTimeout with a timeout error, and the message is sent once', async () => {
	// Here only the control API moves messages past "sent", so "delivered" never comes.
	const still = await startSandbox({ ...FAST_SANDBOX, deliveredAfterMs: 0, readAfterMs: 0, tokens: ['still'] });
	try {
		const chats = (await sandboxData(still, '/chats?group=false')).chats;
		const chat = chats.find((c: any) => c.is_allowed_to_message !== false);
		const started = Date.now();
		const run = await runAction(still, {
			resource: 'message',
			operation: 'sendToChat',
			fields: fields({ chat_id: chat.id, text: 'never delivered' }),
			waitFor: 'delivered',
			waitTimeout: 1,
		});
		expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
		expect(run.caught!.error_code).toBe('timeout');
		expect((run.caught!.error as any).message).toMatch(/did not reach "delivered"/);
		const messages = (await sandboxData(still, `/chats/${chat.id}/messages?from_me=true`)).messages.filter(
			(m: any) => m.text === 'never delivered',
		);
		expect(messages).toHaveLength(1);
	} finally {
		await still.stop();
	}
});

test('an unknown operation is reported on the node and as an input error', async () => {
	const run = await runAction(sbx, { resource: 'chat', operation: 'explode', fields: {} });
	expect(run.caught!.chatMessagingError).toMatchObject({ kind: 'input', field: 'operation' });
	const response = await sandboxCall(sbx, 'GET', '/workspace');
	expect(response.status).toBe(200); // the sandbox is still fine: nothing was sent
});

test('a flow written without its operation does not run (its editor default only starts new nodes)', async () => {
	const run = await runAction(sbx, { resource: 'message', fields: {} });
	expect(run.caught!.chatMessagingError).toMatchObject({ kind: 'input', field: 'operation' });
});

export type { NodeMessage };
