/**
 * Hook and webhook contexts for the trigger node, as n8n provides them: the hook context registers
 * subscriptions over real HTTP with the credential's header; the webhook context answers through an
 * express-like response object. Static data is a plain object shared between both, as n8n keeps a
 * node's static data on the workflow.
 */
import { createServer, type IncomingMessage, type Server } from 'http';
import type { AddressInfo } from 'net';
import type {
	IBinaryKeyData,
	IDataObject,
	IHookFunctions,
	IHttpRequestOptions,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { ChatMessagingTrigger } from '../../nodes/ChatMessagingTrigger/ChatMessagingTrigger.node';
import { authenticatedHttp, makeNode, plainHttp, type Credentials, type RecordedRequest } from './n8n-context';

export const trigger = new ChatMessagingTrigger();

export interface TriggerSetup {
	credentials: Credentials;
	webhookUrl: string;
	events: string[];
	staticData: IDataObject;
	workflowId?: string;
}

export function hookContext(setup: TriggerSetup) {
	const requests: RecordedRequest[] = [];
	const node = makeNode('chatMessagingTrigger', { events: setup.events });
	const http = authenticatedHttp(setup.credentials, requests, node);
	const warnings: string[] = [];
	const context = {
		getNode: () => node,
		getWorkflow: () => ({ id: setup.workflowId ?? 'wf-1', name: 'test', active: true }),
		getNodeWebhookUrl: (name: string) => (name === 'default' ? setup.webhookUrl : undefined),
		getWorkflowStaticData: (type: string) => {
			if (type !== 'node') throw new Error(`unexpected static data type ${type}`);
			return setup.staticData;
		},
		getNodeParameter: (name: string, fallback?: unknown) => (name === 'events' ? setup.events : fallback),
		getCredentials: async () => ({ ...setup.credentials }),
		getTimezone: () => 'America/New_York',
		helpers: {
			httpRequestWithAuthentication(this: unknown, type: string, request: IHttpRequestOptions) {
				return http(type, request);
			},
		},
		logger: { debug: () => undefined, info: () => undefined, warn: (message: string) => warnings.push(message), error: () => undefined },
	};
	return { context: context as unknown as IHookFunctions, requests, warnings };
}

export const lifecycle = {
	checkExists: (setup: TriggerSetup) => trigger.webhookMethods.default.checkExists.call(hookContext(setup).context),
	create: (setup: TriggerSetup) => trigger.webhookMethods.default.create.call(hookContext(setup).context),
	delete: (setup: TriggerSetup) => trigger.webhookMethods.default.delete.call(hookContext(setup).context),
};

/** What the webhook answered: n8n's own 200 when the node sent nothing itself. */
export interface WebhookAnswer {
	status: number;
	body: unknown;
	result: IWebhookResponseData;
	items: IDataObject[];
	binaries: Array<IBinaryKeyData | undefined>;
	/** The requests to the service made before the delivery was answered (undefined: n8n answered after webhook() returned). */
	requestsBeforeAnswer?: number;
	/** Every request the webhook made to the service. */
	requests: RecordedRequest[];
}

export interface Delivery {
	query: IDataObject;
	body: unknown;
	events: string[];
	staticData: IDataObject;
	workflowId?: string;
	/** Delivered to the test webhook instead of the production one. */
	test?: boolean;
	/** The trigger's other parameters (downloadAttachments). */
	parameters?: IDataObject;
	/** Credentials, for parameters that make the webhook call the service. */
	credentials?: Credentials;
	/** The request as n8n's webhook server read it: its method (default POST), headers and raw body (`req.rawBody`). */
	method?: string;
	headers?: IDataObject;
	rawBody?: Buffer;
}

export async function callWebhook(delivery: Delivery): Promise<WebhookAnswer> {
	const sent: { status?: number; body?: unknown; requestsBefore?: number; headers?: Record<string, string> } = {};
	const response = {
		status(code: number) {
			sent.status = code;
			sent.requestsBefore = requests.length;
			return response;
		},
		json(body: unknown) {
			sent.body = body;
			return response;
		},
		setHeader(name: string, value: string) {
			sent.headers = { ...sent.headers, [name]: value };
			return response;
		},
		send(body: unknown) {
			sent.body = body;
			return response;
		},
		end() {
			return response;
		},
	};
	const node = makeNode('chatMessagingTrigger', { events: delivery.events });
	const context = {
		getNode: () => node,
		getWorkflow: () => ({ id: delivery.workflowId ?? 'wf-1', name: 'test', active: true }),
		getResponseObject: () => response,
		getRequestObject: () => ({
			method: delivery.method ?? 'POST',
			headers: delivery.headers ?? {},
			body: delivery.body,
			query: delivery.query,
			...(delivery.rawBody ? { rawBody: delivery.rawBody } : {}),
		}),
		getQueryData: () => delivery.query,
		getBodyData: () => delivery.body,
		getHeaderData: () => delivery.headers ?? {},
		getWorkflowStaticData: () => delivery.staticData,
		// n8n runs test webhooks ("Listen for test event") in mode "manual", production ones in "webhook".
		getMode: () => (delivery.test ? 'manual' : 'webhook'),
		getNodeParameter: (name: string, fallback?: unknown) =>
			name === 'events' ? delivery.events : (delivery.parameters?.[name] ?? fallback),
		getCredentials: async () => ({ ...delivery.credentials }),
		getTimezone: () => 'America/New_York',
		helpers: {
			httpRequestWithAuthentication: (type: string, request: IHttpRequestOptions) =>
				authenticatedHttp(delivery.credentials ?? { baseUrl: '', apiToken: '' }, requests, node)(type, request),
			httpRequest: (request: IHttpRequestOptions) => plainHttp(requests, node)(request),
			prepareBinaryData: async (data: Buffer, fileName?: string, mimeType?: string) => ({
				data: data.toString('base64'),
				fileName,
				mimeType,
			}),
		},
		logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
	};
	const requests: RecordedRequest[] = [];
	const result = await trigger.webhook.call(context as unknown as IWebhookFunctions);
	const items = (result.workflowData?.[0] ?? []).map((item) => item.json);
	const binaries = (result.workflowData?.[0] ?? []).map((item) => item.binary);
	if (result.noWebhookResponse)
		return { status: sent.status ?? 0, body: sent.body, result, items, binaries, requestsBeforeAnswer: sent.requestsBefore, requests };
	// n8n's answer for responseMode "onReceived": the webhookResponse, or its default message, once webhook() returned.
	return { status: 200, body: result.webhookResponse ?? { message: 'Workflow was started' }, result, items, binaries, requests };
}

/**
 * A real HTTP endpoint that hands each POST to the trigger's webhook(), as n8n's webhook server
 * would, and collects the items it emits.
 */
export async function startWebhookServer(events: string[], staticData: IDataObject, workflowId: string) {
	const items: IDataObject[] = [];
	const answers: number[] = [];
	const readBody = async (request: IncomingMessage) => {
		const chunks: Buffer[] = [];
		for await (const chunk of request) chunks.push(chunk as Buffer);
		const text = Buffer.concat(chunks).toString('utf8');
		try {
			return JSON.parse(text) as unknown;
		} catch {
			return text;
		}
	};
	const server: Server = createServer((request, response) => {
		void (async () => {
			const url = new URL(request.url ?? '/', 'http://localhost');
			const answer = await callWebhook({
				query: Object.fromEntries(url.searchParams),
				body: await readBody(request),
				events,
				staticData,
				workflowId,
			});
			items.push(...answer.items);
			answers.push(answer.status);
			response.writeHead(answer.status, { 'content-type': 'application/json' });
			response.end(JSON.stringify(answer.body ?? {}));
		})();
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const port = (server.address() as AddressInfo).port;
	return {
		webhookUrl: `http://127.0.0.1:${port}/webhook/${workflowId}-trigger/chat-messaging`,
		items,
		answers,
		stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
