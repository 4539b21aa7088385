/**
 * Every catalogue operation through the action node, against the sandbox over real HTTP; each effect
 * is checked with an independent call to the sandbox.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OPERATIONS, operationId } from '@chat-messaging/core';
import { FAST_SANDBOX, fields, payloadOf, runAction, sandboxCall, sandboxData, startSandbox, type Sandbox } from './support';

let sbx: Sandbox;
let fileServer: Server;
let fileServerUrl = '';
const covered = new Set<string>();

beforeAll(async () => {
	sbx = await startSandbox({ ...FAST_SANDBOX, tokens: ['ops-token'] });
	fileServer = createServer((_req, res) => {
		res.writeHead(200, { 'content-type': 'image/png' });
		res.end(Buffer.from('89504e470d0a1a0a', 'hex'));
	});
	await new Promise<void>((resolve) => fileServer.listen(0, '127.0.0.1', resolve));
	fileServerUrl = `http://127.0.0.1:${(fileServer.address() as AddressInfo).port}/pictures/logo.png`;
});
afterAll(async () => {
	await sbx.stop();
	fileServer.closeAllConnections();
	await new Promise((resolve) => fileServer.close(resolve));
});

/** Runs one operation with the given typed-input fields (and other node props); records it as covered. */
function run(
	id: string,
	fieldValues: Record<string, unknown> = {},
	props: Record<string, unknown> = {},
	msg: Record<string, unknown> = {},
): Promise<any> {
	covered.add(id);
	const [resource, operation] = id.split(':');
	return payloadOf(sbx, { resource, operation, fields: fields(fieldValues), ...props }, msg);
}

const chatOf = (id: number) => sandboxData(sbx, `/chats/${id}`);

async function someDirectChat(): Promise<any> {
	const list = await sandboxData(sbx, '/chats?group=false');
	return list.chats.find((chat: any) => chat.is_allowed_to_message !== false);
}

describe('chat operations', () => {
	test('chat:getAll with a boolean filter returns every open chat across pages', async () => {
		const open = await run('chat:getAll', { closed: false });
		let expected = 0;
		for (let page = 1; ; page++) {
			const data = await sandboxData(sbx, `/chats?closed=false&page=${page}`);
			expected += data.chats.length;
			if (!data.has_more_pages) break;
		}
		expect(Array.isArray(open)).toBe(true);
		expect(open.length).toBe(expected);
		expect(open.length).toBeGreaterThan(0);
		expect(open.every((chat: any) => chat.closed === false)).toBe(true);
	});

	test('chat:get returns the chat', async () => {
		const target = await someDirectChat();
		const chat = await run('chat:get', { chat_id: target.id });
		expect(chat).toMatchObject({ id: target.id, name: target.name });
	});

	test('chat:close, chat:reopen, chat:markRead, chat:markUnread, chat:setAiAutoresponse change the flags', async () => {
		const target = await someDirectChat();
		await run('chat:close', { chat_id: target.id });
		expect((await chatOf(target.id)).closed).toBe(true);
		await run('chat:reopen', { chat_id: target.id });
		expect((await chatOf(target.id)).closed).toBe(false);
		await run('chat:markRead', { chat_id: target.id });
		expect((await chatOf(target.id)).read).toBe(true);
		await run('chat:markUnread', { chat_id: target.id });
		expect((await chatOf(target.id)).read).toBe(false);
		await run('chat:setAiAutoresponse', { chat_id: target.id, ai_autoresponse_enabled: true });
		expect((await chatOf(target.id)).ai_autoresponse_enabled).toBe(true);
		await run('chat:setAiAutoresponse', { chat_id: target.id, ai_autoresponse_enabled: false });
		expect((await chatOf(target.id)).ai_autoresponse_enabled).toBe(false);
	});

	test('chat:rename and chat:update rename the chat', async () => {
		const target = await someDirectChat();
		await run('chat:rename', { chat_id: target.id, name: 'Renamed by Node-RED' });
		expect((await chatOf(target.id)).name).toBe('Renamed by Node-RED');
		await run('chat:update', { chat_id: target.id, name: 'Updated by Node-RED', closed: true });
		const chat = await chatOf(target.id);
		expect(chat).toMatchObject({ name: 'Updated by Node-RED', closed: true });
	});

	test('chat:assign and chat:unassign set and clear the responsible member (teammate:getAll finds one)', async () => {
		const target = await someDirectChat();
		const teammates = await run('teammate:getAll');
		const member = teammates.find((mate: any) => mate.status !== 'invited') ?? teammates[0];
		expect(member.email).toMatch(/@/);
		await run('chat:assign', { chat_id: target.id, responsible: member.email });
		expect((await chatOf(target.id)).responsible_email).toBe(member.email);
		await run('chat:unassign', { chat_id: target.id });
		expect((await chatOf(target.id)).responsible_email).toBeNull();
	});
});

describe('labels and notes', () => {
	test('label:add keeps existing labels, label:replace sets them, label:remove removes some, label:get reads them', async () => {
		const target = await someDirectChat();
		await run('label:replace', { chat_id: target.id, labels: 'alpha, beta' });
		await run('label:add', { chat_id: target.id, labels: { value: '["gamma"]', type: 'json' } });
		expect((await sandboxData(sbx, `/chats/${target.id}/labels`)).labels.sort()).toEqual(['alpha', 'beta', 'gamma']);
		await run('label:remove', { chat_id: target.id, labels: 'beta' });
		const labels = await run('label:get', { chat_id: target.id });
		expect([...labels].sort()).toEqual(['alpha', 'gamma']);
		await run('label:removeAll', { chat_id: target.id });
		expect((await sandboxData(sbx, `/chats/${target.id}/labels`)).labels).toEqual([]);
	});

	test('note:add adds an internal note', async () => {
		const target = await someDirectChat();
		await run('note:add', { chat_id: target.id, text: 'Called back on Monday' });
		const notes = await sandboxData(sbx, `/_sandbox/notes?chat_id=${target.id}`);
		expect(notes.notes.map((note: any) => note.text)).toContain('Called back on Monday');
	});
});

describe('messages and reactions', () => {
	test('the four sends queue a message each; message:get, message:getStatusHistory and message:getAll read them', async () => {
		const target = await someDirectChat();
		const toPhone = await run('message:sendToPhone', { phone: '+4915112340001', text: 'to a phone' });
		const toChat = await run('message:sendToChat', { chat_id: target.id, text: 'to a chat' });
		const toName = await run('message:sendToChatName', { chat_name: target.name, text: 'to a chat name' });
		const toJid = await run('message:sendToJid', { jid: target.jid, text: 'to a jid' });
		for (const sent of [toPhone, toChat, toName, toJid]) expect(sent.message_uid).toEqual(expect.any(String));
		expect(new Set([toPhone, toChat, toName, toJid].map((sent) => sent.message_uid)).size).toBe(4);

		const message = await run('message:get', { message_uid: toChat.message_uid });
		expect(message).toMatchObject({ uid: toChat.message_uid, text: 'to a chat', chat_id: target.id });
		const history = await run('message:getStatusHistory', { message_uid: toChat.message_uid });
		expect(history[0].status).toBe('queued');

		const chatMessages = await run('message:getAll', { chat_id: target.id, from_me: true });
		const texts = chatMessages.map((m: any) => m.text);
		expect(texts).toEqual(expect.arrayContaining(['to a chat', 'to a chat name', 'to a jid']));
		expect(chatMessages.every((m: any) => m.from_me === true)).toBe(true);
	});

	test('reaction:set sets the reaction that reaction:get reads', async () => {
		const target = await someDirectChat();
		const history = await sandboxData(sbx, `/chats/${target.id}/messages`);
		const uid = history.messages[0].uid;
		await run('reaction:set', { uid, reaction: '👍' });
		const reactions = await run('reaction:get', { uid });
		expect(reactions.reactions['👍']).toBeGreaterThanOrEqual(1);
		await run('reaction:remove', { uid });
		expect((await run('reaction:get', { uid })).users.some((user: { current?: boolean }) => user.current)).toBe(false);
	});
});

describe('files', () => {
	test('file:upload (Buffer from msg), file:uploadFromUrl, file:getAll, file:get, file:delete', async () => {
		const uploaded = await run(
			'file:upload',
			{ file: { value: 'payload', type: 'msg' }, filename: 'note.txt' },
			{},
			{ payload: Buffer.from('hello file') },
		);
		expect(uploaded).toMatchObject({ filename: 'note.txt', size: 10 });
		const fromUrl = await run('file:uploadFromUrl', { download_url: fileServerUrl });
		expect(fromUrl).toMatchObject({ filename: 'logo.png', size: 8 });

		const all = await run('file:getAll', { filename: 'note' });
		expect(all.map((file: any) => file.uid)).toContain(uploaded.uid);
		expect(all.map((file: any) => file.uid)).not.toContain(fromUrl.uid);

		const one = await run('file:get', { uid: uploaded.uid });
		expect(one.temporary_download_url).toEqual(expect.any(String));
		const bytes = await fetch(one.temporary_download_url).then((r) => r.text());
		expect(bytes).toBe('hello file');

		await run('file:delete', { uid: fromUrl.uid });
		expect((await sandboxCall(sbx, 'GET', `/files/${fromUrl.uid}`)).status).toBe(404);
	});

	test('file:download puts the bytes in msg.payload as a Buffer, byte-equal, with msg.filename and msg.mimeType', async () => {
		const bytes = Buffer.from(Array.from({ length: 3000 }, (_, index) => (index * 37) % 256));
		const uploaded = await run('file:upload', { file: { value: 'payload', type: 'msg' }, filename: 'blob.bin' }, {}, { payload: bytes });
		covered.add('file:download');
		const outcome = await runAction(sbx, { resource: 'file', operation: 'download', fields: fields({ uid: uploaded.uid }) });
		const out = outcome.outputs[0]!;
		expect(Buffer.isBuffer(out.payload)).toBe(true);
		expect(Buffer.compare(out.payload as Buffer, bytes)).toBe(0);
		expect(out).toMatchObject({ filename: 'blob.bin', mimeType: 'application/octet-stream', file: { uid: uploaded.uid } });
	});
});

describe('workspace, accounts, teammates, invitations', () => {
	test('account:getAll and workspace:get', async () => {
		const accounts = await run('account:getAll');
		expect(accounts.length).toBeGreaterThan(0);
		expect(accounts[0].id).toMatch(/@/);
		const workspace = await run('workspace:get');
		expect(workspace.messaging_quota).toEqual(expect.objectContaining({ total: expect.any(Number) }));
	});

	test('invitation:create then invitation:revoke', async () => {
		const invited = await run('invitation:create', { email: 'new.member@example.com', first_name: 'New', role: 'agent' });
		expect(invited).toMatchObject({ email: 'new.member@example.com', status: 'invited' });
		const teammates = await sandboxData(sbx, '/workspace/teammates');
		expect(teammates.teammates.map((mate: any) => mate.email)).toContain('new.member@example.com');
		await run('invitation:revoke', { user_id: invited.user_id });
		const after = await sandboxData(sbx, '/workspace/teammates');
		expect(after.teammates.map((mate: any) => mate.email)).not.toContain('new.member@example.com');
	});
});

describe('webhooks', () => {
	test('webhook:create, getAll, get, update, delete', async () => {
		const created = await run('webhook:create', { event_type: 'chat:created', url: 'https://example.com/hook' });
		expect(created).toMatchObject({ event_type: 'chat:created', url: 'https://example.com/hook', enabled: true });
		const all = await run('webhook:getAll');
		expect(all.map((hook: any) => hook.id)).toContain(created.id);
		const one = await run('webhook:get', { id: created.id });
		expect(one.errors_counter).toBe(0);
		await run('webhook:update', { id: created.id, enabled: false });
		expect((await sandboxData(sbx, `/webhooks/${created.id}`)).enabled).toBe(false);
		await run('webhook:delete', { id: created.id });
		expect((await sandboxCall(sbx, 'GET', `/webhooks/${created.id}`)).status).toBe(404);
	});
});

describe("dates, in the configuration node's time zone", () => {
	// A loopback service that records each query and answers an empty chat list.
	let recorder: Server;
	let recorderUrl = '';
	const queries: URLSearchParams[] = [];
	beforeAll(async () => {
		recorder = createServer((req, res) => {
			queries.push(new URL(req.url ?? '/', 'http://127.0.0.1').searchParams);
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ status: 'success', data: { has_more_pages: false, chats: [] } }));
		});
		await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
		recorderUrl = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;
	});
	afterAll(async () => {
		recorder.closeAllConnections();
		await new Promise((resolve) => recorder.close(resolve));
	});

	const sentCreatedAfter = async (value: string, config: Record<string, unknown>): Promise<string | null> => {
		queries.length = 0;
		await runAction(
			sbx,
			{ resource: 'chat', operation: 'getAll', fields: fields({ created_after: value }) },
			{},
			{
				config: { baseUrl: recorderUrl, ...config },
			},
		);
		return queries[0]?.get('created_after') ?? null;
	};

	test.each([
		// A date alone: midnight in the configured zone (Tokyo, UTC+9), not in UTC.
		['2026-01-31', '2026-01-30T15:00:00Z'],
		// With a time and a zone: the same instant as in flows saved before the setting.
		['2026-01-31T09:00:00Z', '2026-01-31T09:00:00Z'],
		['2026-01-31 10:00:00 +0100', '2026-01-31T09:00:00Z'],
	])('%s is sent as %s', async (value, sent) => {
		expect(await sentCreatedAfter(value, { timeZone: 'Asia/Tokyo' })).toBe(sent);
	});

	test("a configuration saved without a time zone reads a date alone in this Node-RED's zone", async () => {
		const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
		expect(await sentCreatedAfter('2026-01-31', {})).toBe(await sentCreatedAfter('2026-01-31', { timeZone: zone }));
		expect(await sentCreatedAfter('2026-01-31T09:00:00Z', {})).toBe('2026-01-31T09:00:00Z');
	});

	test('an unknown time zone is refused naming the setting, before any request', async () => {
		queries.length = 0;
		const run = await runAction(
			sbx,
			{ resource: 'chat', operation: 'getAll', fields: fields({ created_after: '2026-01-31' }) },
			{},
			{ config: { baseUrl: recorderUrl, timeZone: 'Mars/Olympus' } },
		);
		expect((run.caught!.error as any).message).toMatch(/^Time zone: is not a time zone name/);
		expect(queries).toHaveLength(0);
	});
});

test('every operation of the catalogue was run through the node', () => {
	const missing = OPERATIONS.map(operationId).filter((id) => !covered.has(id));
	expect(missing).toEqual([]);
	expect(covered.size).toBe(OPERATIONS.length);
});
