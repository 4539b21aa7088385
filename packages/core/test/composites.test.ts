/**
 * Composite operations: descriptors in the catalogue beside the endpoints, and their one handler run
 * through `Executor.run(id, input)` against the sandbox over real HTTP.
 */
import {
	ALL_COMPOSITES,
	CATALOGUE,
	COMPOSITES,
	DEFAULT_REPLY_TIMEOUT_S,
	DEFAULT_WAIT_TIMEOUT_S,
	Executor,
	findOperation,
	isComposite,
	OPERATIONS,
	operationId,
	type ChatMessagingError,
	type TransportRequest,
} from '../src';
import { startSandbox } from '@chat-messaging/sandbox';
import { fetchTransport, realTiming } from '../../../test/support/fetch-transport';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

describe('the catalogue lists composites beside the endpoints', () => {
	it('every endpoint once, then each composite, told apart by kind', () => {
		expect(CATALOGUE.filter((op) => !isComposite(op))).toEqual([...OPERATIONS]);
		expect(CATALOGUE.filter(isComposite).map(operationId)).toEqual([
			'message:send',
			'message:sendAndWaitForReply',
			'message:getConversation',
		]);
		const ids = CATALOGUE.map(operationId);
		expect(new Set(ids).size).toBe(ids.length);
	});

	it("each composite's variants run existing sends, its default is one of them, its options carry the core's defaults", () => {
		for (const composite of COMPOSITES) {
			const { variants } = composite;
			if (!variants) {
				// One way only: a read (Get Conversation), its fields its own.
				expect(composite.effect).toBe('read');
				continue;
			}
			expect(composite.effect).toBe('create');
			for (const variant of variants.options) expect(findOperation(variant.operation).sendsMessage).toBe(true);
			expect(variants.options.map((variant) => variant.value)).toContain(variants.default);
			for (const { field, variants: usedBy } of composite.fields) {
				for (const value of usedBy) {
					const op = findOperation(variants.options.find((variant) => variant.value === value)!.operation);
					expect(op.fields.map((candidate) => candidate.name)).toContain(field.name);
				}
			}
		}
		const option = (id: string, name: string) => COMPOSITES.find((c) => operationId(c) === id)!.options.find((o) => o.name === name);
		expect(option('message:send', 'waitTimeout')?.default).toBe(DEFAULT_WAIT_TIMEOUT_S);
		expect(option('message:sendAndWaitForReply', 'replyTimeout')?.default).toBe(DEFAULT_REPLY_TIMEOUT_S);
	});
});

describe('composites run through Executor.run against the sandbox', () => {
	let sandbox: Sandbox;
	let executor: Executor;
	const requests: TransportRequest[] = [];
	let chat: Record<string, any>;
	const control = async (path: string, body: unknown) =>
		fetch(`${sandbox.url}/_sandbox${path}`, {
			method: 'POST',
			headers: { authorization: `Bearer ${sandbox.tokens[0]}`, 'content-type': 'application/json' },
			body: JSON.stringify(body),
		});

	beforeAll(async () => {
		sandbox = await startSandbox({
			paceMs: 20,
			deliveredAfterMs: 40,
			readAfterMs: 80,
			webhookRetryMs: 20,
			seed: 5,
			tokens: ['composite-token'],
		});
		executor = new Executor({
			baseUrl: sandbox.url,
			timing: realTiming,
			token: sandbox.tokens[0],
			transport: (request) => {
				requests.push(request);
				return fetchTransport(request);
			},
		});
		const chats = (await executor.run('chat:getAll', { group: false })) as Array<Record<string, any>>;
		chat = chats.find((candidate) => candidate.is_allowed_to_message !== false)!;
	});
	afterAll(() => sandbox.stop());
	beforeEach(() => (requests.length = 0));

	it('message:send sends by its Send To choice and waits for the status asked', async () => {
		const sent = (await executor.run('message:send', {
			sendTo: 'chat',
			chat_id: chat.id,
			text: 'composite send',
			waitForStatus: 'delivered',
		})) as Record<string, any>;
		expect(sent.message_uid).toEqual(expect.any(String));
		expect(['delivered', 'read']).toContain(sent.message.status);
		expect(requests.filter((request) => request.method === 'POST').map((request) => new URL(request.url).pathname)).toEqual([
			`/chats/${chat.id}/messages`,
		]);
	});

	it('message:send with Send To left out sends to a phone number, with an attachment URL registered first', async () => {
		const sent = (await executor.run('message:send', {
			phone: String(chat.phone),
			text: 'with a file',
			attachment: 'https://example.com/menu.pdf',
		})) as Record<string, any>;
		expect(sent.file.uid).toEqual(expect.any(String));
		expect(requests.filter((request) => request.method === 'POST').map((request) => new URL(request.url).pathname)).toEqual([
			'/files',
			'/messages',
		]);
	});

	it.each([
		[{ sendTo: 'pigeon', phone: '4915112345678', text: 'x' }, /^Send To: must be one of phone, chat, chatName, jid, got "pigeon"/],
		[{ sendTo: 'chat', chat_id: 1, text: 'x', waitForStatus: 'soon' }, /^Wait for Status: must be none, sent, delivered or read/],
		[{ sendTo: 'chat', chat_id: 1, text: 'x', waitForStatus: 'sent', waitTimeout: 0 }, /^Wait Timeout \(Seconds\): /],
		[{ sendTo: 'chat', chat_id: 1, text: 'x', attachment: 'ftp://example.com/a' }, /^Attachment: must be an http\(s\) URL/],
	])('message:send refuses %j before any request', async (input, message) => {
		const error = (await executor.run('message:send', input).catch((caught: unknown) => caught)) as ChatMessagingError;
		expect(error.message).toMatch(message);
		expect(error.kind).toBe('input');
		expect(requests).toEqual([]);
	});

	it('message:sendAndWaitForReply returns the reply that comes after the send', async () => {
		const result = (await executor.run(
			'message:sendAndWaitForReply',
			{ sendTo: 'chat', chat_id: chat.id, text: 'Shall we deliver tomorrow?', replyTimeout: 30, pollInterval: 1 },
			{ onSent: () => void control('/incoming', { chat_id: chat.id, text: 'Yes please' }) },
		)) as Record<string, any>;
		expect(result).toMatchObject({ chat_id: chat.id, replied: true, reply: { event_type: 'message:received:new', text: 'Yes please' } });
	});

	it("message:sendAndWaitForReply sends as Send does, by any Send To, with an attachment and Wait for Status, then takes the chat's reply", async () => {
		for (const [sendTo, address] of [
			['jid', { jid: chat.jid }],
			['chatName', { chat_name: chat.name }],
		] as const) {
			requests.length = 0;
			const result = (await executor.run(
				'message:sendAndWaitForReply',
				{ sendTo, ...address, attachment: 'https://example.com/menu.pdf', waitForStatus: 'sent', replyTimeout: 30, pollInterval: 1 },
				{ onSent: () => void control('/incoming', { chat_id: chat.id, text: `answer by ${sendTo}` }) },
			)) as Record<string, any>;
			expect(result).toMatchObject({ chat_id: chat.id, replied: true, reply: { text: `answer by ${sendTo}` } });
			// A file alone (no text) is a message too; it was registered first, and the status waited for.
			expect(result.file.uid).toEqual(expect.any(String));
			expect(['sent', 'delivered', 'read']).toContain(result.message.status);
			const posts = requests.filter((request) => request.method === 'POST').map((request) => new URL(request.url).pathname);
			expect(posts).toEqual(['/files', expect.stringMatching(/^\/messages/)]);
		}
	});

	it('message:sendAndWaitForReply without a reply ends with replied: false when the time-out passes', async () => {
		const result = (await executor.run('message:sendAndWaitForReply', {
			sendTo: 'chat',
			chat_id: chat.id,
			text: 'Nobody answers this',
			replyTimeout: 1,
			pollInterval: 1,
		})) as Record<string, any>;
		expect(result).toMatchObject({ chat_id: chat.id, replied: false, reply: null, timed_out: true });
	});

	it.each([
		[{ sendTo: 'chat', chat_id: 'abc', text: 'x' }, /^Chat ID: /],
		[{ sendTo: 'chat', chat_id: 1, text: '  ' }, /^Message: is required/],
		[{ sendTo: 'phone', phone: '+49 151 234', text: 'x' }, /^Phone Number: /],
		[{ sendTo: 'chat', chat_id: 1, text: 'x', replyTimeout: -1 }, /^Reply Time-Out \(Seconds\): /],
		[{ sendTo: 'jid', jid: 'no-server', text: 'x' }, /^JID: /],
		[{ sendTo: 'chat', chat_id: 1, text: 'x', waitForStatus: 'soon' }, /^Wait for Status: /],
		[{ sendTo: 'chat', chat_id: 1, attachment: 'ftp://example.com/a' }, /^Attachment: /],
	])('message:sendAndWaitForReply refuses %j before any request', async (input, message) => {
		const error = (await executor.run('message:sendAndWaitForReply', input).catch((caught: unknown) => caught)) as Error;
		expect(error.message).toMatch(message);
		expect(requests).toEqual([]);
	});
});

test('every composite has its handler, registered on its descriptor: a run reaches its input checks', async () => {
	const executor = new Executor({
		baseUrl: 'http://127.0.0.1:9',
		token: 'unused',
		transport: () => Promise.reject(new Error('no request was expected')),
		timing: { sleep: () => Promise.resolve(), now: () => 0, random: () => 0 },
	});
	for (const composite of ALL_COMPOSITES) {
		await expect(executor.run(composite, {})).rejects.toMatchObject({ kind: 'input' });
	}
});
