/**
 * Get Conversation in the action node (version 2) against a sandbox: the chat from its picker, the window from
 * the Options, the core's conversation as one item; a bad option fails naming it before any request.
 */
import type { IDataObject } from 'n8n-workflow';

import { ChatMessaging } from '../nodes/ChatMessaging/ChatMessaging.node';
import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';
import type { Credentials } from './support/n8n-context';
import { actionError, runAction, sandboxCall } from './support/run-action';

const TOKEN = 'n8n-conversation-token-7c2a';
const v2 = new ChatMessaging().getNodeType(2.1);
let sandbox: RunningSandbox;
let credentials: Credentials;

beforeAll(async () => {
	sandbox = await startSandbox({ tokens: [TOKEN], seed: 3, paceMs: 5 });
	credentials = { baseUrl: sandbox.url, apiToken: TOKEN };
});
afterAll(() => sandbox?.stop());

it('the parameters: the chat picker and one Options collection with the window', () => {
	const shown = v2.description.properties.filter(
		(property) => property.displayOptions?.show?.operation?.includes('getConversation') && property.name !== 'toolDescription',
	);
	expect(shown.map((property) => property.name)).toEqual(['chat_id', 'conversationOptions']);
	const options = (shown[1].options ?? []) as Array<{ name: string; default?: unknown }>;
	expect(options.map((option) => option.name).sort()).toEqual([
		'excludeFromMessageUid',
		'excludeMessageUids',
		'lastMessages',
		'lastMinutes',
	]);
	expect(options.find((option) => option.name === 'lastMessages')?.default).toBe(20);
});

it('outputs the conversation as the core reads it: roles, oldest first, the turn’s message left out', async () => {
	const chats = (await sandboxCall(sandbox.url, TOKEN, 'GET', '/chats?group=false')).chats as IDataObject[];
	const chat = chats[0];
	const asked = (await sandboxCall(sandbox.url, TOKEN, 'POST', '/_sandbox/incoming', {
		chat_id: chat.id,
		text: 'Is it in stock?',
	})) as IDataObject;
	await sandboxCall(sandbox.url, TOKEN, 'POST', '/_sandbox/teammate-message', { chat_id: chat.id, text: 'Yes, two left.' });
	const turn = (await sandboxCall(sandbox.url, TOKEN, 'POST', '/_sandbox/incoming', {
		chat_id: chat.id,
		text: 'I take one',
	})) as IDataObject;
	const { json, requests } = await runAction(
		credentials,
		{
			resource: 'message',
			operation: 'getConversation',
			chat_id: { __rl: true, mode: 'list', value: String(chat.id) },
			conversationOptions: { lastMessages: 2, excludeMessageUids: String((turn.message as IDataObject).uid) },
		},
		{ nodeType: v2, typeVersion: 2.1 },
	);
	expect(json).toHaveLength(1);
	const messages = json[0].messages as IDataObject[];
	expect(messages.map((message) => [message.role, message.text])).toEqual([
		['customer', 'Is it in stock?'],
		['teammate', 'Yes, two left.'],
	]);
	expect(messages[0].message_uid).toBe((asked.message as IDataObject).uid);
	expect(requests).toHaveLength(2);
});

it('a bad window fails naming the option, before any request', async () => {
	const { error, requests } = await actionError(
		credentials,
		{ resource: 'message', operation: 'getConversation', chat_id: '1', conversationOptions: { lastMessages: -3 } },
		{ nodeType: v2, typeVersion: 2.1 },
	);
	expect(error.message).toMatch(/^Last Messages: must be a whole number/);
	expect(requests).toHaveLength(0);
});
