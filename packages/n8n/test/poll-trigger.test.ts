/**
 * The Chat Messaging Poll Trigger's poll() in the context n8n gives it, against the sandbox over
 * real HTTP with the credential's header: the first activation starts from now, each new event
 * starts the workflow once across polls and a restart (static data kept, as n8n keeps it), options
 * narrow events, "Fetch Test Event" returns a real sample without moving the cursor.
 */
import type { IDataObject, IHttpRequestOptions, IPollFunctions } from 'n8n-workflow';

import { ChatMessagingPollTrigger } from '../nodes/ChatMessagingPollTrigger/ChatMessagingPollTrigger.node';
import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';
import { authenticatedHttp, makeNode, type Credentials, type RecordedRequest } from './support/n8n-context';
import { sandboxCall } from './support/run-action';

const TOKEN = 'poll-trigger-token';
let sandbox: RunningSandbox;
let credentials: Credentials;
const api = (method: string, path: string, body?: unknown) => sandboxCall(sandbox.url, TOKEN, method, path, body);
const trigger = new ChatMessagingPollTrigger();

interface PollRun {
	items: IDataObject[] | null;
	requests: RecordedRequest[];
}

/** One poll as n8n runs it: `staticData` is the node's, kept between polls (and in the database across restarts). */
async function poll(parameters: IDataObject, staticData: IDataObject, mode: 'trigger' | 'manual' = 'trigger'): Promise<PollRun> {
	const requests: RecordedRequest[] = [];
	const node = makeNode('chatMessagingPollTrigger', parameters);
	const http = authenticatedHttp(credentials, requests, node);
	const context = {
		getNode: () => node,
		getMode: () => mode,
		getActivationMode: () => 'activate',
		getNodeParameter: (name: string, fallback?: unknown) => parameters[name] ?? fallback,
		getWorkflowStaticData: (type: string) => {
			if (type !== 'node') throw new Error(`unexpected static data type ${type}`);
			return staticData;
		},
		getCredentials: async () => ({ ...credentials }),
		getTimezone: () => 'Europe/Berlin',
		helpers: {
			httpRequestWithAuthentication(this: unknown, type: string, request: IHttpRequestOptions) {
				return http(type, request);
			},
		},
		logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
	};
	const result = await trigger.poll.call(context as unknown as IPollFunctions);
	return { items: result ? result[0].map((item) => item.json) : null, requests };
}

/** Static data as n8n stores it: through JSON, as after a restart. */
const restarted = (staticData: IDataObject): IDataObject => JSON.parse(JSON.stringify(staticData)) as IDataObject;

beforeAll(async () => {
	sandbox = await startSandbox({ tokens: [TOKEN], seed: 7, chats: 30, seedTime: 'now', paceMs: 10, deliveredAfterMs: 0, readAfterMs: 0 });
	credentials = { baseUrl: sandbox.url, apiToken: TOKEN };
});

afterAll(async () => {
	await sandbox?.stop();
});

beforeEach(async () => {
	await api('POST', '/_sandbox/reset');
});

describe('poll()', () => {
	it('starts from now on the first activation, then emits each new inbound message once, across a restart', async () => {
		const staticData: IDataObject = {};
		const first = await poll({ event: 'messageReceived' }, staticData);
		expect(first.items).toBeNull();
		expect(first.requests).toHaveLength(1);
		expect(staticData.cursor).toMatchObject({ v: 1, source: 'messageReceived' });

		const a = await api('POST', '/_sandbox/incoming', { phone: '+4915100000101', text: 'Hi there', name: 'Poll Customer' });
		const second = await poll({ event: 'messageReceived' }, staticData);
		expect(second.items).toHaveLength(1);
		expect(second.items?.[0]).toMatchObject({
			event_type: 'message:received:new',
			chat_id: a.chat_id,
			chat_name: 'Poll Customer',
			text: 'Hi there',
			message_uid: (a.message as IDataObject).uid,
			chatInput: 'Hi there',
			sessionId: String(a.chat_id),
		});

		const afterRestart = restarted(staticData);
		expect((await poll({ event: 'messageReceived' }, afterRestart)).items).toBeNull();
		await api('POST', '/_sandbox/incoming', { chat_id: a.chat_id, text: 'Are you there?' });
		const third = await poll({ event: 'messageReceived' }, afterRestart);
		expect(third.items?.map((item) => item.text)).toEqual(['Are you there?']);
	});

	it('includes recent items on the first activation when asked', async () => {
		await api('POST', '/_sandbox/incoming', { phone: '+4915100000102', text: 'before activation' });
		const result = await poll({ event: 'messageReceived', options: { lookbackMinutes: 5 } }, {});
		expect(result.items?.map((item) => item.text)).toContain('before activation');
	});

	it('narrows by chat type on the service side and skips messages sent through the API', async () => {
		const staticData: IDataObject = {};
		await poll({ event: 'messageReceived', options: { chatType: 'direct' } }, staticData);
		const groups = (await api('GET', '/chats?group=true')).chats as IDataObject[];
		await api('POST', '/_sandbox/incoming', { chat_id: groups[0].id, text: 'group message' });
		await api('POST', '/_sandbox/incoming', { phone: '+4915100000103', text: 'direct message' });
		const direct = await poll({ event: 'messageReceived', options: { chatType: 'direct' } }, staticData);
		expect(direct.items?.map((item) => item.text)).toEqual(['direct message']);
		expect(direct.requests.every((request) => !request.url.includes('/chats?') || request.url.includes('group=false'))).toBe(true);

		const filteredState: IDataObject = {};
		const unfilteredState: IDataObject = {};
		const filtered = { event: 'messageSent', options: { ignoreOwnMessages: true } };
		await poll(filtered, filteredState);
		await poll({ event: 'messageSent' }, unfilteredState);
		const sent = await api('POST', `/chats/${String(groups[0].id)}/messages`, { text: 'sent by a workflow' });
		await api('POST', `/_sandbox/messages/${String(sent.message_uid)}/status`, { status: 'delivered' });
		expect((await poll({ event: 'messageSent' }, unfilteredState)).items?.map((item) => item.message_uid)).toEqual([sent.message_uid]);
		expect((await poll(filtered, filteredState)).items).toBeNull();
	});

	it('"Fetch Test Event" returns a real sample and leaves the cursor alone', async () => {
		const staticData: IDataObject = {};
		await poll({ event: 'chatCreated' }, staticData);
		const cursor = JSON.stringify(staticData.cursor);
		const created = await api('POST', '/_sandbox/incoming', { phone: '+4915100000104', text: 'new here', name: 'Sample Chat' });
		const sample = await poll({ event: 'chatCreated' }, staticData, 'manual');
		expect(sample.items).toEqual([
			expect.objectContaining({ event_type: 'chat:created', chat_id: created.chat_id, chat_name: 'Sample Chat' }),
		]);
		expect(JSON.stringify(staticData.cursor)).toBe(cursor);
		const production = await poll({ event: 'chatCreated' }, staticData);
		expect(production.items?.map((item) => item.chat_id)).toEqual([created.chat_id]);
	});

	it('refuses an unknown event and a negative look-back, naming the parameter', async () => {
		await expect(poll({ event: 'nonsense' }, {})).rejects.toThrow(/Event/);
		await expect(poll({ event: 'messageReceived', options: { lookbackMinutes: -1 } }, {})).rejects.toThrow(/Include Items From the Last/);
	});
});

describe('inbox options', () => {
	const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

	it("batches a customer's burst: held across polls and a restart, one item once quiet, texts joined, every uid kept", async () => {
		const parameters = { event: 'messageReceived', options: { burstQuietSeconds: 3 } };
		let staticData: IDataObject = {};
		expect((await poll(parameters, staticData)).items).toBeNull();
		const a = (await api('POST', '/_sandbox/incoming', { phone: '+4915100000801', text: 'Hello', name: 'Burst Poll' })) as any;
		const b = (await api('POST', '/_sandbox/incoming', { chat_id: a.chat_id, text: 'my order is late' })) as any;
		const held = await poll(parameters, staticData);
		expect(held.items).toBeNull();
		expect((staticData.burst as IDataObject | undefined)?.chats).toHaveLength(1);
		staticData = restarted(staticData);
		await pause(3100);
		const released = await poll(parameters, staticData);
		expect(released.items).toHaveLength(1);
		expect(released.items?.[0]).toMatchObject({
			chat_id: a.chat_id,
			text: 'Hello\nmy order is late',
			message_uids: [a.message.uid, b.message.uid],
			chatInput: 'Hello\nmy order is late',
			sessionId: String(a.chat_id),
		});
		expect(staticData.burst).toBeUndefined();
		expect((await poll(parameters, staticData)).items).toBeNull();
	});

	it('skips messages of a chat assigned to a teammate, from the polled chat record', async () => {
		const parameters = { event: 'messageReceived', options: { skipAssigned: true } };
		const staticData: IDataObject = {};
		await poll(parameters, staticData);
		const teammates = ((await api('GET', '/workspace/teammates')) as any).teammates;
		const assigned = (await api('POST', '/_sandbox/incoming', {
			phone: '+4915100000802',
			text: 'for a person',
			name: 'Assigned Poll',
		})) as any;
		await api('PATCH', `/chats/${assigned.chat_id}`, { responsible: teammates[0].email });
		await api('POST', '/_sandbox/incoming', { phone: '+4915100000803', text: 'for the bot', name: 'Free Poll' });
		const run = await poll(parameters, staticData);
		expect(run.items?.map((item) => item.text)).toEqual(['for the bot']);
	});
});
