/**
 * The action node's errors as Catch nodes see them, attachments and waiting for delivery (action-node.test.ts has
 * list modes, typed-input sources and the msg.payload fallback).
 */
import type { NodeMessage } from 'node-red';
import {
	actionNodeTestHooks,
	FAST_SANDBOX,
	fields,
	helper,
	runAction,
	sandboxCall,
	sandboxData,
	startSandbox,
	type Sandbox,
} from './support';

const TOKEN = 'action-errors-token-2b9c';
const shared = actionNodeTestHooks(TOKEN);
let sbx: Sandbox;
let fileServerUrl = '';
let directChat: any;
beforeAll(() => ({ sandbox: sbx, fileUrl: fileServerUrl, directChat } = shared));

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
