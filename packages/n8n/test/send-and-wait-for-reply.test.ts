/**
 * Send and Wait for Reply (nodes/ChatMessaging/v2/actions/sendAndWaitForReply/) in the contexts n8n gives it,
 * against the sandbox over real HTTP:
 * - webhook mode: the message is sent, a temporary subscription points at the execution's resume URL
 *   (path + node id), the execution is put to wait until the time-out; the sandbox's real deliveries
 *   reach a local HTTP server that runs the node's webhook(): another chat's message is ignored, the
 *   reply resumes with one item and the subscription is removed; an expired one is removed by the
 *   next run;
 * - polling mode: the reply, or `replied: false` on time-out;
 * - bad input is refused before any request.
 */
import { createServer, type Server } from 'http';
import type { AddressInfo } from 'net';
import type { IDataObject, INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { SEND_AND_WAIT_FOR_REPLY, sendAndWaitForReplyProperties } from '../nodes/ChatMessaging/v2/actions/sendAndWaitForReply/description';
import { executeSendAndWaitForReply } from '../nodes/ChatMessaging/v2/actions/sendAndWaitForReply/execute';
import { sendAndWaitForReplyWebhook, sendAndWaitForReplyWebhooks } from '../nodes/ChatMessaging/v2/actions/sendAndWaitForReply/webhook';
import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';
import { authenticatedHttp, createExecuteContext, makeNode, type Credentials, type RecordedRequest } from './support/n8n-context';
import { sandboxCall } from './support/run-action';

const TOKEN = 'send-and-wait-token';
let sandbox: RunningSandbox;
let credentials: Credentials;
const api = (method: string, path: string, body?: unknown) => sandboxCall(sandbox.url, TOKEN, method, path, body);
const properties = [
	{ displayName: 'Resource', name: 'resource', type: 'hidden' as const, default: 'message' },
	{ displayName: 'Operation', name: 'operation', type: 'hidden' as const, default: SEND_AND_WAIT_FOR_REPLY },
	...sendAndWaitForReplyProperties({ resource: ['message'], operation: [SEND_AND_WAIT_FOR_REPLY] }),
];

/** Receives the sandbox's deliveries at /webhook-waiting/<execution>/<node> and runs the node's webhook() on them. */
let receiver: Server;
let receiverUrl: string;
const answers: IWebhookResponseData[] = [];

function webhookContext(query: IDataObject, body: unknown): IWebhookFunctions {
	const node = makeNode('chatMessaging', {});
	const requests: RecordedRequest[] = [];
	const http = authenticatedHttp(credentials, requests, node);
	return {
		getNode: () => node,
		getQueryData: () => query,
		getBodyData: () => body,
		getCredentials: async () => ({ ...credentials }),
		getTimezone: () => 'UTC',
		helpers: {
			httpRequestWithAuthentication(this: unknown, type: string, request: never) {
				return http(type, request);
			},
		},
		logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
	} as unknown as IWebhookFunctions;
}

beforeAll(async () => {
	sandbox = await startSandbox({
		tokens: [TOKEN],
		seed: 3,
		chats: 12,
		paceMs: 10,
		deliveredAfterMs: 0,
		readAfterMs: 0,
		webhookRetryMs: 50,
	});
	credentials = { baseUrl: sandbox.url, apiToken: TOKEN };
	receiver = createServer((request, response) => {
		let text = '';
		request.on('data', (chunk: Buffer) => (text += chunk.toString()));
		request.on('end', () => {
			const url = new URL(request.url ?? '/', 'http://receiver');
			const query = Object.fromEntries(url.searchParams.entries());
			void sendAndWaitForReplyWebhook(webhookContext(query, JSON.parse(text || '{}'))).then((answer) => {
				answers.push(answer);
				response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
			});
		});
	});
	await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
	receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
	await new Promise((resolve) => receiver.close(resolve));
	await sandbox?.stop();
});

/** Runs execute() as n8n does for an execution with this id; records the time it was put to wait until. */
async function execute(parameters: IDataObject, executionId = '42', items?: INodeExecutionData[]) {
	const { context, requests } = createExecuteContext({ properties, credentials, parameters, items });
	const waits: Date[] = [];
	const extended = Object.assign(context, {
		getNode: () => ({ ...makeNode('chatMessaging'), id: 'reply-node-1' }),
		getWorkflowDataProxy: () => ({
			$execution: { resumeUrl: `${receiverUrl}/webhook-waiting/${executionId}?signature=resume-token-${executionId}` },
		}),
		putExecutionToWait: async (until: Date) => {
			waits.push(until);
		},
	});
	const output = await executeSendAndWaitForReply(extended as never);
	return { output, requests, waits };
}

const subscriptions = async () => (await api('GET', '/_sandbox/webhooks')).webhooks as IDataObject[];
const until = async <T>(read: () => Promise<T | undefined>, what: string): Promise<T> => {
	for (let attempt = 0; attempt < 100; attempt++) {
		const value = await read();
		if (value !== undefined) return value;
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	throw new Error(`timed out waiting for ${what}`);
};

describe('webhook mode', () => {
	it('describes the waiting webhook as n8n routes resume URLs', () => {
		expect(sendAndWaitForReplyWebhooks).toEqual([
			expect.objectContaining({ httpMethod: 'POST', restartWebhook: true, isFullPath: true, path: '={{ $nodeId }}' }),
		]);
	});

	it('sends, subscribes the resume URL, waits; ignores another chat; resumes on the reply and unsubscribes', async () => {
		const chats = (await api('GET', '/chats?group=false')).chats as IDataObject[];
		const [chat, other] = chats;
		const startedAt = Date.now();
		const { output, waits } = await execute({
			replyWaitChatId: String(chat.id),
			replyWaitText: 'Deliver tomorrow?',
			replyWaitTimeout: 2,
			replyWaitTimeoutUnit: 'minutes',
		});
		expect(output).toEqual([[{ json: {} }]]); // the input items, as n8n's waiting nodes return them
		expect(waits).toHaveLength(1);
		expect(waits[0].getTime() - startedAt).toBeGreaterThanOrEqual(120_000);
		expect(waits[0].getTime() - startedAt).toBeLessThan(130_000);

		const [subscription] = (await subscriptions()).filter((item) => String(item.url).includes('/webhook-waiting/42/'));
		expect(subscription).toMatchObject({ event_type: 'message:received:new', enabled: true });
		const url = new URL(String(subscription.url));
		expect(url.pathname).toBe('/webhook-waiting/42/reply-node-1');
		expect(url.searchParams.get('signature')).toBe('resume-token-42');
		expect(url.searchParams.get('cm_chat')).toBe(String(chat.id));

		answers.length = 0;
		await api('POST', '/_sandbox/incoming', { chat_id: other.id, text: 'another chat' });
		const ignored = await until(async () => answers[0], 'the delivery of the other chat');
		expect(ignored.workflowData).toBeUndefined();

		const reply = await api('POST', '/_sandbox/incoming', { chat_id: chat.id, text: 'Yes, after 5 pm' });
		const resumed = await until(async () => answers.find((answer) => answer.workflowData), 'the reply');
		const item = resumed.workflowData?.[0]?.[0]?.json as IDataObject;
		expect(item).toMatchObject({ chat_id: chat.id, replied: true });
		expect(item.reply).toMatchObject({
			event_type: 'message:received:new',
			text: 'Yes, after 5 pm',
			message_uid: (reply.message as IDataObject).uid,
		});
		expect((await subscriptions()).filter((entry) => String(entry.url).includes('/webhook-waiting/42/'))).toEqual([]);
	});

	it('a reply that comes before the subscription exists is found at once, without waiting', async () => {
		const chats = (await api('GET', '/chats?group=false')).chats as IDataObject[];
		const chat = chats[5];
		const { context } = createExecuteContext({
			properties,
			credentials,
			parameters: {
				replyWaitChatId: String(chat.id),
				replyWaitText: 'Quick question',
				replyWaitTimeout: 1,
				replyWaitTimeoutUnit: 'minutes',
			},
		});
		// The customer answers while the subscription is being created: its delivery cannot reach the execution.
		const helpers = context.helpers as {
			httpRequestWithAuthentication: (type: string, request: { method?: string; url: string }) => Promise<unknown>;
		};
		const send = helpers.httpRequestWithAuthentication;
		helpers.httpRequestWithAuthentication = async function (this: unknown, type, request) {
			if (request.method === 'POST' && request.url.endsWith('/webhooks'))
				await api('POST', '/_sandbox/incoming', { chat_id: chat.id, text: 'fast answer' });
			return await send.call(this, type, request);
		};
		const waits: Date[] = [];
		const extended = Object.assign(context, {
			getNode: () => ({ ...makeNode('chatMessaging'), id: 'reply-node-1' }),
			getWorkflowDataProxy: () => ({ $execution: { resumeUrl: `${receiverUrl}/webhook-waiting/44?signature=resume-token-44` } }),
			putExecutionToWait: async (until: Date) => {
				waits.push(until);
			},
		});
		const output = await executeSendAndWaitForReply(extended as never);
		expect(waits).toEqual([]);
		expect(output[0][0].json).toMatchObject({ chat_id: chat.id, replied: true, reply: expect.objectContaining({ text: 'fast answer' }) });
		expect((await subscriptions()).filter((item) => String(item.url).includes('/webhook-waiting/44/'))).toEqual([]);
	});

	it('removes expired temporary subscriptions on the next run', async () => {
		const chats = (await api('GET', '/chats?group=false')).chats as IDataObject[];
		const expired = await api('POST', '/webhooks', {
			event_type: 'message:received:new',
			url: `${receiverUrl}/webhook-waiting/7/reply-node-1?signature=x&cm_chat=1&cm_after=OLD&cm_until=1000`,
			enabled: true,
		});
		const unrelated = await api('POST', '/webhooks', { event_type: 'chat:created', url: `${receiverUrl}/someone-else`, enabled: true });
		await execute(
			{ replyWaitChatId: String(chats[1].id), replyWaitText: 'Still there?', replyWaitTimeout: 1, replyWaitTimeoutUnit: 'minutes' },
			'43',
		);
		const ids = (await subscriptions()).map((item) => item.id);
		expect(ids).not.toContain(expired.id);
		expect(ids).toContain(unrelated.id);
		await api('DELETE', `/webhooks/${String(unrelated.id)}`);
	});
});

describe('polling mode', () => {
	it('returns the reply', async () => {
		const chats = (await api('GET', '/chats?group=false')).chats as IDataObject[];
		const chat = chats[2];
		const running = execute({
			replyWaitChatId: String(chat.id),
			replyWaitText: 'Reply OK',
			replyWaitUsing: 'polling',
			replyWaitPollSeconds: 1,
			replyWaitTimeout: 1,
			replyWaitTimeoutUnit: 'minutes',
		});
		await new Promise((resolve) => setTimeout(resolve, 300));
		await api('POST', '/_sandbox/incoming', { chat_id: chat.id, text: 'OK' });
		const { output, waits } = await running;
		expect(waits).toEqual([]);
		expect(output[0][0].json).toMatchObject({ chat_id: chat.id, replied: true, reply: expect.objectContaining({ text: 'OK' }) });
	});

	it('reads the chat from a resource locator: by ID, or from a chat URL', async () => {
		const chats = (await api('GET', '/chats?group=false')).chats as IDataObject[];
		const chat = chats[4];
		const url = String(chat.chat_url);
		for (const replyWaitChatId of [
			{ __rl: true, mode: 'url', value: url },
			{ __rl: true, mode: 'id', value: String(chat.id) },
		]) {
			const running = execute({
				replyWaitChatId,
				replyWaitText: 'Which one?',
				replyWaitUsing: 'polling',
				replyWaitPollSeconds: 1,
				replyWaitTimeout: 1,
				replyWaitTimeoutUnit: 'minutes',
			});
			await new Promise((resolve) => setTimeout(resolve, 300));
			await api('POST', '/_sandbox/incoming', { chat_id: chat.id, text: 'this one' });
			const { output } = await running;
			expect(output[0][0].json).toMatchObject({ chat_id: chat.id, replied: true });
		}
	});

	it('sends by Chat Name or JID too (every Send To of Send) and waits in that chat', async () => {
		const chats = (await api('GET', '/chats?group=false')).chats as IDataObject[];
		const chat = chats[5];
		for (const address of [
			{ replyWaitSendTo: 'chatName', replyWaitChatName: String(chat.name) },
			{ replyWaitSendTo: 'jid', replyWaitJid: String(chat.jid) },
		]) {
			const running = execute({
				...address,
				replyWaitText: 'Which way?',
				replyWaitUsing: 'polling',
				replyWaitPollSeconds: 1,
				replyWaitTimeout: 1,
				replyWaitTimeoutUnit: 'minutes',
			});
			await new Promise((resolve) => setTimeout(resolve, 300));
			await api('POST', '/_sandbox/incoming', { chat_id: chat.id, text: `by ${address.replyWaitSendTo}` });
			const { output } = await running;
			expect(output[0][0].json).toMatchObject({
				chat_id: chat.id,
				replied: true,
				reply: expect.objectContaining({ text: `by ${address.replyWaitSendTo}` }),
			});
		}
	});

	it('outputs replied: false when the time runs out', async () => {
		const chats = (await api('GET', '/chats?group=false')).chats as IDataObject[];
		const { output } = await execute({
			replyWaitSendTo: 'phone',
			replyWaitPhone: String(chats[3].phone),
			replyWaitText: 'Nobody answers this',
			replyWaitUsing: 'polling',
			replyWaitPollSeconds: 1,
			replyWaitTimeout: 0.02, // 1.2 s
			replyWaitTimeoutUnit: 'minutes',
		});
		expect(output[0][0].json).toMatchObject({ chat_id: chats[3].id, replied: false, reply: null, timed_out: true });
	});
});

describe('bad input', () => {
	it.each([
		[{ replyWaitChatId: 'abc', replyWaitText: 'x' }, /Chat ID/],
		[{ replyWaitChatId: '1', replyWaitText: '  ' }, /Message/],
		[{ replyWaitSendTo: 'phone', replyWaitPhone: '+49 151 234', replyWaitText: 'x' }, /Phone Number/],
		[{ replyWaitSendTo: 'jid', replyWaitJid: 'no-server', replyWaitText: 'x' }, /JID/],
		[{ replyWaitSendTo: 'chatName', replyWaitChatName: '', replyWaitText: 'x' }, /Chat Name/],
		[{ replyWaitChatId: '1', replyWaitText: 'x', replyWaitTimeout: 0 }, /Time-Out/],
	])('is refused before any request: %j', async (parameters, message) => {
		const { context, requests } = createExecuteContext({ properties, credentials, parameters });
		await expect(executeSendAndWaitForReply(context as never)).rejects.toThrow(message);
		expect(requests).toEqual([]);
	});

	it('refuses more than one input item, saying what to do', async () => {
		const { context } = createExecuteContext({
			properties,
			credentials,
			parameters: { replyWaitChatId: '1', replyWaitText: 'x' },
			items: [{ json: {} }, { json: {} }],
		});
		await expect(executeSendAndWaitForReply(context as never)).rejects.toThrow(/Loop Over Items/);
	});
});
