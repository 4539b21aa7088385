/**
 * One turn per burst (nodes/ChatMessaging/v2/actions/burst/burst.ts and the core's burstToAnswer), against the sandbox
 * over real HTTP: of a customer's three quick messages only the last one's execution goes on, with the three as
 * one item; a message sent into the chat ends a burst; Wait for Customer to Finish Typing puts the execution to
 * wait with n8n's waiting and passes its items on; bad input is refused before any request.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeHelpers } from 'n8n-workflow';
import type { IDataObject, INode, INodeExecutionData } from 'n8n-workflow';

import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';
import { ChatMessaging } from '../nodes/ChatMessaging/ChatMessaging.node';
import {
	burstProperties,
	BURST_RESOURCE,
	DEFAULT_QUIET_SECONDS,
	executeBurst,
	GET_BURST,
	QUIET_DEFAULT_VERSION,
	WAIT_FOR_QUIET,
} from '../nodes/ChatMessaging/v2/actions/burst/burst';
import { FALLBACK_AFTER_SECONDS, TRACKED_WAIT_SECONDS } from '../nodes/ChatMessaging/v2/actions/burst/wake';
import { webhookRouter } from '../nodes/ChatMessaging/v2/actions/router';
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

/** A stand-in for n8n's waiting webhooks on loopback: records each call of a resume URL and answers as scripted. */
async function resumeEndpoint(answers: Array<{ status: number; body: unknown }>) {
	const calls: Array<{ at: number; url: string; method: string }> = [];
	const server = createServer((req, res) => {
		calls.push({ at: Date.now(), url: req.url ?? '', method: req.method ?? '' });
		const answer = answers[Math.min(calls.length - 1, answers.length - 1)];
		res.writeHead(answer.status, { 'content-type': 'application/json' });
		res.end(JSON.stringify(answer.body));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return { calls, base, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Wait for Customer to Finish Typing's execute, with n8n's waiting and the execution's resume URL stood in for. */
async function waitForQuiet(
	parameters: IDataObject,
	resumeUrl: string,
	items = [{ json: { chat_id: 1, message_uid: 'a' } }],
	typeVersion = QUIET_DEFAULT_VERSION,
) {
	const { context, requests } = createExecuteContext({
		properties: properties(WAIT_FOR_QUIET),
		credentials,
		parameters,
		items,
		typeVersion,
	});
	const waits: Date[] = [];
	const warnings: string[] = [];
	const output = await executeBurst(
		{
			...context,
			putExecutionToWait: async (until: Date) => void waits.push(until),
			getWorkflowDataProxy: () => ({ $execution: { resumeUrl } }),
			logger: { ...context.logger, warn: (text: string) => void warnings.push(text) },
		} as never,
		WAIT_FOR_QUIET,
	);
	return { output, waits, warnings, requests, node: context.getNode() };
}

describe('Get Burst to Answer: Download Attachments', () => {
	it("puts the burst's files into the item's binary data, oldest first, byte-equal; off by default", async () => {
		const voice = Buffer.from(Array.from({ length: 3000 }, (_, index) => (index * 13) % 256));
		const form = new FormData();
		form.append('file', new Blob([voice], { type: 'audio/ogg' }), 'voice-note.ogg');
		const uploaded = await fetch(`${sandbox.url}/files_upload`, {
			method: 'POST',
			headers: { authorization: `Bearer ${TOKEN}` },
			body: form,
		});
		const fileUid = ((await uploaded.json()) as { data: { uid: string } }).data.uid;
		const phone = '+4915170000004';
		await customerWrites(phone, 'hi');
		const answer = (await api('POST', '/_sandbox/incoming', { phone, text: 'listen', file_uid: fileUid })) as {
			chat_id: number;
			message: { uid: string };
		};
		const item = { chat_id: answer.chat_id, message_uid: answer.message.uid };

		const withFiles = await getBurst(item, { burstDownloadAttachments: true });
		const [turn] = withFiles.items;
		// The message type is the service's to name (the sandbox names an uploaded file's by its own rules).
		expect(turn.json.attachments).toEqual([
			{ message_uid: answer.message.uid, filename: 'voice-note.ogg', message_type: expect.any(String) },
		]);
		expect(turn.binary?.attachment_0).toMatchObject({ fileName: 'voice-note.ogg', mimeType: 'audio/ogg' });
		expect(Buffer.from(String(turn.binary?.attachment_0.data), 'base64').equals(voice)).toBe(true);
		expect(Object.keys(turn.binary ?? {})).toEqual(['attachment_0']);
		// One read of the chat, then the file's link.
		expect(withFiles.requests).toHaveLength(2);

		const plain = await getBurst(item);
		expect(plain.items[0].binary).toBeUndefined();
		expect(plain.requests).toHaveLength(1);
	});
});

describe('Wait for Customer to Finish Typing', () => {
	it("waits a quiet time of a minute or more with n8n's timed wait alone (it ends on time), and calls nothing", async () => {
		const endpoint = await resumeEndpoint([{ status: 200, body: {} }]);
		try {
			const before = Date.now();
			const { waits } = await waitForQuiet({ burstQuietSeconds: TRACKED_WAIT_SECONDS }, `${endpoint.base}/webhook-waiting/9?signature=t`);
			expect(waits[0].getTime()).toBeGreaterThanOrEqual(before + TRACKED_WAIT_SECONDS * 1000);
			expect(waits[0].getTime()).toBeLessThanOrEqual(Date.now() + TRACKED_WAIT_SECONDS * 1000);
		} finally {
			await endpoint.stop();
		}
	});

	it("puts the execution to wait with n8n's waiting, ending after the quiet time and the fallback, and passes its items on", async () => {
		const items = [{ json: { chat_id: 1, message_uid: 'a' } }, { json: { chat_id: 1, message_uid: 'b' } }];
		const endpoint = await resumeEndpoint([{ status: 200, body: {} }]);
		try {
			const before = Date.now();
			const { output, waits } = await waitForQuiet({ burstQuietSeconds: 45 }, `${endpoint.base}/webhook-waiting/7?signature=t`, items);
			expect(output).toEqual([items]);
			expect(waits).toHaveLength(1);
			expect(waits[0].getTime()).toBeGreaterThanOrEqual(before + (45 + FALLBACK_AFTER_SECONDS) * 1000);
			expect(waits[0].getTime()).toBeLessThanOrEqual(Date.now() + (45 + FALLBACK_AFTER_SECONDS) * 1000);
			expect(endpoint.calls).toHaveLength(0); // the quiet time is not up yet
		} finally {
			await endpoint.stop();
		}
	});

	it("calls the execution's resume URL for this node once the quiet time is up, keeping its signature", async () => {
		const endpoint = await resumeEndpoint([{ status: 200, body: {} }]);
		try {
			const before = Date.now();
			const { node, requests } = await waitForQuiet({ burstQuietSeconds: 1 }, `${endpoint.base}/webhook-waiting/7?signature=token-7`);
			expect(endpoint.calls).toHaveLength(0);
			await waitUntil(() => endpoint.calls.length === 1);
			expect(endpoint.calls[0]).toMatchObject({ method: 'POST', url: `/webhook-waiting/7/${node.id}?signature=token-7` });
			expect(endpoint.calls[0].at).toBeGreaterThanOrEqual(before + 1000);
			await pause(300);
			expect(endpoint.calls).toHaveLength(1);
			expect(requests.every((request) => !request.authorized)).toBe(true); // the service's token never goes there
		} finally {
			await endpoint.stop();
		}
	});

	it('tries again while n8n has not saved the execution as waiting yet; stops when n8n resumed it already', async () => {
		const running = { status: 409, body: { code: 409, message: 'The execution "7" is running already.' } };
		const finished = { status: 409, body: { code: 409, message: 'The execution "7 has finished already.' } };
		const endpoint = await resumeEndpoint([running, running, { status: 200, body: {} }]);
		const late = await resumeEndpoint([finished]);
		try {
			const first = await waitForQuiet({ burstQuietSeconds: 1 }, `${endpoint.base}/webhook-waiting/7?signature=t`);
			await waitForQuiet({ burstQuietSeconds: 1 }, `${late.base}/webhook-waiting/8?signature=t`);
			await waitUntil(() => endpoint.calls.length === 3, 8000);
			await pause(1200);
			expect(endpoint.calls).toHaveLength(3);
			expect(late.calls).toHaveLength(1);
			expect(first.warnings).toEqual([]);
		} finally {
			await endpoint.stop();
			await late.stop();
		}
	});

	it("a node saved before 2.2 keeps n8n's timed wait alone: it ends after the quiet time, and no resume URL is called", async () => {
		const endpoint = await resumeEndpoint([{ status: 200, body: {} }]);
		try {
			const before = Date.now();
			const { waits } = await waitForQuiet({ burstQuietSeconds: 1 }, `${endpoint.base}/webhook-waiting/7?signature=t`, undefined, 2.1);
			expect(waits).toHaveLength(1);
			expect(waits[0].getTime()).toBeGreaterThanOrEqual(before + 1000);
			expect(waits[0].getTime()).toBeLessThanOrEqual(Date.now() + 1000);
			await pause(1500);
			expect(endpoint.calls).toHaveLength(0);
		} finally {
			await endpoint.stop();
		}
	});

	it('says so in the log, and leaves the rest to the timed wait, when n8n gives no resume URL', async () => {
		const { output, waits, warnings } = await waitForQuiet({ burstQuietSeconds: 1 }, '');
		expect(output?.[0]).toHaveLength(1);
		expect(waits).toHaveLength(1);
		expect(warnings).toEqual([expect.stringMatching(/no resume URL; it goes on when its timed wait ends/)]);
	});

	it('refuses a quiet time of 0', async () => {
		const { context } = createExecuteContext({ properties: properties(WAIT_FOR_QUIET), credentials, parameters: { burstQuietSeconds: 0 } });
		await expect(executeBurst({ ...context, putExecutionToWait: async () => undefined } as never, WAIT_FOR_QUIET)).rejects.toThrow(
			/Quiet Time \(Seconds\): must be more than 0/,
		);
	});

	it('new nodes (2.2) wait 5 quiet seconds; a node saved before keeps 30', () => {
		const versioned = new ChatMessaging();
		const saved = { resource: 'message', operation: WAIT_FOR_QUIET };
		const quiet = (typeVersion: number) => {
			const { description } = versioned.getNodeType(typeVersion);
			const node: INode = { id: 'n', name: 'Wait', type: 'chatMessaging', typeVersion, position: [0, 0], parameters: saved };
			return NodeHelpers.getNodeParameters(description.properties, saved, true, false, node, description)?.burstQuietSeconds;
		};
		expect(versioned.description.defaultVersion).toBe(QUIET_DEFAULT_VERSION);
		expect([quiet(2), quiet(2.1), quiet(2.2)]).toEqual([30, 30, DEFAULT_QUIET_SECONDS]);
		expect(DEFAULT_QUIET_SECONDS).toBe(5);
	});
});

describe("the node's waiting webhook when the quiet time is up", () => {
	const webhookContext = (operation: string, inputItems: unknown) =>
		({
			getNodeParameter: (name: string, fallback: unknown) => (name === 'operation' ? operation : fallback),
			evaluateExpression: (expression: string) => {
				expect(expression).toBe('{{ $input.all() }}');
				return inputItems;
			},
		}) as never;

	it('resumes the execution with the items the node was given', async () => {
		const binary = { attachment_0: { data: '', mimeType: 'audio/ogg', id: 'filesystem-v2:x' } };
		const given = [{ json: { chat_id: 1, message_uid: 'a' } }, { json: { chat_id: 1, message_uid: 'b' }, binary }];
		expect(await webhookRouter(webhookContext(WAIT_FOR_QUIET, given))).toEqual({
			workflowData: [
				[
					{ json: { chat_id: 1, message_uid: 'a' }, pairedItem: { item: 0 } },
					{ json: { chat_id: 1, message_uid: 'b' }, binary, pairedItem: { item: 1 } },
				],
			],
		});
	});

	it('leaves the execution waiting when n8n gives no items', async () => {
		expect(await webhookRouter(webhookContext(WAIT_FOR_QUIET, undefined))).toEqual({
			webhookResponse: { status: 'ok', ignored: 'no items to go on with' },
		});
	});
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function waitUntil(condition: () => boolean, timeoutMs = 5000): Promise<void> {
	const until = Date.now() + timeoutMs;
	while (!condition()) {
		if (Date.now() > until) throw new Error('timed out');
		await pause(50);
	}
}
