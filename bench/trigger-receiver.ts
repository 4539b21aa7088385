/**
 * The n8n trigger's webhook() behind a node:http server on loopback, as n8n's webhook server calls it: the node may
 * answer the delivery itself (its response object), else n8n answers once webhook() returns, with the node's
 * webhookResponse or its default message. Shared by the event-intake benches (events.ts, delivery-answer.ts).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { requireBuilt } from '../test/support/packages';

type TriggerModule = typeof import('../packages/n8n/nodes/ChatMessagingTrigger/ChatMessagingTrigger.node');

/** The built trigger, as n8n loads it (see contestants.ts for why not the source). */
export function builtTrigger(): InstanceType<TriggerModule['ChatMessagingTrigger']> {
	const built = requireBuilt<TriggerModule>('n8n', 'dist/nodes/ChatMessagingTrigger/ChatMessagingTrigger.node.js');
	return new built.ChatMessagingTrigger();
}

export async function readJson(request: IncomingMessage): Promise<unknown> {
	const chunks: Buffer[] = [];
	for await (const chunk of request) chunks.push(chunk as Buffer);
	return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}

/** Listens on a free loopback port; the server's base URL. */
export async function listen(server: Server): Promise<string> {
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export interface TriggerServerOptions {
	node: object;
	/** The node's parameters, as getNodeParameter(name, fallback) reads them. */
	parameter: (name: string, fallback?: unknown) => unknown;
	/** What the context adds for a trigger that calls the service (getCredentials, helpers). */
	context?: Record<string, unknown>;
	/** Called with what webhook() returned, after the delivery was answered. */
	onResult: (result: IWebhookResponseData) => void;
}

export interface TriggerServer {
	/** The webhook URL with the trigger's secret, as the subscription registers it. */
	url: string;
	/** One promise per delivery received, settled once webhook() has returned. */
	pending: Array<Promise<void>>;
	stop(): Promise<void>;
}

/** Serves `trigger.webhook()` with the context n8n gives it; its static data holds the secret the URL carries. */
export async function serveN8nTrigger(
	trigger: { webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> },
	options: TriggerServerOptions,
): Promise<TriggerServer> {
	const staticData: IDataObject = { secret: 'bench-secret' };
	const pending: Array<Promise<void>> = [];
	const server = createServer((request, response) => {
		const work = (async () => {
			const url = new URL(request.url ?? '/', 'http://localhost');
			const body = await readJson(request);
			let answered = false;
			const reply = {
				status(code: number) {
					response.statusCode = code;
					return reply;
				},
				json(payload: unknown) {
					answered = true;
					response.setHeader('content-type', 'application/json');
					response.end(JSON.stringify(payload));
					return reply;
				},
			};
			const context = {
				getNode: () => options.node,
				getWorkflow: () => ({ id: 'bench', name: 'bench', active: true }),
				getResponseObject: () => reply,
				getRequestObject: () => ({ body, query: Object.fromEntries(url.searchParams) }),
				getQueryData: () => Object.fromEntries(url.searchParams),
				getBodyData: () => body,
				getHeaderData: () => request.headers,
				getWorkflowStaticData: () => staticData,
				getMode: () => 'webhook',
				getNodeParameter: options.parameter,
				getTimezone: () => 'UTC',
				logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
				...options.context,
			};
			const result = await trigger.webhook.call(context as unknown as IWebhookFunctions);
			// n8n answers "onReceived" webhooks itself: the node's webhookResponse, or its default message.
			if (!answered) {
				response.writeHead(200, { 'content-type': 'application/json' });
				response.end(JSON.stringify(result.webhookResponse ?? { message: 'Workflow was started' }));
			}
			options.onResult(result);
		})();
		pending.push(work);
	});
	const base = await listen(server);
	return {
		url: `${base}/webhook/bench/chat-messaging?secret=bench-secret`,
		pending,
		stop: () => new Promise((resolve) => server.close(() => resolve())),
	};
}
