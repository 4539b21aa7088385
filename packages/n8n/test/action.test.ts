/**
 * The Chat Messaging action node, driven through n8n's execute contract against a sandbox over
 * real HTTP: every catalogue operation, paging, Continue On Fail, input errors, attachments and
 * wait-for-status.
 */
import { NodeApiError, NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { ChatMessagingError, OPERATIONS, operationId } from '@chat-messaging/core';
import { errorItemJson } from '../nodes/shared/errors';
import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';
import { binaryItem, createExecuteContext, type Credentials } from './support/n8n-context';
import { n8nTransport } from '../nodes/shared/transport';
import { actionError, coveredOperations, runAction, sandboxCall } from './support/run-action';
import { ChatMessaging } from '../nodes/ChatMessaging/ChatMessaging.node';

const versioned = new ChatMessaging();

const TOKEN = 'n8n-action-test-token-7f3c9a';
const CHATS = 130;

let sandbox: RunningSandbox;
let credentials: Credentials;
const control = (method: string, path: string, body?: unknown) => sandboxCall(sandbox.url, TOKEN, method, path, body);

beforeAll(async () => {
	sandbox = await startSandbox({ tokens: [TOKEN], seed: 7, chats: CHATS, paceMs: 20, deliveredAfterMs: 150, readAfterMs: 300 });
	// A trailing slash, as users paste it: the node must normalise it away.
	credentials = { baseUrl: `${sandbox.url}/`, apiToken: TOKEN };
});

afterAll(async () => {
	await sandbox?.stop();
});

const chatParams = (operation: string, extra: Record<string, unknown> = {}) => ({ resource: 'chat', operation, ...extra });

async function someDirectChat(): Promise<IDataObject> {
	const { json } = await runAction(credentials, chatParams('getAll', { returnAll: false, limit: 5, filters: { group: false } }));
	return json[0];
}

describe('chats', () => {
	it('Return All walks every page of a list longer than two pages', async () => {
		const { items, json, requests } = await runAction(credentials, chatParams('getAll', { returnAll: true }));
		expect(json.length).toBeGreaterThanOrEqual(CHATS);
		expect(new Set(json.map((chat) => chat.id)).size).toBe(json.length);
		const pages = requests.filter((request) => /\/chats\?.*page=/.test(request.url));
		expect(pages.length).toBeGreaterThanOrEqual(3);
		expect(requests.every((request) => !request.url.includes('//chats'))).toBe(true);
		expect(items.every((item) => JSON.stringify(item.pairedItem) === JSON.stringify({ item: 0 }))).toBe(true);
	});

	it('Limit stops at the limit and asks only for the pages it needs', async () => {
		const { json, requests } = await runAction(credentials, chatParams('getAll', { returnAll: false, limit: 70 }));
		expect(json).toHaveLength(70);
		expect(requests).toHaveLength(2);
		const { json: defaultLimit } = await runAction(credentials, chatParams('getAll', {}));
		expect(defaultLimit).toHaveLength(50);
	});

	it('filters go out as query parameters', async () => {
		const { json, requests } = await runAction(credentials, chatParams('getAll', { returnAll: true, filters: { group: true } }));
		expect(json.length).toBeGreaterThan(0);
		expect(json.every((chat) => chat.is_group === true)).toBe(true);
		expect(requests[0].url).toContain('group=true');
	});

	it("reads a date from n8n's picker (no zone) in the workflow's time zone and sends it as UTC", async () => {
		const { requests } = await runAction(
			credentials,
			chatParams('getAll', { returnAll: false, limit: 1, filters: { created_after: '2026-01-31T10:00:00' } }),
			{ timeZone: 'Europe/Berlin' },
		);
		expect(new URL(requests[0].url).searchParams.get('created_after')).toBe('2026-01-31T09:00:00Z');
	});

	it.each([
		// A date alone: midnight in the workflow's time zone (New York, UTC-5 in January), not in UTC.
		['2026-01-31', '2026-01-31T05:00:00Z'],
		// Saved with a time and a zone: the same instant as before.
		['2026-01-31T09:00:00Z', '2026-01-31T09:00:00Z'],
		['2026-01-31T10:00:00+01:00', '2026-01-31T09:00:00Z'],
	])("reads %s in the workflow's time zone (America/New_York) as %s, in version 1 and 2", async (value, sent) => {
		for (const nodeType of [versioned.getNodeType(1), versioned.getNodeType(2)]) {
			const { requests } = await runAction(
				credentials,
				chatParams('getAll', { returnAll: false, limit: 1, filters: { created_after: value } }),
				{ timeZone: 'America/New_York', nodeType },
			);
			expect(new URL(requests[0].url).searchParams.get('created_after')).toBe(sent);
		}
	});

	it('get, update and every friendly update change the chat on the service', async () => {
		const chat = await someDirectChat();
		const id = chat.id as number;
		const get = async () => (await runAction(credentials, chatParams('get', { chat_id: String(id) }))).json[0];
		expect((await get()).id).toBe(id);

		await runAction(credentials, chatParams('update', { chat_id: id, updateFields: { name: `Updated ${id}`, read: false } }));
		expect(await get()).toMatchObject({ name: `Updated ${id}`, read: false });

		await runAction(credentials, chatParams('close', { chat_id: id }));
		expect((await get()).closed).toBe(true);
		await runAction(credentials, chatParams('reopen', { chat_id: id }));
		expect((await get()).closed).toBe(false);
		await runAction(credentials, chatParams('markRead', { chat_id: id }));
		expect((await get()).read).toBe(true);
		await runAction(credentials, chatParams('markUnread', { chat_id: id }));
		expect((await get()).read).toBe(false);

		const teammates = (await runAction(credentials, { resource: 'teammate', operation: 'getAll', returnAll: true })).json;
		expect(teammates.length).toBeGreaterThan(0);
		const email = teammates[0].email as string;
		await runAction(credentials, chatParams('assign', { chat_id: id, responsible: email }));
		expect((await get()).responsible_email).toBe(email);
		await runAction(credentials, chatParams('unassign', { chat_id: id }));
		expect((await get()).responsible_email).toBeNull();

		await runAction(credentials, chatParams('rename', { chat_id: id, name: `Renamed ${id}` }));
		expect((await get()).name).toBe(`Renamed ${id}`);
		await runAction(credentials, chatParams('setAiAutoresponse', { chat_id: id, ai_autoresponse_enabled: true }));
		expect((await get()).ai_autoresponse_enabled).toBe(true);
		await runAction(credentials, chatParams('setAiAutoresponse', { chat_id: id, ai_autoresponse_enabled: false }));
		expect((await get()).ai_autoresponse_enabled).toBe(false);
	});
});

describe('labels and notes', () => {
	it('add keeps, replace sets, remove drops exactly the named labels', async () => {
		const chat = await someDirectChat();
		const id = chat.id as number;
		const labels = async () =>
			(await runAction(credentials, { resource: 'label', operation: 'get', chat_id: id })).json[0].labels as string[];

		await runAction(credentials, { resource: 'label', operation: 'replace', chat_id: id, labels: 'alpha, beta' });
		expect([...(await labels())].sort()).toEqual(['alpha', 'beta']);
		await runAction(credentials, { resource: 'label', operation: 'add', chat_id: id, labels: 'gamma' });
		expect([...(await labels())].sort()).toEqual(['alpha', 'beta', 'gamma']);
		await runAction(credentials, { resource: 'label', operation: 'remove', chat_id: id, labels: 'beta' });
		expect([...(await labels())].sort()).toEqual(['alpha', 'gamma']);
		// A blank Replace All (an expression that evaluated to "") is refused, naming the field; the labels stay.
		await expect(runAction(credentials, { resource: 'label', operation: 'replace', chat_id: id, labels: '' })).rejects.toThrow(
			/Replace All needs at least one label/,
		);
		expect([...(await labels())].sort()).toEqual(['alpha', 'gamma']);
		// Clearing them is the explicit Remove All.
		await runAction(credentials, { resource: 'label', operation: 'removeAll', chat_id: id });
		const left = (await runAction(credentials, { resource: 'label', operation: 'get', chat_id: id })).json;
		expect(left.flatMap((item) => (item.labels as string[] | undefined) ?? [])).toEqual([]);
	});

	it('a note lands on the chat', async () => {
		const chat = await someDirectChat();
		const text = `Internal note ${Date.now()}`;
		await runAction(credentials, { resource: 'note', operation: 'add', chat_id: chat.id, text });
		const notes = (await control('GET', `/_sandbox/notes?chat_id=${String(chat.id)}`)).notes as IDataObject[];
		expect(notes.map((note) => note.text)).toContain(text);
	});
});

describe('messages and reactions', () => {
	it('sends by phone, chat, chat name and JID, then reads status, history and the chat log', async () => {
		const byPhone = (
			await runAction(credentials, { resource: 'message', operation: 'sendToPhone', phone: '+4915112345001', text: 'Hello by phone' })
		).json[0];
		expect(byPhone.message_uid).toEqual(expect.any(String));

		const chat = (await runAction(credentials, chatParams('get', { chat_id: byPhone.chat_id }))).json[0];
		const byChat = (await runAction(credentials, { resource: 'message', operation: 'sendToChat', chat_id: chat.id, text: 'Hello in chat' }))
			.json[0];
		const byName = (
			await runAction(credentials, { resource: 'message', operation: 'sendToChatName', chat_name: chat.name, text: 'Hello by name' })
		).json[0];
		const byJid = (await runAction(credentials, { resource: 'message', operation: 'sendToJid', jid: chat.jid, text: 'Hello by JID' }))
			.json[0];
		for (const sent of [byChat, byName, byJid]) expect(sent.chat_id).toBe(chat.id);

		const message = (await runAction(credentials, { resource: 'message', operation: 'get', message_uid: byChat.message_uid })).json[0];
		expect(message).toMatchObject({ uid: byChat.message_uid, text: 'Hello in chat', from_me: true });

		const history = (await runAction(credentials, { resource: 'message', operation: 'getStatusHistory', message_uid: byPhone.message_uid }))
			.json;
		expect(history[0]).toMatchObject({ status: 'queued' });

		const log = (
			await runAction(credentials, {
				resource: 'message',
				operation: 'getAll',
				chat_id: chat.id,
				returnAll: true,
				filters: { from_me: true },
			})
		).json;
		const texts = log.map((item) => item.text);
		expect(texts).toEqual(expect.arrayContaining(['Hello by phone', 'Hello in chat', 'Hello by name', 'Hello by JID']));
		expect(log.every((item) => item.from_me === true)).toBe(true);
	});

	it('sets and reads a reaction on an incoming message', async () => {
		const incoming = await control('POST', '/_sandbox/incoming', { phone: '+4915112345002', text: 'React to me' });
		const uid = (incoming.message as IDataObject).uid;
		await runAction(credentials, { resource: 'reaction', operation: 'set', uid, reaction: '👍' });
		const reactions = (await runAction(credentials, { resource: 'reaction', operation: 'get', uid })).json[0];
		expect(reactions.reactions).toEqual({ '👍': 1 });
		// An empty reaction no longer clears silently: it is refused before any request, pointing at Remove.
		const { error, requests } = await actionError(credentials, { resource: 'reaction', operation: 'set', uid });
		expect(error.message).toMatch(/Remove operation/);
		expect(requests).toHaveLength(0);
		await runAction(credentials, { resource: 'reaction', operation: 'remove', uid });
		expect((await runAction(credentials, { resource: 'reaction', operation: 'get', uid })).json[0].total).toBe(0);
	});

	it('uploads a binary attachment and sends it; the file lands in the sandbox and the message carries it', async () => {
		const bytes = Buffer.from('%PDF-1.4 chat messaging attachment test\n');
		const item = binaryItem({}, 'document', bytes, 'invoice.pdf', 'application/pdf');
		const { json } = await runAction(
			credentials,
			{
				resource: 'message',
				operation: 'sendToPhone',
				phone: '+4915112345003',
				text: 'Your invoice',
				attachment: 'binary',
				binaryPropertyName: 'document',
			},
			{ items: [item] },
		);
		const sent = json[0];
		const file = sent.file as IDataObject;
		expect(file).toMatchObject({ filename: 'invoice.pdf', size: bytes.length, mimetype: 'application/pdf' });

		const stored = (await runAction(credentials, { resource: 'file', operation: 'get', uid: file.uid })).json[0];
		const download = await fetch(String(stored.temporary_download_url));
		expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);

		const message = (await runAction(credentials, { resource: 'message', operation: 'get', message_uid: sent.message_uid })).json[0];
		expect(message).toMatchObject({ has_attachment: true, attachment_filename: 'invoice.pdf', text: 'Your invoice' });
	});

	it('waits for a status before outputting the message', async () => {
		const { json } = await runAction(credentials, {
			resource: 'message',
			operation: 'sendToPhone',
			phone: '+4915112345004',
			text: 'Wait for me',
			waitForStatus: 'delivered',
			waitTimeout: 20,
		});
		expect(json[0].status).toMatch(/^(delivered|read)$/);
		expect((json[0].message as IDataObject).uid).toBe(json[0].message_uid);
	});
});

describe('files', () => {
	it('uploads bytes, lists, reads, registers a URL and deletes', async () => {
		const bytes = Buffer.from('name,phone\nAnna,+4915112345678\n');
		const uploaded = (
			await runAction(
				credentials,
				{ resource: 'file', operation: 'upload', binaryPropertyName: 'data' },
				{ items: [binaryItem({}, 'data', bytes, 'contacts-upload.csv', 'text/csv')] },
			)
		).json[0];
		expect(uploaded).toMatchObject({ filename: 'contacts-upload.csv', size: bytes.length });

		const listed = (
			await runAction(credentials, { resource: 'file', operation: 'getAll', returnAll: true, filters: { filename: 'contacts-upload' } })
		).json;
		expect(listed.map((file) => file.uid)).toEqual([uploaded.uid]);

		const fromUrl = (
			await runAction(credentials, {
				resource: 'file',
				operation: 'uploadFromUrl',
				download_url: 'https://files.example.com/brochure.pdf',
				additionalFields: { filename: 'brochure.pdf' },
			})
		).json[0];
		expect(fromUrl.filename).toBe('brochure.pdf');

		const got = (await runAction(credentials, { resource: 'file', operation: 'get', uid: fromUrl.uid })).json[0];
		expect(got.uid).toBe(fromUrl.uid);

		const downloaded = await runAction(credentials, {
			resource: 'file',
			operation: 'download',
			uid: uploaded.uid,
			binaryPropertyName: 'file',
		});
		const binary = downloaded.items[0].binary?.file;
		expect(Buffer.from(String(binary?.data), 'base64').equals(bytes)).toBe(true);
		expect(binary).toMatchObject({ fileName: 'contacts-upload.csv', mimeType: 'text/csv' });
		expect(downloaded.json[0]).toMatchObject({ uid: uploaded.uid, filename: 'contacts-upload.csv' });
		expect(downloaded.items[0].pairedItem).toEqual({ item: 0 });

		await runAction(credentials, { resource: 'file', operation: 'delete', uid: fromUrl.uid });
		const gone = await runAction(credentials, { resource: 'file', operation: 'get', uid: fromUrl.uid }, { continueOnFail: true });
		expect(gone.json[0]).toMatchObject({ http_status: 404 });
	});
});

describe('the transport', () => {
	it('fetches a URL outside the service without the credential, and one of the service with it', async () => {
		const { context, requests } = createExecuteContext({ properties: [], credentials, parameters: {} });
		const transport = n8nTransport(context as unknown as IExecuteFunctions);
		const get = (url: string, authenticate: boolean) =>
			transport({ method: 'GET', url, headers: {}, timeoutMs: 5000, responseType: 'bytes', authenticate });
		const foreign = await get(`${sandbox.url.replace('127.0.0.1', 'localhost')}/files/none`, false);
		const own = await get(`${sandbox.url}/workspace`, true);
		expect(requests.map((request) => request.authorized)).toEqual([false, true]);
		expect(foreign.status).toBe(401);
		expect(own.status).toBe(200);
		expect(own.body).toBeInstanceOf(Uint8Array);
	});
});

describe('workspace, accounts, teammates, invitations, webhooks', () => {
	it('reads the workspace, its accounts and teammates', async () => {
		const workspace = (await runAction(credentials, { resource: 'workspace', operation: 'get' })).json[0];
		expect(workspace.messaging_quota).toEqual(expect.objectContaining({ total: expect.any(Number) }));
		const accounts = (await runAction(credentials, { resource: 'account', operation: 'getAll', returnAll: true })).json;
		expect(accounts[0].id).toMatch(/@/);
		const teammates = (await runAction(credentials, { resource: 'teammate', operation: 'getAll', returnAll: false, limit: 2 })).json;
		expect(teammates).toHaveLength(2);
	});

	it('invites and revokes a teammate', async () => {
		const invited = (
			await runAction(credentials, {
				resource: 'invitation',
				operation: 'create',
				email: 'new.agent@example.com',
				additionalFields: { role: 'agent' },
			})
		).json[0];
		expect(invited).toMatchObject({ email: 'new.agent@example.com', role: 'agent', status: 'invited' });
		await runAction(credentials, { resource: 'invitation', operation: 'revoke', user_id: String(invited.user_id) });
		const teammates = (await runAction(credentials, { resource: 'teammate', operation: 'getAll', returnAll: true })).json;
		expect(teammates.map((mate) => mate.email)).not.toContain('new.agent@example.com');
	});

	it('creates, lists, reads, updates and deletes a webhook subscription', async () => {
		const created = (
			await runAction(credentials, {
				resource: 'webhook',
				operation: 'create',
				event_type: 'chat:created',
				url: 'https://hooks.example.com/in',
			})
		).json[0];
		expect(created).toMatchObject({ event_type: 'chat:created', enabled: true });
		const listed = (await runAction(credentials, { resource: 'webhook', operation: 'getAll', returnAll: true })).json;
		expect(listed.map((hook) => hook.id)).toContain(created.id);
		await runAction(credentials, { resource: 'webhook', operation: 'update', id: created.id, updateFields: { enabled: false } });
		expect((await runAction(credentials, { resource: 'webhook', operation: 'get', id: created.id })).json[0].enabled).toBe(false);
		await runAction(credentials, { resource: 'webhook', operation: 'delete', id: created.id });
		const after = (await runAction(credentials, { resource: 'webhook', operation: 'getAll', returnAll: true })).json;
		expect(after.map((hook) => hook.id)).not.toContain(created.id);
	});
});

describe('items in parallel', () => {
	// Answers take 150 ms here, longer than the pacer's spacing (37 ms): items that run in parallel overlap.
	let slow: RunningSandbox;
	let slowCredentials: Credentials;
	beforeAll(async () => {
		slow = await startSandbox({ tokens: [TOKEN], seed: 8, chats: 3, paceMs: 20, latencyMs: 150 });
		slowCredentials = { baseUrl: slow.url, apiToken: TOKEN };
	});
	afterAll(() => slow.stop());

	it('sends 12 items several at a time, outputs them in input order with exact pairing, each once', async () => {
		const credentials = slowCredentials;
		const sandbox = slow;
		const phones = Array.from({ length: 12 }, (_, i) => `+49151777${String(i).padStart(4, '0')}`);
		const { items, requests } = await runAction(
			credentials,
			(itemIndex) => ({
				resource: 'message',
				operation: 'sendToPhone',
				phone: phones[itemIndex],
				text: `parallel ${itemIndex}`,
				additionalFields: {},
			}),
			{ items: phones.map(() => ({ json: {} })) },
		);
		expect(items.map((item) => item.pairedItem)).toEqual(phones.map((_, item) => ({ item })));
		for (const [index, item] of items.entries()) {
			const message = await sandboxCall(sandbox.url, TOKEN, 'GET', `/messages/${String(item.json.message_uid)}`);
			expect(message.text).toBe(`parallel ${index}`);
		}
		const posts = requests.filter((request) => request.method === 'POST');
		expect(posts).toHaveLength(12);
		// Requests overlapped: some started before an earlier one had its answer.
		const overlapping = posts.filter((request, index) =>
			posts.slice(0, index).some((earlier) => (earlier.ended ?? 0) > (request.started ?? 0)),
		);
		expect(overlapping.length).toBeGreaterThan(0);
	});

	it('with Continue On Fail a bad item in the middle becomes its error item in place; the others are sent', async () => {
		const phones = ['+4915177710001', '+49 151 bad', '+4915177710003', '+4915177710004'];
		const { items } = await runAction(
			credentials,
			(itemIndex) => ({ resource: 'message', operation: 'sendToPhone', phone: phones[itemIndex], text: 'mixed', additionalFields: {} }),
			{ items: phones.map(() => ({ json: {} })), continueOnFail: true },
		);
		expect(items.map((item) => [item.pairedItem, typeof item.json.message_uid === 'string', item.json.field ?? null])).toEqual([
			[{ item: 0 }, true, null],
			[{ item: 1 }, false, 'phone'],
			[{ item: 2 }, true, null],
			[{ item: 3 }, true, null],
		]);
	});

	it('without Continue On Fail the first failing item (in item order) fails the execution', async () => {
		const phones = ['+4915177720001', '+49 151 bad', '+49 152 bad', '+4915177720004'];
		const { error } = await actionError(
			credentials,
			(itemIndex) => ({ resource: 'message', operation: 'sendToPhone', phone: phones[itemIndex], text: 'x', additionalFields: {} }),
			{ items: phones.map(() => ({ json: {} })) },
		);
		expect(error.message).toMatch(/^Phone Number: Invalid phone number format.*"\+49 151 bad"/);
		expect((error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(1);
	});
});

describe('errors', () => {
	it('Continue On Fail turns a failed item into an error item and keeps going', async () => {
		const chat = await someDirectChat();
		const { items } = await runAction(
			credentials,
			(itemIndex) =>
				chatParams('assign', { chat_id: chat.id, responsible: itemIndex === 0 ? 'nobody@nowhere.example' : 'also.nobody@nowhere.example' }),
			{ items: [{ json: {} }, { json: {} }], continueOnFail: true },
		);
		expect(items).toHaveLength(2);
		items.forEach((item, index) => {
			expect(item.pairedItem).toEqual({ item: index });
			expect(item.json).toMatchObject({
				error: expect.stringContaining('No team member'),
				error_code: 'member_not_found',
				http_status: expect.any(Number),
			});
		});

		const mixed = await runAction(credentials, (itemIndex) => chatParams('get', { chat_id: itemIndex === 0 ? chat.id : 999999999 }), {
			items: [{ json: {} }, { json: {} }],
			continueOnFail: true,
		});
		expect(mixed.items[0].json.id).toBe(chat.id);
		expect(mixed.items[1]).toEqual({
			json: expect.objectContaining({ error: 'chat_id 999999999: not found (Chat not found)', http_status: 404, kind: 'service' }),
			pairedItem: { item: 1 },
		});
	});

	it('under "Continue (using error output)" an error item holds only error and details, which n8n routes to the error output', async () => {
		const { items } = await runAction(credentials, chatParams('get', { chat_id: 999999999 }), {
			continueOnFail: true,
			onError: 'continueErrorOutput',
		});
		// WorkflowExecute.handleNodeErrorOutput moves an item whose JSON keys are all in [error, message, details].
		expect(items).toHaveLength(1);
		expect(Object.keys(items[0].json).sort()).toEqual(['details', 'error']);
		expect(items[0]).toMatchObject({
			json: {
				error: 'chat_id 999999999: not found (Chat not found)',
				details: { kind: 'service', http_status: 404, operation: 'chat:get' },
			},
			pairedItem: { item: 0 },
		});
	});

	it('a send whose answer was lost says so in its error item, so a workflow can look it up before sending again', () => {
		const lost = new ChatMessagingError('Bad gateway. It may have taken effect: check before repeating it', {
			kind: 'service',
			httpStatus: 502,
			operation: 'message:sendToPhone',
			mayHaveTakenEffect: true,
		});
		expect(errorItemJson(lost)).toEqual({
			error: lost.message,
			kind: 'service',
			http_status: 502,
			operation: 'message:sendToPhone',
			may_have_taken_effect: true,
		});
	});

	it('without Continue On Fail a service error is a NodeApiError with the status and the service message', async () => {
		const { error } = await actionError(credentials, chatParams('get', { chat_id: 999999999 }));
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe('chat_id 999999999: not found (Chat not found)');
		expect(error.httpCode).toBe('404');
		expect(error.description).toContain('HTTP 404');
	});

	it('a rejected token is reported as 401 without ever showing the token', async () => {
		const wrong = { ...credentials, apiToken: 'wrong-token-that-must-not-leak-42' };
		const { error } = await actionError(wrong, { resource: 'workspace', operation: 'get' });
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.httpCode).toBe('401');
		expect(JSON.stringify({ message: error.message, description: error.description })).not.toContain('wrong-token-that-must-not-leak-42');
		const item = (await runAction(wrong, { resource: 'workspace', operation: 'get' }, { continueOnFail: true })).json[0];
		expect(item.http_status).toBe(401);
		expect(JSON.stringify(item)).not.toContain('wrong-token-that-must-not-leak-42');
	});

	it('an unreachable service is a network error that names the address', async () => {
		const { error } = await actionError({ baseUrl: 'http://127.0.0.1:9', apiToken: TOKEN }, { resource: 'workspace', operation: 'get' });
		expect(error).toBeInstanceOf(NodeApiError);
		// n8n words connection errors itself; the description keeps the address and the code.
		expect(error.message).toMatch(/refused the connection|Could not reach the service/);
		expect(error.description).toContain('ECONNREFUSED');
		expect(error.description).toContain('http://127.0.0.1:9');
	});

	it.each([
		[
			'a badly formatted phone',
			{ resource: 'message', operation: 'sendToPhone', phone: '0151 1234 567', text: 'x' },
			'phone',
			'Phone Number',
		],
		['a missing chat id', chatParams('get', { chat_id: '' }), 'chat_id', 'Chat ID'],
		['a chat id that is not a number', chatParams('close', { chat_id: 'abc' }), 'chat_id', 'Chat ID'],
		[
			'a message without text or file',
			{ resource: 'message', operation: 'sendToChat', chat_id: 1, text: '' },
			'text or file_uid',
			'Text or File UID',
		],
		['a limit below 1', chatParams('getAll', { returnAll: false, limit: 0 }), 'limit', 'Limit'],
		['an empty label list', { resource: 'label', operation: 'remove', chat_id: 1, labels: ' , ' }, 'labels', 'Labels'],
		[
			'a missing binary property',
			{ resource: 'file', operation: 'upload', binaryPropertyName: 'nothing' },
			'binaryPropertyName',
			'Input Binary Field',
		],
		[
			'a missing attachment URL',
			{ resource: 'message', operation: 'sendToChat', chat_id: 1, text: 'x', attachment: 'url' },
			'attachmentUrl',
			'Attachment URL',
		],
		[
			'a wait timeout of zero',
			{ resource: 'message', operation: 'sendToChat', chat_id: 1, text: 'x', waitForStatus: 'sent', waitTimeout: 0 },
			'waitTimeout',
			'Wait Timeout (Seconds)',
		],
		[
			'an invalid invitation role',
			{ resource: 'invitation', operation: 'create', email: 'a@b.example', additionalFields: { role: 'boss' } },
			'role',
			'Role',
		],
		['a bad base URL', { resource: 'workspace', operation: 'get', __baseUrl: 'api.example.com' }, 'baseUrl', 'Base URL'],
	])('%s is rejected naming the field, before any request', async (_, parameters, field, label) => {
		const { __baseUrl, ...rest } = parameters as Record<string, unknown>;
		const creds = __baseUrl ? { ...credentials, baseUrl: String(__baseUrl) } : credentials;
		const { error, requests } = await actionError(creds, rest);
		expect(error).toBeInstanceOf(NodeOperationError);
		// Named as the editor labels it; the error item keeps the parameter's name for expressions.
		expect(error.message.startsWith(`${label}:`)).toBe(true);
		expect(requests).toHaveLength(0);
		const item = (await runAction(creds, rest, { continueOnFail: true })).json[0];
		expect(item).toMatchObject({ field, kind: 'input' });
	});
});

describe('a sandbox whose messages only move when told to', () => {
	let still: RunningSandbox;
	beforeAll(async () => {
		still = await startSandbox({ tokens: [TOKEN], seed: 3, chats: 3, paceMs: 20, deliveredAfterMs: 0, readAfterMs: 0 });
	});
	afterAll(async () => {
		await still?.stop();
	});

	it('a wait that runs out of time fails, or becomes an error item with Continue On Fail', async () => {
		const creds = { baseUrl: still.url, apiToken: TOKEN };
		const parameters = {
			resource: 'message',
			operation: 'sendToPhone',
			phone: '+4915112345005',
			text: 'Never delivered',
			waitForStatus: 'delivered',
			waitTimeout: 1.5,
		};
		const { error } = await actionError(creds, parameters);
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/did not reach "delivered"/);
		const item = (await runAction(creds, parameters, { continueOnFail: true })).json[0];
		expect(item).toMatchObject({ kind: 'timeout' });
	});
});

describe('coverage', () => {
	it('every operation of the catalogue ran against the sandbox', () => {
		const missing = OPERATIONS.map(operationId).filter((id) => !coveredOperations.has(id));
		expect(missing).toEqual([]);
	});
});
