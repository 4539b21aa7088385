/**
 * The conversation in Node-RED, in the real runtime (test helper) against the sandbox over real HTTP: the event
 * node's Add Conversation (off by default; on, msg.conversation and msg.chatMessages without the turn's own
 * message; a chat that cannot be read fails the message for a Catch node), and Get Conversation in the action node.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CONVERSATION_OPTIONS, withConversation, readConversationSetting } from '../src/nodes/event/conversation';
import { migrateEvent } from '../src/nodes/event/migrations';
import { Executor, parseDelivery, type ChatEvent } from '@chat-messaging/core';
import {
	Collector,
	credentialsFor,
	eventNodeFlow,
	eventNodeTestHooks,
	fields,
	helper,
	nodesUnderTest,
	payloadOf,
	sandboxCall,
	waitFor,
	type Sandbox,
} from './support';
import { existsSync } from 'node:fs';
import { fetchTransport, realTiming } from '../../../test/support/fetch-transport';
import type { NodeMessage } from 'node-red';

let sbx: Sandbox;
let userDir: string;

eventNodeTestHooks('conversation-token', (sandbox) => (sbx = sandbox));
beforeEach(() => {
	userDir = mkdtempSync(path.join(os.tmpdir(), 'cm-nr-conversation-'));
	helper.settings({ userDir });
});
afterEach(() => {
	helper.settings({});
	rmSync(userDir, { recursive: true, force: true });
});

const control = async (route: string, body: Record<string, unknown>) => {
	const answer = await sandboxCall(sbx, 'POST', `/_sandbox/${route}`, body);
	if (answer.status !== 200) throw new Error(`${route}: ${JSON.stringify(answer.body)}`);
	return answer.body.data as { chat_id: number; message: { uid: string } };
};

const POLLING = { mode: 'polling', pollSeconds: 1, events: ['message:received:new'] };

/** A polling event node with these settings, started and past its first poll (its cursor at now). */
async function polling(settings: Record<string, unknown>): Promise<Collector> {
	await helper.load(nodesUnderTest as never, [...eventNodeFlow(sbx, '', { ...POLLING, ...settings })], credentialsFor(sbx.tokens[0]!));
	await waitFor('the first poll', () => existsSync(path.join(userDir, 'chat-messaging', 'event-ev.json')));
	return new Collector('out');
}

test('a saved node gets Add Conversation off and the window at the core’s defaults; a new node starts so too', () => {
	const migrated = migrateEvent({ id: 'ev', type: 'chat-messaging-event', events: ['message:received:new'] }) as Record<string, unknown>;
	expect(migrated).toMatchObject({ addConversation: false, conversationLastMessages: 20, conversationLastMinutes: 0 });
	expect(readConversationSetting(migrated).on).toBe(false);
	expect(CONVERSATION_OPTIONS.map((option) => [option.name, option.default])).toEqual([
		['addConversation', false],
		['conversationLastMessages', 20],
		['conversationLastMinutes', 0],
	]);
});

test('a window the core refuses is an error at deploy naming the node property', () => {
	expect(() => readConversationSetting({ addConversation: true, conversationLastMessages: '0', conversationLastMinutes: '0' })).toThrow(
		expect.objectContaining({ field: 'conversationLastMessages', message: expect.stringMatching(/^Last Messages: 0 \(no count limit\)/) }),
	);
	expect(() => readConversationSetting({ addConversation: true, conversationLastMinutes: -1 })).toThrow(
		expect.objectContaining({ field: 'conversationLastMinutes' }),
	);
});

test('off (a node saved before the option): the message goes out without a conversation', async () => {
	const out = await polling({});
	await control('incoming', { phone: '+4915177720001', text: 'no memory please' });
	await out.waitFor(1);
	expect(out.messages[0]).not.toHaveProperty('conversation');
	expect(out.messages[0]).not.toHaveProperty('chatMessages');
});

test('on: each message carries the conversation before it, with roles, and the same as OpenAI chat messages', async () => {
	const phone = '+4915177720002';
	const first = await control('incoming', { phone, text: 'Do you deliver on Sundays?', name: 'Greta' });
	await control('teammate-message', { chat_id: first.chat_id, text: 'Yes, until noon.' });
	const out = await polling({ addConversation: true, conversationLastMessages: 5 });
	const turn = await control('incoming', { phone, text: 'Great, then Sunday please' });
	await out.waitFor(1);
	const msg = out.messages[0] as NodeMessage & Record<string, any>;
	expect(msg.payload).toMatchObject({ message_uid: turn.message.uid, text: 'Great, then Sunday please' });
	expect(msg.conversation).toMatchObject({ chat_id: first.chat_id, is_group: false });
	// The turn's own message is its prompt (msg.payload.text), not part of its memory.
	expect(msg.conversation.messages.map((message: any) => [message.role, message.text])).toEqual([
		['customer', 'Do you deliver on Sundays?'],
		['teammate', 'Yes, until noon.'],
	]);
	const teammate = msg.conversation.messages[1].sender_name;
	expect(msg.chatMessages).toEqual([
		{ role: 'user', content: 'Do you deliver on Sundays?' },
		{ role: 'assistant', content: `${teammate} (teammate): Yes, until noon.` },
	]);
});

test('a conversation that cannot be read fails the message naming the chat, never an empty memory', async () => {
	const chat = (await sandboxCall(sbx, 'GET', '/chats?group=false')).body.data.chats[0];
	const parsed = parseDelivery({ event_type: 'message:received:new', data: { chat_id: chat.id, text: 'hi', message_uid: 'x1' } });
	const event = (parsed as { event: ChatEvent }).event;
	const failures: Array<[string, NodeMessage]> = [];
	for (const [token, status] of [
		['revoked-token', 401],
		[sbx.tokens[0]!, 404],
	] as const) {
		const executor = new Executor({ baseUrl: sbx.url, token, timing: realTiming, transport: fetchTransport });
		const msg: NodeMessage = { payload: event };
		const gone = status === 404 ? { ...event, chat_id: 99999 } : event;
		const sent = await withConversation(executor, gone, msg, readConversationSetting({ addConversation: true }), (text, failed) =>
			failures.push([text, failed]),
		);
		expect(sent).toBe(false);
		expect(msg).not.toHaveProperty('conversation');
		expect(failures.at(-1)![0]).toMatch(new RegExp(`^Cannot read the conversation of chat ${String(gone.chat_id)}: `));
		expect(failures.at(-1)![1]).toBe(msg);
		expect(failures.at(-1)![0]).not.toContain('revoked-token');
	}
});

test('the action node runs Get Conversation: the chat and the window as fields, the conversation as payload', async () => {
	const phone = '+4915177720003';
	const asked = await control('incoming', { phone, text: 'Is the shop open?' });
	await control('teammate-message', { chat_id: asked.chat_id, text: 'Open till six.' });
	const payload = await payloadOf(sbx, {
		resource: 'message',
		operation: 'getConversation',
		fields: fields({ chat_id: asked.chat_id, lastMessages: 2 }),
	});
	expect(payload.messages.map((message: any) => [message.role, message.text])).toEqual([
		['customer', 'Is the shop open?'],
		['teammate', 'Open till six.'],
	]);
});
