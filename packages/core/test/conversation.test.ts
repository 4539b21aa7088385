/**
 * Get Conversation (message:getConversation) against the sandbox over real HTTP: the roles, the window by count
 * and by time, paging and what it costs in requests, group members, the messages a turn answers left out, and
 * a chat that cannot be read failing by name. Where the spec leaves the service's answer open (the origin of a
 * message, its timestamp format, an empty list as 404, a service that ignores the time filter), both readings.
 */
import {
	conversationChatMessages,
	Executor,
	isComposite,
	CATALOGUE,
	operationId,
	outputSchemaOf,
	compositeToolDescription,
	CONVERSATION_COMPOSITE,
	type ChatMessagingError,
	type Conversation,
	type Transport,
	type TransportRequest,
} from '../src';
import { startSandbox } from '@chat-messaging/sandbox';
import { fetchTransport, realTiming } from '../../../test/support/fetch-transport';

type Rewrite = (message: Record<string, unknown>) => Record<string, unknown>;

const TOKEN = 'conversation-token';

/** The messages of a list answer rewritten as another reading of the spec would send them. */
const rewriting =
	(rewrite: Rewrite): Transport =>
	async (request) => {
		const response = await fetchTransport(request);
		const body = response.body as { data?: { messages?: Array<Record<string, unknown>> } } | undefined;
		if (request.method === 'GET' && Array.isArray(body?.data?.messages)) body.data.messages = body.data.messages.map(rewrite);
		return response;
	};

async function setUp(options: Parameters<typeof startSandbox>[0] = {}) {
	const sandbox = await startSandbox({ paceMs: 5, deliveredAfterMs: 20, readAfterMs: 40, seed: 11, tokens: [TOKEN], ...options });
	const requests: TransportRequest[] = [];
	let transport: Transport = fetchTransport;
	const executor = new Executor({
		baseUrl: sandbox.url,
		timing: realTiming,
		token: TOKEN,
		transport: (request) => {
			requests.push(request);
			return transport(request);
		},
	});
	const control = async (path: string, body: unknown): Promise<Record<string, any>> => {
		const response = await fetch(`${sandbox.url}/_sandbox${path}`, {
			method: 'POST',
			headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
			body: JSON.stringify(body),
		});
		if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
		const answer = (await response.json()) as Record<string, any>;
		return answer.data ?? answer;
	};
	const chats = (await executor.run('chat:getAll', {})) as Array<Record<string, any>>;
	return {
		sandbox,
		executor,
		requests,
		control,
		chats,
		useTransport: (next: Transport) => (transport = next),
		conversation: async (input: Record<string, unknown>) => {
			requests.length = 0;
			return (await executor.run('message:getConversation', input)) as Conversation;
		},
	};
}

type World = Awaited<ReturnType<typeof setUp>>;

describe('the catalogue lists Get Conversation as a read composite', () => {
	it('is in the catalogue, reads only, and describes its result for tools', () => {
		expect(CATALOGUE.filter(isComposite).map(operationId)).toContain('message:getConversation');
		expect(CONVERSATION_COMPOSITE.effect).toBe('read');
		expect(CONVERSATION_COMPOSITE.variants).toBeUndefined();
		const schema = outputSchemaOf(CONVERSATION_COMPOSITE) as Record<string, any>;
		expect(schema.required).toEqual(expect.arrayContaining(['chat_id', 'messages']));
		const description = compositeToolDescription(CONVERSATION_COMPOSITE);
		expect(description).toContain('Required: chat_id');
		expect(description).toContain('lastMessages');
		expect(description).not.toContain('where the message goes');
	});
});

describe('Get Conversation against the sandbox', () => {
	let world: World;
	let direct: Record<string, any>;
	let group: Record<string, any>;
	/** The uids of the turn's new messages in `direct`, oldest first. */
	const fresh: string[] = [];

	beforeAll(async () => {
		world = await setUp();
		const allowed = world.chats.filter((chat) => chat.is_allowed_to_message !== false);
		direct = allowed.find((chat) => chat.is_group === false)!;
		group = allowed.find((chat) => chat.is_group === true && (chat.group_members?.length ?? 0) >= 2)!;
		expect(direct && group).toBeTruthy();
		const { control, executor } = world;
		fresh.push((await control('/incoming', { chat_id: direct.id, text: 'Hello, where is my order?' })).message.uid);
		const sent = (await executor.run('message:sendToChat', { chat_id: direct.id, text: 'Let me check that for you.' })) as Record<
			string,
			any
		>;
		fresh.push(sent.message_uid);
		fresh.push((await control('/teammate-message', { chat_id: direct.id, text: 'Anna here, it ships today.' })).message.uid);
		const file = (await executor.run('file:upload', {
			file: { data: new TextEncoder().encode('%PDF-1.4 receipt'), filename: 'receipt.pdf', mimeType: 'application/pdf' },
		})) as Record<string, any>;
		fresh.push((await control('/incoming', { chat_id: direct.id, text: 'Here is my receipt', file_uid: file.uid })).message.uid);
	});
	afterAll(() => world.sandbox.stop());

	it('gives each message its role, oldest first: the customer, the workspace (through the API), a teammate by name', async () => {
		const conversation = await world.conversation({ chat_id: direct.id, lastMessages: 4 });
		expect(conversation.messages.map((message) => message.message_uid)).toEqual(fresh);
		expect(conversation.messages.map((message) => message.role)).toEqual(['customer', 'workspace', 'teammate', 'customer']);
		expect(conversation.messages.map((message) => message.text)).toEqual([
			'Hello, where is my order?',
			'Let me check that for you.',
			'Anna here, it ships today.',
			'Here is my receipt',
		]);
		// The chat and one page of messages, asked at once.
		expect(world.requests.map((request) => `${request.method} ${new URL(request.url).pathname}`).sort()).toEqual([
			`GET /chats/${direct.id}`,
			`GET /chats/${direct.id}/messages`,
		]);
		const teammates = (await world.executor.run('teammate:getAll', {})) as Array<Record<string, any>>;
		expect(teammates.map((teammate) => teammate.display_name)).toContain(conversation.messages[2].sender_name);
		expect(conversation.messages[3].attachment).toEqual({ filename: 'receipt.pdf', type: 'document' });
		expect(conversation.messages[0].attachment).toBeNull();
		// The file is described, never linked: no download URL anywhere in the conversation.
		expect(JSON.stringify(conversation)).not.toMatch(/download|https?:/);
		expect(conversation).toMatchObject({ chat_id: direct.id, chat_name: direct.name, is_group: false, members: [] });
		for (const message of conversation.messages) expect(new Date(message.timestamp!).toISOString()).toBe(message.timestamp);
	});

	it('renders the same model as OpenAI chat messages: the customer as user, the workspace and teammates as assistant', async () => {
		const conversation = await world.conversation({ chat_id: direct.id, lastMessages: 4 });
		const teammate = conversation.messages[2].sender_name;
		expect(conversationChatMessages(conversation)).toEqual([
			{ role: 'user', content: 'Hello, where is my order?' },
			{ role: 'assistant', content: 'Let me check that for you.' },
			{ role: 'assistant', content: `${teammate} (teammate): Anna here, it ships today.` },
			{ role: 'user', content: 'Here is my receipt\n[attachment: receipt.pdf (document)]' },
		]);
	});

	it('windows by time: only the messages of the last minutes, whatever the count allows', async () => {
		const byTime = await world.conversation({ chat_id: direct.id, lastMessages: 0, lastMinutes: 10 });
		expect(byTime.messages.map((message) => message.message_uid)).toEqual(fresh);
		expect(world.requests).toHaveLength(2);
		// The seeded history is older: a count window reaches into it, a time window does not.
		const byCount = await world.conversation({ chat_id: direct.id, lastMessages: 6 });
		expect(byCount.messages).toHaveLength(6);
		expect(byCount.messages.slice(2).map((message) => message.message_uid)).toEqual(fresh);
		const both = await world.conversation({ chat_id: direct.id, lastMessages: 2, lastMinutes: 10 });
		expect(both.messages.map((message) => message.message_uid)).toEqual(fresh.slice(2));
	});

	it('windows by time also where the service ignores the time filter, and stops at the first older message', async () => {
		world.useTransport(async (request) => {
			const url = new URL(request.url);
			url.searchParams.delete('after');
			return fetchTransport({ ...request, url: url.toString() });
		});
		try {
			const conversation = await world.conversation({ chat_id: direct.id, lastMessages: 0, lastMinutes: 10 });
			expect(conversation.messages.map((message) => message.message_uid)).toEqual(fresh);
			expect(world.requests).toHaveLength(2);
		} finally {
			world.useTransport(fetchTransport);
		}
	});

	it.each<[string, Rewrite]>([
		['an origin spelt otherwise', (message) => (message.origin === 'Public API' ? { ...message, origin: 'public_api' } : message)],
		[
			'ISO 8601 timestamps',
			(message) => ({
				...message,
				timestamp: new Date(
					Date.parse(
						String(message.timestamp)
							.replace(' ', 'T')
							.replace(/ ([+-]\d\d)(\d\d)$/, '$1:$2'),
					),
				).toISOString(),
			}),
		],
	])('reads the same conversation from %s', async (_reading, rewrite) => {
		const expected = await world.conversation({ chat_id: direct.id, lastMessages: 4, lastMinutes: 10 });
		world.useTransport(rewriting(rewrite));
		try {
			expect(await world.conversation({ chat_id: direct.id, lastMessages: 4, lastMinutes: 10 })).toEqual(expected);
		} finally {
			world.useTransport(fetchTransport);
		}
	});

	it('counts an outbound message without an origin as a teammate’s (when unsure, a person wrote it)', async () => {
		world.useTransport(rewriting(({ origin: _origin, ...message }) => message));
		try {
			const conversation = await world.conversation({ chat_id: direct.id, lastMessages: 4 });
			expect(conversation.messages.map((message) => message.role)).toEqual(['customer', 'teammate', 'teammate', 'customer']);
		} finally {
			world.useTransport(fetchTransport);
		}
	});

	it('leaves out the messages the turn answers: by uid, or one message and every later one, and still fills the count', async () => {
		const byUid = await world.conversation({ chat_id: direct.id, lastMessages: 4, excludeMessageUids: fresh.slice(2).join(', ') });
		expect(byUid.messages.map((message) => message.message_uid)).not.toEqual(expect.arrayContaining([fresh[2]]));
		expect(byUid.messages).toHaveLength(4);
		expect(byUid.messages.slice(2).map((message) => message.message_uid)).toEqual(fresh.slice(0, 2));
		const from = await world.conversation({ chat_id: direct.id, lastMessages: 4, excludeFromMessageUid: fresh[1] });
		expect(from.messages).toHaveLength(4);
		expect(from.messages[3].message_uid).toBe(fresh[0]);
		const listed = await world.conversation({
			chat_id: direct.id,
			lastMessages: 10,
			lastMinutes: 10,
			excludeMessageUids: [fresh[0], fresh[3]],
		});
		expect(listed.messages.map((message) => message.message_uid)).toEqual([fresh[1], fresh[2]]);
	});

	it('a message to exclude from that is not in the chat is an input error naming the option', async () => {
		const other = world.chats.find((chat) => chat.id !== direct.id && chat.is_group === false)!;
		const elsewhere = (await world.control('/incoming', { chat_id: other.id, text: 'another chat' })).message.uid as string;
		await expect(world.conversation({ chat_id: direct.id, excludeFromMessageUid: elsewhere })).rejects.toMatchObject({
			kind: 'input',
			field: 'excludeFromMessageUid',
			message: expect.stringContaining(`is not a message of chat ${direct.id}`),
		});
	});

	it('names each member of a group: the chat’s members, and the member who wrote each message', async () => {
		const members = group.group_members as Array<Record<string, any>>;
		await world.control('/incoming', { chat_id: group.id, text: 'Can we move the meeting?', name: members[0].name });
		await world.control('/incoming', { chat_id: group.id, text: 'Fine by me', name: members[1].name });
		const conversation = await world.conversation({ chat_id: group.id, lastMessages: 2 });
		expect(conversation.is_group).toBe(true);
		expect(conversation.members.map((member) => member.name)).toEqual(members.map((member) => member.name));
		expect(conversation.messages.map((message) => [message.role, message.sender_name])).toEqual([
			['customer', members[0].name],
			['customer', members[1].name],
		]);
		expect(conversationChatMessages(conversation).map((message) => message.content)).toEqual([
			`${members[0].name}: Can we move the meeting?`,
			`${members[1].name}: Fine by me`,
		]);
	});

	it('reads as many pages as the window needs, no more', async () => {
		const busy = world.chats.filter((chat) => chat.is_group === false && chat.id !== direct.id)[1]!;
		for (let index = 0; index < 120; index++) await world.control('/incoming', { chat_id: busy.id, text: `message ${index}` });
		// The whole history, page by page (newest first), and the service's page size from its first page.
		const pages: Array<Array<Record<string, unknown>>> = [];
		for (let page = 1, more = true; more; page++) {
			const answer = await world.executor.listPage('message:getAll', { chat_id: busy.id }, page);
			pages.push(answer.items);
			more = answer.more;
		}
		const pageSize = pages[0].length;
		const all = pages.flat().reverse();
		for (const count of [1, pageSize, pageSize + 1, 2 * pageSize + 5]) {
			const conversation = await world.conversation({ chat_id: busy.id, lastMessages: count });
			expect(conversation.messages.map((message) => message.message_uid)).toEqual(all.slice(-count).map((message) => message.uid));
			// The chat, then one request per page the count reaches into.
			expect(world.requests).toHaveLength(1 + Math.ceil(count / pageSize));
		}
	});

	it.each([
		['lastMessages', { lastMessages: -1 }, /^Last Messages: must be a whole number from 0 to 500/],
		['lastMessages', { lastMessages: 'many' }, /^Last Messages: must be a whole number/],
		['lastMessages', { lastMessages: 0 }, /^Last Messages: 0 \(no count limit\) needs Last Minutes above 0/],
		['lastMinutes', { lastMinutes: 1.5 }, /^Last Minutes: must be a whole number/],
		['excludeMessageUids', { excludeMessageUids: [1, 2] }, /^Exclude Message UIDs: must be message uids/],
		['chat_id', { chat_id: 'not-a-chat' }, /chat_id|Chat ID/],
	])('checks %s before any request', async (field, input, message) => {
		const error = (await world.conversation({ chat_id: direct.id, ...input }).catch((caught: unknown) => caught)) as ChatMessagingError;
		expect(error).toMatchObject({ kind: 'input', field });
		expect(error.message).toMatch(message);
		expect(world.requests).toHaveLength(0);
	});
});

describe.each([
	['an empty page for an empty list', false],
	['404 for an empty list', true],
])('a chat that cannot be read fails naming it, never as an empty conversation (the service answering %s)', (_reading, emptyList404) => {
	let world: World;
	beforeAll(async () => (world = await setUp({ emptyList404 })));
	afterAll(() => world.sandbox.stop());

	it('a chat that does not exist', async () => {
		const error = (await world.conversation({ chat_id: 987654 }).catch((caught: unknown) => caught)) as ChatMessagingError;
		expect(error.message).toMatch(/^Cannot read the conversation of chat 987654: /);
		expect(error).toMatchObject({ httpStatus: 404, field: 'chat_id' });
	});

	it('a token the service refuses (the token never in the error)', async () => {
		const chat = world.chats[0];
		const refused = new Executor({ baseUrl: world.sandbox.url, timing: realTiming, token: 'revoked-token', transport: fetchTransport });
		const error = (await refused
			.run('message:getConversation', { chat_id: chat.id })
			.catch((caught: unknown) => caught)) as ChatMessagingError;
		expect(error.message).toMatch(new RegExp(`^Cannot read the conversation of chat ${chat.id}: `));
		expect(error).toMatchObject({ httpStatus: 401 });
		expect(JSON.stringify({ ...error, message: error.message, stack: error.stack })).not.toContain('revoked-token');
	});

	it('a chat that exists with nothing in the window is an empty conversation, not an error', async () => {
		const chat = world.chats.find((candidate) => candidate.is_group === false)!;
		const conversation = await world.conversation({ chat_id: chat.id, lastMessages: 0, lastMinutes: 1 });
		expect(conversation).toMatchObject({ chat_id: chat.id, messages: [] });
	});
});
