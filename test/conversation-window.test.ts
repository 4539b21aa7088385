/**
 * One model, translated per platform: for one chat and one turn, Node-RED's event node (Add Conversation) and the MCP
 * server (the tool, and the resource with its default window) give the same conversation window as the core's Get
 * Conversation, message for message. The MCP server marks each customer's text as theirs; unmarked, the texts are the
 * same. n8n's Chat Messaging Memory gives the agent that window in the OpenAI chat-messages rendering, the core's.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { conversationChatMessages, Executor, type Conversation } from '@chat-messaging/core';
import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';
import { serverEnvironment, stdioServer } from '../packages/mcp-server/test/support';
import { supplied, textOf } from '../packages/n8n/test/support/memory-context';
import { Collector, credentialsFor, eventNodeFlow, helper, nodesUnderTest, waitFor } from '../packages/node-red/test/support';
import { fetchTransport, realTiming } from './support/fetch-transport';

const TOKEN = 'conversation-window-token-8e2b';
const PHONE = '+4915177740001';

let sandbox: RunningSandbox;
let executor: Executor;
/** The turn: the customer's newest message, after an earlier exchange with the workspace and a teammate. */
let turn: { chat_id: number; uid: string };

const control = async (route: string, body: Record<string, unknown>) => {
	const response = await fetch(`${sandbox.url}/_sandbox/${route}`, {
		method: 'POST',
		headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	return ((await response.json()) as { data: { chat_id: number; message: { uid: string } } }).data;
};

/** The window as every surface should give it: the core's, the turn's own message left out. */
const expected = () =>
	executor.run('message:getConversation', { chat_id: turn.chat_id, excludeMessageUids: [turn.uid] }) as Promise<Conversation>;

/** A conversation with the MCP server's markers taken off the customers' texts. */
const unmarked = (conversation: Conversation): Conversation => ({
	...conversation,
	messages: conversation.messages.map((message) => ({
		...message,
		text: message.text.replace(/^<customer-text-([0-9a-f]+)>([\s\S]*)<\/customer-text-\1>$/, '$2'),
	})),
});

beforeAll(async () => {
	sandbox = await startSandbox({ tokens: [TOKEN], seed: 31, paceMs: 5, chats: 5 });
	executor = new Executor({ baseUrl: sandbox.url, token: TOKEN, timing: realTiming, transport: fetchTransport });
	const first = await control('incoming', { phone: PHONE, text: 'Can I return shoes I wore once?', name: 'Lena' });
	await executor.run('message:sendToChat', { chat_id: first.chat_id, text: 'Yes, within 30 days.' });
	await control('teammate-message', { chat_id: first.chat_id, text: 'Bring the receipt, please.' });
});
afterAll(() => sandbox.stop());

describe('the same window for one chat', () => {
	let userDir: string;
	beforeAll(() => {
		userDir = mkdtempSync(path.join(os.tmpdir(), 'cm-conversation-window-'));
		helper.settings({ userDir });
	});
	afterAll(async () => {
		await helper.unload();
		helper.settings({});
		rmSync(userDir, { recursive: true, force: true });
	});

	it("Node-RED's event node: msg.conversation is the core's window for the message's turn", async () => {
		const settings = { mode: 'polling', pollSeconds: 1, events: ['message:received:new'], addConversation: true };
		await helper.load(nodesUnderTest as never, eventNodeFlow(sandbox as never, '', settings), credentialsFor(TOKEN));
		await waitFor('the first poll', () => existsSync(path.join(userDir, 'chat-messaging', 'event-ev.json')));
		const out = new Collector('out');
		const sent = await control('incoming', { phone: PHONE, text: 'Great, I will come by tomorrow' });
		turn = { chat_id: sent.chat_id, uid: sent.message.uid };
		await out.waitFor(1);
		const window = await expected();
		expect(window.messages.map((message) => message.role)).toEqual(expect.arrayContaining(['customer', 'workspace', 'teammate']));
		expect((out.messages[0] as { conversation?: Conversation }).conversation).toEqual(window);
	});

	it("n8n's Chat Messaging Memory: the agent's history is the core's window, rendered as the core renders it", async () => {
		const { memory } = await supplied(
			{ chatId: String(turn.chat_id), answeredMessageUids: turn.uid, options: {} },
			{ baseUrl: sandbox.url, apiToken: TOKEN },
		);
		const history = (await memory.loadMemoryVariables({})).chat_history;
		const role = { human: 'user', ai: 'assistant' } as Record<string, string>;
		const given = history.map((message) => ({ role: role[message._getType()] ?? message._getType(), content: textOf(message.content) }));
		expect(given).toEqual(conversationChatMessages(await expected()));
		expect(given.length).toBeGreaterThanOrEqual(3);
	});

	it('the MCP server: the tool gives the same window; the resource the same, with the turn in it', async () => {
		const { transport } = stdioServer(['--read-only'], serverEnvironment(sandbox, TOKEN));
		const client = new Client({ name: 'conversation-window-test', version: '1.0.0' });
		await client.connect(transport);
		try {
			const window = await expected();
			const tool = (await client.callTool({
				name: 'message_get_conversation',
				arguments: { chat_id: turn.chat_id, excludeMessageUids: [turn.uid] },
			})) as CallToolResult;
			expect(unmarked(tool.structuredContent as unknown as Conversation)).toEqual(window);
			const { contents } = await client.readResource({ uri: `chat://${turn.chat_id}/conversation` });
			const { about_customer_text: _note, ...resource } = JSON.parse(String((contents[0] as { text: string }).text));
			const whole = (await executor.run('message:getConversation', { chat_id: turn.chat_id })) as Conversation;
			expect(unmarked(resource as Conversation)).toEqual(whole);
			expect(whole.messages.slice(0, -1)).toEqual(window.messages.slice(-(whole.messages.length - 1)));
		} finally {
			await client.close();
		}
	});
});
