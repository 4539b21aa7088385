/**
 * One way in: the same forged, malformed, oversized and repeated deliveries sent to the three integrations through
 * their real entry points (the n8n trigger's webhook() as n8n calls it, the Node-RED event node's route over real
 * HTTP, the chat adapter's handleWebhook with a Request) get the same answers, status and body, word for word.
 */
import { request as httpRequest } from 'node:http';

import type { IDataObject } from 'n8n-workflow';

import { callWebhook } from '../packages/n8n/test/support/trigger-context';
import {
	credentialsFor,
	eventNodeFlow,
	eventNodeTestHooks,
	helper,
	nodesUnderTest,
	sandboxData,
	waitFor,
} from '../packages/node-red/test/support';
import type { NodeHttp, Sandbox } from '../packages/node-red/test/support';
import { startBot, type TestBot } from '../packages/chat-adapter/test/support';

const TOKEN = 'delivery-answers-token-41c7';
const N8N_SECRET = 'a1'.repeat(24);
const CHOSEN = ['message:received:new'];

/** What one integration answered: its status and its body (JSON read, else the text). */
interface Answer {
	status: number;
	body: unknown;
}

/** A delivery as sent: its method, which secret its URL carries, its body and its content type. */
interface Delivery {
	method: string;
	secret: 'right' | 'wrong' | 'none';
	body?: string;
	contentType?: string;
}

const delivery = (event_type: string, uid: string) =>
	JSON.stringify({ event_type, data: { chat_id: 7, chat_name: 'Ada', text: 'hello', message_uid: uid } });

/** The bad deliveries, in the order they are sent (the repeat follows its first delivery). */
const CASES: Array<[string, Delivery]> = [
	['a first delivery', { method: 'POST', secret: 'right', body: delivery('message:received:new', 'ONE-1') }],
	['the same delivery again', { method: 'POST', secret: 'right', body: delivery('message:received:new', 'ONE-1') }],
	['a wrong secret', { method: 'POST', secret: 'wrong', body: delivery('message:received:new', 'FORGED-1') }],
	['no secret', { method: 'POST', secret: 'none', body: delivery('message:received:new', 'FORGED-2') }],
	['GET', { method: 'GET', secret: 'right' }],
	['a body that is not JSON', { method: 'POST', secret: 'right', body: 'not json {' }],
	['JSON that is no delivery', { method: 'POST', secret: 'right', body: JSON.stringify({ data: { chat_id: 1 } }) }],
	['a body over 1 MB', { method: 'POST', secret: 'right', body: delivery('message:received:new', 'x'.repeat(1024 * 1024 + 1)) }],
	['an event type not chosen', { method: 'POST', secret: 'right', body: delivery('chat:closed', 'CLOSED-1') }],
];

const readBody = (text: string): unknown => {
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
};

/** The n8n trigger's webhook(), given the request as n8n's webhook server hands it over (raw body and parsed body). */
function n8nAnswer(staticData: IDataObject) {
	return async (sent: Delivery): Promise<Answer> => {
		const raw = sent.body === undefined ? undefined : Buffer.from(sent.body);
		const answer = await callWebhook({
			method: sent.method,
			query: sent.secret === 'none' ? {} : { secret: sent.secret === 'right' ? N8N_SECRET : 'b2'.repeat(24) },
			headers: { 'content-type': sent.contentType ?? 'application/json', ...(raw ? { 'content-length': String(raw.length) } : {}) },
			body: sent.body === undefined ? {} : readBody(sent.body),
			rawBody: raw,
			events: CHOSEN,
			staticData,
			workflowId: 'delivery-answers',
		});
		return { status: answer.status, body: answer.body };
	};
}

/** A POST or GET over real HTTP; an answer that comes before the whole body was sent is still read. */
function httpAnswer(url: string, sent: Delivery): Promise<Answer> {
	return new Promise((resolve, reject) => {
		const body = sent.body === undefined ? undefined : Buffer.from(sent.body);
		const request = httpRequest(url, {
			method: sent.method,
			headers: body ? { 'content-type': sent.contentType ?? 'application/json', 'content-length': body.length } : {},
		});
		request.on('response', (response) => {
			const chunks: Buffer[] = [];
			response.on('data', (chunk: Buffer) => chunks.push(chunk));
			response.on('end', () => resolve({ status: response.statusCode ?? 0, body: readBody(Buffer.concat(chunks).toString('utf8')) }));
		});
		request.on('error', (error) => (request.writableEnded ? undefined : reject(error)));
		request.end(body);
	});
}

/** The chat adapter's handleWebhook, given the Request the bot's route makes. */
async function chatAdapterAnswer(testBot: TestBot, sent: Delivery): Promise<Answer> {
	const url = new URL(await testBot.adapter.webhookUrl());
	if (sent.secret === 'wrong') url.searchParams.set('secret', 'c3'.repeat(24));
	if (sent.secret === 'none') url.searchParams.delete('secret');
	const response = await testBot.adapter.handleWebhook(
		new Request(url, {
			method: sent.method,
			headers: sent.body === undefined ? {} : { 'content-type': sent.contentType ?? 'application/json' },
			body: sent.body,
		}),
	);
	return { status: response.status, body: readBody(await response.text()) };
}

let sandbox: Sandbox;
let nodeHttp: NodeHttp;
eventNodeTestHooks(TOKEN, (started, http) => {
	sandbox = started;
	nodeHttp = http;
});

it('the three integrations answer each bad delivery alike', async () => {
	const answers: Record<string, Record<string, Answer>> = {};
	const record = (integration: string, name: string, answer: Answer) => ((answers[name] ??= {})[integration] = answer);

	const n8n = n8nAnswer({ secret: N8N_SECRET });
	for (const [name, sent] of CASES) record('n8n', name, await n8n(sent));

	await helper.load(nodesUnderTest as never, eventNodeFlow(sandbox, nodeHttp.url, { events: CHOSEN }), credentialsFor(TOKEN));
	const hooks = await waitFor('the event node subscribed', async () => {
		const list = (await sandboxData(sandbox, '/webhooks')).webhooks as Array<{ url: string }>;
		return list.length === 1 && list;
	});
	const nodeUrl = hooks[0].url;
	const nodePrefix = nodeUrl.slice(0, nodeUrl.lastIndexOf('/') + 1);
	for (const [name, sent] of CASES) {
		const url = sent.secret === 'right' ? nodeUrl : sent.secret === 'wrong' ? `${nodePrefix}${'d4'.repeat(24)}` : nodePrefix;
		record('node-red', name, await httpAnswer(url, sent));
	}

	const testBot = await startBot({ baseUrl: sandbox.url, token: TOKEN, subscribe: false });
	try {
		for (const [name, sent] of CASES) record('chat-adapter', name, await chatAdapterAnswer(testBot, sent));
	} finally {
		await testBot.stop();
	}

	const rows = Object.entries(answers).map(([name, byIntegration]) =>
		[
			name,
			...['n8n', 'node-red', 'chat-adapter'].map((integration) => {
				const answer = byIntegration[integration];
				return `${answer.status} ${typeof answer.body === 'string' ? answer.body.slice(0, 80) : JSON.stringify(answer.body)}`;
			}),
		].join(' | '),
	);
	if (process.env.DELIVERY_ANSWERS_TABLE) console.log(rows.join('\n'));
	for (const [name, byIntegration] of Object.entries(answers)) {
		expect({ name, answer: byIntegration['node-red'] }).toEqual({ name, answer: byIntegration.n8n });
		expect({ name, answer: byIntegration['chat-adapter'] }).toEqual({ name, answer: byIntegration.n8n });
	}
	// What the three agree on, written out: the service reads the status (2xx or a retry), a person the words.
	const error = (status: number, message: string) => ({ status, body: { status: 'error', message } });
	expect(Object.fromEntries(Object.entries(answers).map(([name, byIntegration]) => [name, byIntegration.n8n]))).toEqual({
		'a first delivery': { status: 200, body: { status: 'ok' } },
		'the same delivery again': { status: 200, body: { status: 'ok', duplicate: true } },
		'a wrong secret': error(401, 'Unauthorized: missing or wrong secret'),
		'no secret': error(401, 'Unauthorized: missing or wrong secret'),
		GET: error(405, 'Method not allowed: deliveries are POST requests'),
		'a body that is not JSON': error(400, 'Malformed delivery: the body is not JSON'),
		'JSON that is no delivery': error(400, 'Malformed delivery: the body must hold a string event_type'),
		'a body over 1 MB': error(413, 'Payload too large: a delivery is at most 1048576 bytes'),
		'an event type not chosen': { status: 200, body: { status: 'ok', ignored: 'event chat:closed is not chosen here' } },
	});
});
