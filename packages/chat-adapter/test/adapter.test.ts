/**
 * The adapter on the real Chat SDK against the sandbox over real HTTP: a customer's message reaches the bot once and
 * its answer is stored once, a history read returns the conversation, forged deliveries are refused, a 429 storm
 * loses no post and sends none twice, bad input is refused before any request, and no endpoint path is restated.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { NotImplementedError, type Message, type Thread } from 'chat';
import { OPERATIONS } from '@chat-messaging/core';
import { startSandbox } from '@chat-messaging/sandbox';

import { createChatMessagingAdapter, SECRET_PARAMETER, type ChatCreated, type TeammateMessage } from '../src';
import { chatMessages, control, startBot, until, type TestBot } from './support';

const TOKEN = 'chat-adapter-token';

describe('a bot on the Chat SDK', () => {
	let sandbox: Awaited<ReturnType<typeof startSandbox>>;
	let testBot: TestBot;
	const received: Array<{ thread: Thread; message: Message }> = [];
	const inGroups: Array<{ thread: Thread; message: Message }> = [];
	const teammates: TeammateMessage[] = [];
	const created: ChatCreated[] = [];

	beforeAll(async () => {
		sandbox = await startSandbox({ tokens: [TOKEN], paceMs: 20, deliveredAfterMs: 0, readAfterMs: 0, webhookRetryMs: 200, seed: 39 });
		testBot = await startBot({ baseUrl: sandbox.url, token: TOKEN });
		testBot.bot.onDirectMessage(async (thread, message) => {
			received.push({ thread, message });
			await thread.post(`echo: ${message.text}`);
		});
		testBot.bot.onNewMessage(/^group:/, async (thread, message) => void inGroups.push({ thread, message }));
		testBot.adapter.onTeammateMessage((event) => void teammates.push(event));
		testBot.adapter.onChatCreated((event) => void created.push(event));
	});

	afterAll(async () => {
		await testBot?.stop();
		await sandbox?.stop();
	});

	it("hands a customer's message to onDirectMessage once, and thread.post stores one answer", async () => {
		const incoming = await control(sandbox.url, TOKEN, '/_sandbox/incoming', {
			phone: '+4915100000391',
			text: 'hello bot',
			name: 'Ada',
			duplicate: true,
		});
		const chatId = incoming.chat_id as number;
		await until('the answer', async () => (await chatMessages(sandbox.url, TOKEN, chatId)).some((m) => m.text === 'echo: hello bot'));
		// The duplicate delivery has arrived too (the sandbox sent it twice) and was recognised by its event key.
		await until(
			'both deliveries',
			async () =>
				(await control(sandbox.url, TOKEN, `/_sandbox/deliveries?event_type=message:received:new`)).deliveries.filter((d: any) => d.ok)
					.length >= 2,
		);
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(received).toHaveLength(1);
		expect(received[0].message.text).toBe('hello bot');
		expect(received[0].message.author.fullName).toBe('Ada');
		expect(received[0].thread.id).toBe(`chat-messaging:${chatId}`);
		expect(testBot.adapter.counts.redeliveries).toBeGreaterThanOrEqual(1);
		const answers = (await chatMessages(sandbox.url, TOKEN, chatId)).filter((m) => m.text === 'echo: hello bot');
		expect(answers).toHaveLength(1);
		expect(answers[0].from_me).toBe(true);
	});

	it("reads the live service's payload shape as well", async () => {
		const incoming = await control(sandbox.url, TOKEN, '/_sandbox/incoming', {
			phone: '+4915100000396',
			text: 'live shape',
			name: 'Barbara',
			payload: 'live',
		});
		await until('the answer', async () =>
			(await chatMessages(sandbox.url, TOKEN, incoming.chat_id)).some((m) => m.text === 'echo: live shape'),
		);
		const entry = received.filter((candidate) => candidate.message.text === 'live shape');
		expect(entry).toHaveLength(1);
		expect(entry[0].thread.id).toBe(`chat-messaging:${incoming.chat_id}`);
		expect(entry[0].message.id).toBe(incoming.message.uid);
	});

	it('hands a group message to the pattern handlers, not to onDirectMessage, and names the members of its thread', async () => {
		const groups = await fetch(`${sandbox.url}/chats?group=true`, { headers: { authorization: `Bearer ${TOKEN}` } }).then(
			(r) => r.json() as any,
		);
		const group = groups.data.chats[0];
		await control(sandbox.url, TOKEN, '/_sandbox/incoming', { chat_id: group.id, text: 'group: anyone?' });
		await until('the group message', () => inGroups.length === 1);
		const threadId = `chat-messaging:${group.id}`;
		expect(inGroups[0].thread.id).toBe(threadId);
		expect(inGroups[0].thread.isDM).toBe(false);
		expect(received.some((entry) => entry.message.text === 'group: anyone?')).toBe(false);
		const info = await testBot.adapter.fetchThread(threadId);
		expect(info.isDM).toBe(false);
		const members = info.metadata.members as Array<{ name: string | null }>;
		expect(members.length).toBeGreaterThan(0);
		expect(members.map((member) => member.name)).toEqual(group.group_members.map((member: { name: string }) => member.name));
	});

	it('reads the conversation back, oldest first, with who wrote what', async () => {
		const incoming = await control(sandbox.url, TOKEN, '/_sandbox/incoming', {
			phone: '+4915100000392',
			text: 'first question',
			name: 'Grace',
		});
		const threadId = `chat-messaging:${incoming.chat_id}`;
		await until('the answer', async () =>
			(await chatMessages(sandbox.url, TOKEN, incoming.chat_id)).some((m) => m.text === 'echo: first question'),
		);
		const history = await testBot.adapter.fetchMessages(threadId, { limit: 10 });
		const texts = history.messages.map((m) => m.text);
		expect(texts.slice(-2)).toEqual(['first question', 'echo: first question']);
		expect(history.messages.at(-1)!.author.isMe).toBe(true);
		expect(history.messages.at(-2)!.author.isMe).toBe(false);
		const info = await testBot.adapter.fetchThread(threadId);
		expect(info).toMatchObject({ id: threadId, channelName: 'Grace', isDM: true });
		const one = await testBot.adapter.fetchMessage(threadId, history.messages.at(-2)!.id);
		expect(one).toMatchObject({ text: 'first question', author: { fullName: 'Grace', isMe: false } });
		const forward = await testBot.adapter.fetchMessages(threadId, { direction: 'forward', limit: 1 });
		expect(forward.messages[0].text).toBe(texts[0]);
	});

	it('refuses a delivery without the secret or with a wrong one, and hands nothing on', async () => {
		const before = received.length;
		const body = JSON.stringify({ event_type: 'message:received:new', data: { chat_id: 1, text: 'forged', message_uid: 'forged-1' } });
		for (const url of [testBot.publicUrl, `${testBot.publicUrl}?${SECRET_PARAMETER}=guessed`]) {
			const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
			expect(response.status).toBe(401);
			expect(await response.text()).not.toContain(TOKEN);
		}
		await new Promise((resolve) => setTimeout(resolve, 200));
		expect(received).toHaveLength(before);
	});

	it('refuses a thread id that is not a chat id and an empty post, before any request', async () => {
		const traffic = await control(sandbox.url, TOKEN, '/_sandbox/traffic');
		await expect(testBot.adapter.postMessage('slack:C123', 'hi')).rejects.toThrow(/^threadId: must be "chat-messaging:<chat id>"/);
		await expect(testBot.adapter.postMessage('chat-messaging:1', '   ')).rejects.toThrow(/^message: is empty/);
		await expect(testBot.adapter.fetchMessages('chat-messaging:abc')).rejects.toThrow(/threadId/);
		await expect(testBot.adapter.editMessage()).rejects.toBeInstanceOf(NotImplementedError);
		await expect(testBot.adapter.deleteMessage()).rejects.toBeInstanceOf(NotImplementedError);
		const after = await control(sandbox.url, TOKEN, '/_sandbox/traffic');
		expect(after.api_calls).toBe(traffic.api_calls); // the control API is not counted: no public request was made
	});

	it('sets and clears the reaction on a message', async () => {
		const incoming = await control(sandbox.url, TOKEN, '/_sandbox/incoming', { phone: '+4915100000393', text: 'react to me' });
		const threadId = `chat-messaging:${incoming.chat_id}`;
		const uid = incoming.message.uid;
		await testBot.adapter.addReaction(threadId, uid, '👍');
		const read = async () =>
			(await fetch(`${sandbox.url}/messages/${uid}/reactions`, { headers: { authorization: `Bearer ${TOKEN}` } }).then((r) =>
				r.json(),
			)) as any;
		expect((await read()).data.reactions).toEqual({ '👍': 1 });
		await testBot.adapter.removeReaction(threadId, uid, '👍');
		expect((await read()).data.total).toBe(0);
	});

	it("hands a teammate's message to the handlers that ask for it (never the bot's own sends), and a new chat as an event", async () => {
		const incoming = await control(sandbox.url, TOKEN, '/_sandbox/incoming', {
			phone: '+4915100000395',
			text: 'who is there?',
			name: 'Linus',
		});
		await until('the chat:created event', () => created.some((event) => event.chatId === incoming.chat_id));
		expect(created.find((event) => event.chatId === incoming.chat_id)).toMatchObject({
			threadId: `chat-messaging:${incoming.chat_id}`,
			chatName: 'Linus',
		});
		await until('the answer', async () =>
			(await chatMessages(sandbox.url, TOKEN, incoming.chat_id)).some((m) => m.text === 'echo: who is there?'),
		);
		await control(sandbox.url, TOKEN, '/_sandbox/teammate-message', { chat_id: incoming.chat_id, text: 'a person here' });
		await until("the teammate's message", () => teammates.some((event) => event.message.text === 'a person here'));
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(teammates.map((event) => event.message.text)).toEqual(['a person here']);
		expect(teammates[0]).toMatchObject({
			threadId: `chat-messaging:${incoming.chat_id}`,
			message: { author: { isMe: false, isBot: false } },
		});
		expect(received.some((entry) => entry.message.text === 'a person here')).toBe(false);
	});

	it('keeps the token out of what a handler can reach: the thread, the message, the adapter', async () => {
		const { thread, message } = received[0];
		const { inspect } = await import('node:util');
		for (const value of [thread, message, testBot.adapter]) {
			expect(JSON.stringify(value)).not.toContain(TOKEN);
			expect(inspect(value, { depth: 6 })).not.toContain(TOKEN);
		}
	});

	it('keeps the token out of errors', async () => {
		const adapter = createChatMessagingAdapter({ baseUrl: sandbox.url, token: 'wrong-token-never-shown' });
		const error = await adapter.fetchThread('chat-messaging:1').catch((caught: Error) => caught);
		expect(error).toBeInstanceOf(Error);
		expect(String((error as Error).message) + JSON.stringify(error)).not.toContain('wrong-token-never-shown');
	});
});

it('a 429 storm loses no post and sends none twice', async () => {
	const sandbox = await startSandbox({ tokens: [TOKEN], paceMs: 5, deliveredAfterMs: 0, readAfterMs: 0, rateLimit: 3, seed: 40 });
	try {
		const adapter = createChatMessagingAdapter({ baseUrl: sandbox.url, token: TOKEN });
		const incoming = await control(sandbox.url, TOKEN, '/_sandbox/incoming', { phone: '+4915100000394', text: 'storm' });
		const threadId = `chat-messaging:${incoming.chat_id}`;
		const texts = Array.from({ length: 30 }, (_, i) => `post ${i}`);
		const sent = await Promise.all(texts.map((text) => adapter.postMessage(threadId, text)));
		expect(new Set(sent.map((s) => s.id)).size).toBe(texts.length);
		const stored = (await chatMessages(sandbox.url, TOKEN, incoming.chat_id)).filter((m) => m.from_me);
		expect(stored.map((m) => m.text).sort()).toEqual([...texts].sort());
		const traffic = await control(sandbox.url, TOKEN, '/_sandbox/traffic');
		expect(traffic.rate_limited).toBeGreaterThan(0);
	} finally {
		await sandbox.stop();
	}
});

it("restates no endpoint path: the adapter's sources name operations of the catalogue, never their paths", () => {
	const dir = join(__dirname, '..', 'src');
	const sources = readdirSync(dir).map((file) => readFileSync(join(dir, file), 'utf8'));
	const paths = [...new Set(OPERATIONS.map((op) => op.path))];
	expect(paths.length).toBeGreaterThan(10);
	for (const path of [...paths, '/messages', '/chats', '/webhooks', '/files']) {
		for (const source of sources) expect(source).not.toContain(`'${path}`);
		for (const source of sources) expect(source).not.toContain(`\`${path}`);
	}
});
