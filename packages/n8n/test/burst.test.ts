/**
 * One turn per burst (nodes/ChatMessaging/v2/actions/burst/burst.ts and the core's burstToAnswer), against the sandbox
 * over real HTTP: of a customer's three quick messages only the last one's execution goes on, with the three as
 * one item; a message sent into the chat ends a burst; Wait for Customer to Finish Typing puts the execution to
 * wait with n8n's waiting and passes its items on; bad input is refused before any request.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';
import { burstProperties, BURST_RESOURCE, executeBurst, GET_BURST, WAIT_FOR_QUIET } from '../nodes/ChatMessaging/v2/actions/burst/burst';
import { createExecuteContext, type Credentials } from './support/n8n-context';
import { sandboxCall } from './support/run-action';

const TOKEN = 'burst-token';
let sandbox: RunningSandbox;
let credentials: Credentials;
const api = (method: string, path: string, body?: unknown) => sandboxCall(sandbox.url, TOKEN, method, path, body);

const properties = (operation: string) => [
	{ displayName: 'Resource', name: 'resource', type: 'hidden' as const, default: BURST_RESOURCE },
	{ displayName: 'Operation', name: 'operation', type: 'hidden' as const, default: operation },
	...burstProperties,
];

/** The item the Chat Messaging Trigger gives for a message: its chat and uid (the parameters' defaults read them). */
async function customerWrites(phone: string, text: string): Promise<{ chat_id: number; message_uid: string }> {
	const answer = (await api('POST', '/_sandbox/incoming', { phone, text })) as { chat_id: number; message: { uid: string } };
	return { chat_id: answer.chat_id, message_uid: answer.message.uid };
}

async function getBurst(item: IDataObject, parameters: IDataObject = {}) {
	const { context, requests } = createExecuteContext({
		properties: properties(GET_BURST),
		credentials,
		// The defaults are expressions n8n resolves against the item; here the item's values stand in for them.
		parameters: { burstChatId: String(item.chat_id ?? ''), burstMessageUid: String(item.message_uid ?? ''), ...parameters },
		items: [{ json: item }],
	});
	const output = (await executeBurst(context as never, GET_BURST)) as INodeExecutionData[][];
	return { items: output[0], requests };
}

beforeAll(async () => {
	sandbox = await startSandbox({ tokens: [TOKEN], seed: 5, chats: 6, paceMs: 10, deliveredAfterMs: 0, readAfterMs: 0 });
	credentials = { baseUrl: sandbox.url, apiToken: TOKEN };
});
afterAll(async () => await sandbox.stop());

describe('Get Burst to Answer', () => {
	it("goes on only in the burst's last execution, with the whole burst as one item, one request each", async () => {
		const phone = '+4915170000001';
		const first = await customerWrites(phone, 'hi');
		await api('POST', `/chats/${first.chat_id}/messages`, { text: 'Hello! How can we help?' });
		const burst = [await customerWrites(phone, 'my order'), await customerWrites(phone, 'is late'), await customerWrites(phone, '#1234')];

		const runs = await Promise.all(burst.map((item) => getBurst(item)));
		expect(runs.map((run) => run.items.length)).toEqual([0, 0, 1]);
		expect(runs.map((run) => run.requests.length)).toEqual([1, 1, 1]);
		const answered = runs[2].items[0].json;
		expect(answered.chat_id).toBe(first.chat_id);
		expect(answered.message_uid).toBe(burst[2].message_uid);
		// The reply sent ended the earlier burst ("hi"): only the three after it.
		expect(answered.text).toBe('my order\nis late\n#1234');
		// n8n's AI Agent and chat memories at their defaults read these.
		expect(answered.chatInput).toBe(answered.text);
		expect(answered.sessionId).toBe(String(first.chat_id));
		expect(answered.message_uids).toEqual(burst.map((item) => item.message_uid));
		expect(runs[2].items[0].pairedItem).toEqual({ item: 0 });
	});

	it("ends the burst at a teammate's message too", async () => {
		const early = await customerWrites('+4915170000002', 'anyone there?');
		await api('POST', '/_sandbox/teammate-message', { chat_id: early.chat_id, text: 'Yes, Anna here' });
		const late = await customerWrites('+4915170000002', 'great, my invoice please');
		const { items } = await getBurst(late);
		expect(items.map((item) => item.json.text)).toEqual(['great, my invoice please']);
	});

	it('refuses a missing chat or message before any request, naming the field', async () => {
		await expect(getBurst({ chat_id: '', message_uid: 'x' })).rejects.toThrow(/Chat ID: is required/);
		await expect(getBurst({ chat_id: 1, message_uid: '' })).rejects.toThrow(/Message UID: is required/);
	});

	it('names the message and the chat when the message is not in the chat', async () => {
		const item = await customerWrites('+4915170000003', 'hello');
		await expect(getBurst({ chat_id: item.chat_id, message_uid: 'no-such-message' })).rejects.toThrow(
			`Message no-such-message is not in chat ${item.chat_id}`,
		);
	});
});

describe('Wait for Customer to Finish Typing', () => {
	it("puts the execution to wait for the quiet time with n8n's waiting and passes its items on", async () => {
		const items = [{ json: { chat_id: 1, message_uid: 'a' } }, { json: { chat_id: 1, message_uid: 'b' } }];
		const { context, requests } = createExecuteContext({
			properties: properties(WAIT_FOR_QUIET),
			credentials,
			parameters: { burstQuietSeconds: 45 },
			items,
		});
		const waits: Date[] = [];
		const before = Date.now();
		const output = await executeBurst(
			{ ...context, putExecutionToWait: async (until: Date) => void waits.push(until) } as never,
			WAIT_FOR_QUIET,
		);
		expect(output).toEqual([items]);
		expect(waits).toHaveLength(1);
		expect(waits[0].getTime()).toBeGreaterThanOrEqual(before + 45_000);
		expect(waits[0].getTime()).toBeLessThanOrEqual(Date.now() + 45_000);
		expect(requests).toHaveLength(0);
	});

	it('refuses a quiet time of 0', async () => {
		const { context } = createExecuteContext({ properties: properties(WAIT_FOR_QUIET), credentials, parameters: { burstQuietSeconds: 0 } });
		await expect(executeBurst({ ...context, putExecutionToWait: async () => undefined } as never, WAIT_FOR_QUIET)).rejects.toThrow(
			/Quiet Time \(Seconds\): must be more than 0/,
		);
	});
});
