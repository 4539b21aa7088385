/**
 * The editors' pick lists, tri-state filters and the one Send, against the sandbox over real HTTP:
 * each list is what the workspace holds, chats come one service page at a time, "Any" sends no filter.
 */
import {
	CHAT_URL_EXAMPLE,
	chatIdFromUrl,
	Executor,
	findOperation,
	lookup,
	OPERATIONS,
	SEND_TARGETS,
	sendFields,
	sendOperation,
	TRI_STATE_ANY,
	type TransportRequest,
} from '../src';
import { startSandbox } from '@chat-messaging/sandbox';
import { fetchTransport, realTiming } from '../../../test/support/fetch-transport';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;
type Json = Record<string, any>;

describe('pick lists against the sandbox', () => {
	let sandbox: Sandbox;
	let executor: Executor;
	const requests: TransportRequest[] = [];
	beforeAll(async () => {
		sandbox = await startSandbox({ paceMs: 20, seed: 5, chats: 120, tokens: ['lookup-token'] });
		executor = new Executor({
			baseUrl: sandbox.url,
			timing: realTiming,
			token: sandbox.tokens[0],
			transport: (request) => {
				requests.push(request);
				return fetchTransport(request);
			},
		});
	});
	afterAll(() => sandbox.stop());
	beforeEach(() => (requests.length = 0));

	const pathsAsked = () => requests.map((request) => new URL(request.url).pathname + new URL(request.url).search);

	it('lists chats one service page at a time, each with its id and web-app URL', async () => {
		const first = await lookup(executor, 'chat', '');
		expect(first.results).toHaveLength(50);
		expect(first.nextPageToken).toBe('2');
		expect(pathsAsked()).toEqual(['/chats?page=1']);
		const all = (await executor.run('chat:getAll', {}, { returnAll: true })) as Json[];
		expect(first.results.map((result) => result.value)).toEqual(all.slice(0, 50).map((chat) => String(chat.id)));
		for (const result of first.results) expect(chatIdFromUrl(result.url!)).toBe(result.value);

		const third = await lookup(executor, 'chat', '', '3');
		expect(third.results.map((result) => result.value)).toEqual(all.slice(100).map((chat) => String(chat.id)));
		expect(third.nextPageToken).toBeUndefined();
	});

	it('searches chats by name, or by phone when the search is digits', async () => {
		const all = (await executor.run('chat:getAll', { group: false }, { returnAll: true })) as Json[];
		const target = all[7];
		const byName = await lookup(executor, 'chat', String(target.name).toUpperCase());
		expect(byName.results.map((result) => result.value)).toContain(String(target.id));
		expect(new URL(requests.at(-1)!.url).searchParams.get('name')).toBe(String(target.name).toUpperCase());

		const byPhone = await lookup(executor, 'chat', target.phone);
		expect(byPhone.results.map((result) => result.value)).toEqual([String(target.id)]);
		expect(new URL(requests.at(-1)!.url).searchParams.get('phone')).toBe(target.phone);

		const none = await lookup(executor, 'chat', 'no chat is called this');
		expect(none.results).toEqual([]);
		expect(none.nextPageToken).toBeUndefined();
	});

	it('lists teammates by email, accounts by wid, pending invitations by user id', async () => {
		const mates = (await executor.run('teammate:getAll')) as Json[];
		const accounts = (await executor.run('account:getAll')) as Json[];
		const teammates = await lookup(executor, 'teammate');
		expect(teammates.results.map((result) => result.value).sort()).toEqual(
			mates
				.filter((mate) => mate.status !== 'invited')
				.map((mate) => mate.email)
				.sort(),
		);
		expect((await lookup(executor, 'account')).results.map((result) => result.value)).toEqual(accounts.map((account) => account.id));

		const invited = (await executor.run('invitation:create', { email: 'picker@example.com', role: 'agent' })) as Json;
		const invitations = await lookup(executor, 'invitation', 'picker@');
		expect(invitations.results.map((result) => result.value)).toEqual([String(invited.user_id)]);
		expect((await lookup(executor, 'teammate', 'picker@')).results).toEqual([]);
	});

	it('lists webhooks and files, and the labels chats carry', async () => {
		const hook = (await executor.run('webhook:create', { event_type: 'chat:created', url: 'https://example.com/hook-a' })) as Json;
		const webhooks = await lookup(executor, 'webhook', 'hook-a');
		expect(webhooks.results).toEqual([
			expect.objectContaining({ value: String(hook.id), name: 'chat:created → https://example.com/hook-a' }),
		]);
		// A receiver's secret (the trigger's ?secret=, a long path token) is neither shown nor searchable.
		const secret = 'q7Vx2Lm9Rt4Wz8Kp3Nd6';
		const guarded = (await executor.run('webhook:create', {
			event_type: 'message:received:new',
			url: `https://example.com/hook-b/${secret}?secret=${secret}`,
		})) as Json;
		const listed = await lookup(executor, 'webhook', 'hook-b');
		expect(listed.results).toEqual([
			expect.objectContaining({ value: String(guarded.id), name: 'message:received:new → https://example.com/hook-b/…?…' }),
		]);
		expect(JSON.stringify(listed)).not.toContain(secret);
		expect((await lookup(executor, 'webhook', secret.slice(0, 8))).results).toEqual([]);

		const file = (await executor.run('file:upload', {
			file: { data: new TextEncoder().encode('hi'), filename: 'price-list.txt', mimeType: 'text/plain' },
		})) as Json;
		const files = await lookup(executor, 'file', 'PRICE');
		expect(files.results).toEqual([expect.objectContaining({ value: file.uid, name: 'price-list.txt' })]);

		const chats = (await executor.run('chat:getAll', {}, { returnAll: true })) as Json[];
		const inUse = [...new Set(chats.flatMap((chat) => chat.labels as string[]))].sort((a, b) => a.localeCompare(b));
		expect(inUse.length).toBeGreaterThan(0);
		expect((await lookup(executor, 'label')).results.map((result) => result.value)).toEqual(inUse);
	});

	it('an "Any" tri-state filter sends no filter; the others send true or false', async () => {
		await executor.run('chat:getAll', { closed: TRI_STATE_ANY, read: 'true', group: 'false', page: 1 });
		const query = new URL(requests.at(-1)!.url).searchParams;
		expect(query.has('closed')).toBe(false);
		expect(query.get('read')).toBe('true');
		expect(query.get('group')).toBe('false');
	});
});

describe('catalogue data for the editors', () => {
	it('every boolean query filter is tri-state, with both labels', () => {
		for (const op of OPERATIONS) {
			for (const field of op.fields.filter((candidate) => candidate.kind === 'boolean' && candidate.in === 'query')) {
				expect([op.operation, field.name, field.triState?.true, field.triState?.false].every(Boolean)).toBe(true);
			}
		}
		expect(findOperation('chat:getAll').fields.find((field) => field.name === 'closed')?.triState).toEqual({
			true: 'Closed',
			false: 'Open',
		});
	});

	it('every id a user would copy names the list it is picked from', () => {
		const pickers = Object.fromEntries(
			OPERATIONS.flatMap((op) => op.fields.map((field) => [`${op.resource}:${op.operation}.${field.name}`, field.picker])),
		);
		expect(pickers['chat:get.chat_id']).toBe('chat');
		expect(pickers['chat:assign.responsible']).toBe('teammate');
		expect(pickers['message:sendToPhone.chatapp_account_id']).toBe('account');
		expect(pickers['webhook:delete.id']).toBe('webhook');
		expect(pickers['file:download.uid']).toBe('file');
		expect(pickers['invitation:revoke.user_id']).toBe('invitation');
		expect(pickers['chat:getAll.label']).toBe('label');
	});

	it('descriptions users read name no HTTP verb', () => {
		for (const op of OPERATIONS) {
			for (const text of [op.description, ...op.fields.map((field) => field.description)]) {
				expect(`${op.resource}:${op.operation}: ${text}`).not.toMatch(/\b(GET|PUT|POST|PATCH|DELETE)\b|multipart/);
			}
		}
	});

	it('a chat URL gives its chat id; anything else gives none', () => {
		expect(chatIdFromUrl(CHAT_URL_EXAMPLE)).toBe('42');
		expect(chatIdFromUrl('https://app.chat-messaging.example/chats/1000017?tab=notes')).toBe('1000017');
		expect(chatIdFromUrl('https://app.example.org/w/acme/chats/7/')).toBe('7');
		expect(chatIdFromUrl('https://app.chat-messaging.example/files/42')).toBeUndefined();
		expect(chatIdFromUrl('42')).toBeUndefined();
	});

	it('Send To maps each choice onto its send and shows each field once, addressing first', () => {
		expect(SEND_TARGETS.map((target) => [target.name, sendOperation(target.value).operation])).toEqual([
			['Phone Number', 'sendToPhone'],
			['Chat', 'sendToChat'],
			['Chat Name', 'sendToChatName'],
			['JID', 'sendToJid'],
		]);
		const fields = sendFields().map(({ field, sendTo }) => [field.displayName, sendTo.join(',')]);
		expect(fields.slice(0, 4)).toEqual([
			['Phone Number', 'phone'],
			['Chat ID', 'chat'],
			['Chat Name', 'chatName'],
			['JID', 'jid'],
		]);
		expect(fields).toContainEqual(['Text', 'phone,chat,chatName,jid']);
		expect(fields).toContainEqual(['New Chat Name', 'phone']);
		expect(fields).toContainEqual(['Reply To', 'chat,jid']);
	});
});
