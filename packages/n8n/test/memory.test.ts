/**
 * Chat Messaging Memory (nodes/ChatMessagingMemory) as n8n's AI Agent uses it, through @n8n/ai-node-sdk's
 * supplyMemory, against the sandbox over real HTTP: the agent's chat history is the chat's conversation (the
 * customer as the user, this workspace and its teammates as the assistant, a teammate named), without the
 * messages the turn answers; saving a turn writes nothing; a chat that cannot be read fails the turn naming it.
 */
import { NodeHelpers, type INode } from 'n8n-workflow';

import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';
import { ChatMessagingMemory } from '../nodes/ChatMessagingMemory/ChatMessagingMemory.node';
import { supplied, textOf, type LangchainMemory } from './support/memory-context';
import { sandboxCall } from './support/run-action';

const TOKEN = 'memory-token';
let sandbox: RunningSandbox;
const api = (method: string, path: string, body?: unknown) => sandboxCall(sandbox.url, TOKEN, method, path, body);

const lines = (history: Awaited<ReturnType<LangchainMemory['loadMemoryVariables']>>) =>
	history.chat_history.map((message) => `${message._getType()}: ${textOf(message.content)}`);

beforeAll(async () => {
	sandbox = await startSandbox({ tokens: [TOKEN], seed: 9, chats: 4, paceMs: 10, deliveredAfterMs: 0, readAfterMs: 0 });
});
afterAll(async () => await sandbox.stop());

describe('Chat Messaging Memory', () => {
	it("gives the agent the chat's conversation: customer, teammate and workspace, the turn's own messages left out", async () => {
		const first = (await api('POST', '/_sandbox/incoming', { phone: '+4915180000001', text: 'Do you ship to Austria?' })) as {
			chat_id: number;
		};
		await api('POST', '/_sandbox/teammate-message', { chat_id: first.chat_id, text: 'Yes, in 3 days' });
		await api('POST', `/chats/${first.chat_id}/messages`, { text: 'Anything else?' });
		const asked = (await api('POST', '/_sandbox/incoming', { chat_id: first.chat_id, text: 'Where is my order?' })) as {
			message: { uid: string };
		};
		const { memory, requests } = await supplied(
			{ chatId: String(first.chat_id), answeredMessageUids: asked.message.uid, options: { lastMessages: 10 } },
			{ baseUrl: sandbox.url, apiToken: TOKEN },
		);
		const history = lines(await memory.loadMemoryVariables({ input: 'Where is my order?' }));
		expect(history).toEqual([
			'human: Do you ship to Austria?',
			expect.stringMatching(/^ai: .+ \(teammate\): Yes, in 3 days$/),
			'ai: Anything else?',
		]);
		// The chat and one page of its messages.
		expect(requests).toHaveLength(2);

		// Saving the turn writes nothing: the workflow's send puts the reply into the service's history.
		const before = ((await api('GET', `/chats/${first.chat_id}/messages`)) as { messages: unknown[] }).messages.length;
		await memory.saveContext({ input: 'Where is my order?' }, { output: 'On its way' });
		expect(((await api('GET', `/chats/${first.chat_id}/messages`)) as { messages: unknown[] }).messages).toHaveLength(before);
		expect(requests.filter((request) => request.method !== 'GET')).toHaveLength(0);
	});

	it('fails the turn naming the chat when the conversation cannot be read, never an empty memory', async () => {
		const revoked = await supplied({ chatId: '1', options: {} }, { baseUrl: sandbox.url, apiToken: 'revoked-token' });
		await expect(revoked.memory.loadMemoryVariables({})).rejects.toThrow(
			"The agent's memory could not be read: Cannot read the conversation of chat 1: Invalid token",
		);
		const gone = await supplied({ chatId: '987654', options: {} }, { baseUrl: sandbox.url, apiToken: TOKEN });
		await expect(gone.memory.loadMemoryVariables({})).rejects.toThrow(
			/^The agent's memory could not be read: Cannot read the conversation of chat 987654: .*not found/,
		);
		const badWindow = await supplied({ chatId: '5', options: { lastMessages: 0 } }, { baseUrl: sandbox.url, apiToken: TOKEN });
		await expect(badWindow.memory.loadMemoryVariables({})).rejects.toThrow(
			/^The agent's memory of chat 5 could not be read: Last Messages: /,
		);
		expect(badWindow.requests).toHaveLength(0);
	});

	it('refuses a missing chat before any request', async () => {
		await expect(supplied({ chatId: ' ', options: {} }, { baseUrl: sandbox.url, apiToken: TOKEN })).rejects.toThrow(/Chat ID: is required/);
	});

	it("takes the chat from the item's sessionId in version 1.1, as n8n's chat memories; a node saved as version 1 keeps chat_id", () => {
		const { description } = new ChatMessagingMemory();
		const chatIdOf = (typeVersion: number) => {
			const node: INode = { id: 'm', name: 'Memory', type: 'chatMessagingMemory', typeVersion, position: [0, 0], parameters: {} };
			return NodeHelpers.getNodeParameters(description.properties, {}, true, false, node, description)?.chatId;
		};
		expect(description.version).toEqual([1, 1.1]);
		expect([chatIdOf(1), chatIdOf(1.1)]).toEqual(['={{ $json.chat_id }}', '={{ $json.sessionId }}']);
	});
});
