/**
 * Send and Wait for Response (nodes/ChatMessaging/v2/sendAndWait.ts), n8n's standard `sendAndWait`, in
 * the contexts n8n gives it, against the sandbox over real HTTP: the message goes out with n8n's signed
 * resume URLs as its links and the execution waits; the links' webhook answers as a person expects
 * (approval, or the free-text form and its submission) and a link preview never answers; bad input is
 * refused before any request. The node's description qualifying as n8n's human-in-the-loop tool is
 * checked by n8n's own rule.
 */
import { SEND_AND_WAIT_OPERATION, WAIT_INDEFINITELY } from 'n8n-workflow';
import type { IDataObject, INodeExecutionData, INodeProperties, IWebhookFunctions } from 'n8n-workflow';

import { ChatMessaging } from '../nodes/ChatMessaging/ChatMessaging.node';
import { executeSendAndWait, sendAndWaitProperties, sendAndWaitWebhookAnswer } from '../nodes/ChatMessaging/v2/sendAndWait';
import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';
import { createExecuteContext, makeNode, type Credentials } from './support/n8n-context';
import { sandboxCall } from './support/run-action';

const TOKEN = 'send-and-wait-response-token';
let sandbox: RunningSandbox;
let credentials: Credentials;
const api = (method: string, path: string, body?: unknown) => sandboxCall(sandbox.url, TOKEN, method, path, body);
const properties: INodeProperties[] = [
	{ displayName: 'Resource', name: 'resource', type: 'hidden', default: 'message' },
	{ displayName: 'Operation', name: 'operation', type: 'hidden', default: SEND_AND_WAIT_OPERATION },
	...sendAndWaitProperties(),
];
const RESUME = 'http://127.0.0.1:5678/webhook-waiting/77/hitl-node-1';

beforeAll(async () => {
	sandbox = await startSandbox({ tokens: [TOKEN], seed: 4, chats: 8, paceMs: 10, deliveredAfterMs: 0, readAfterMs: 0 });
	credentials = { baseUrl: sandbox.url, apiToken: TOKEN };
});
afterAll(async () => sandbox?.stop());

/** A dotted parameter path (`approvalOptions.values`) read as n8n reads it. */
function dotted(read: (name: string) => unknown, path: string): unknown {
	const [head, ...rest] = path.split('.');
	let value = read(head);
	for (const key of rest) value = value && typeof value === 'object' ? (value as IDataObject)[key] : undefined;
	return value;
}

/** Runs execute() as n8n does: signed resume URLs from the node's id, the wait recorded. */
async function execute(parameters: IDataObject, items?: INodeExecutionData[]) {
	const { context, requests } = createExecuteContext({ properties, credentials, parameters, items, typeVersion: 2.1 });
	const read = context.getNodeParameter.bind(context);
	const waits: Date[] = [];
	const extended = Object.assign(context, {
		getNodeParameter: (name: string, itemIndex: number, fallback?: unknown) => {
			const value = dotted((part) => read(part, itemIndex, null), name);
			return value === undefined || value === null ? fallback : value;
		},
		getSignedResumeUrl: (query: Record<string, string>) => `${RESUME}?${new URLSearchParams(query)}&signature=signed-${query.approved}`,
		putExecutionToWait: async (until: Date) => {
			waits.push(until);
		},
	});
	const output = await executeSendAndWait(extended as never).catch((error: unknown) => error as Error);
	return { output, requests, waits };
}

/** A request at one of the links, as n8n's waiting webhook hands it to the node. */
function answer(parameters: IDataObject, request: { method: string; query?: IDataObject; body?: IDataObject; agent?: string }) {
	const values = { responseType: 'approval', ...parameters };
	return sendAndWaitWebhookAnswer({
		getNode: () => makeNode('chatMessaging', values),
		getNodeParameter: (name: string, fallback?: unknown) => dotted((part) => (values as IDataObject)[part], name) ?? fallback,
		getRequestObject: () => ({ method: request.method, headers: request.agent === undefined ? {} : { 'user-agent': request.agent } }),
		getQueryData: () => request.query ?? {},
		getBodyData: () => request.body ?? {},
	} as unknown as IWebhookFunctions);
}

const lastText = async (chatId: unknown): Promise<string> => {
	const messages = (await api('GET', `/chats/${String(chatId)}/messages`)).messages as Array<{ text: string }>;
	return messages.map((message) => message.text).find((text) => text?.includes(RESUME)) ?? '';
};
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

describe('sending and waiting', () => {
	it('Approval (approve and disapprove) to a chat: the signed links in the text, waits without a limit, outputs the input items', async () => {
		const chat = ((await api('GET', '/chats?group=false')).chats as IDataObject[])[0];
		const { output, waits } = await execute({
			sendTo: 'chat',
			chat_id: { mode: 'id', value: String(chat.id) },
			message: 'Refund order 1182?',
			approvalOptions: { values: { approvalType: 'double', disapproveLabel: 'No refund' } },
		});
		expect(output).toEqual([[{ json: {} }]]);
		expect(waits).toEqual([WAIT_INDEFINITELY]);
		expect(await lastText(chat.id)).toBe(
			`Refund order 1182?\n\nApprove: ${RESUME}?approved=true&signature=signed-true\nNo refund: ${RESUME}?approved=false&signature=signed-false`,
		);
	});

	it('Free Text to a phone number: the form link with its label; Limit Wait Time sets the wait', async () => {
		const chat = ((await api('GET', '/chats?group=false')).chats as IDataObject[])[1];
		const startedAt = Date.now();
		const { waits } = await execute({
			sendTo: 'phone',
			phone: String(chat.phone),
			message: 'Which day suits you?',
			responseType: 'freeText',
			options: {
				messageButtonLabel: 'Answer here',
				limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 2, resumeUnit: 'minutes' } },
			},
		});
		expect(await lastText(chat.id)).toBe(`Which day suits you?\n\nAnswer here: ${RESUME}?approved=true&signature=signed-true`);
		expect(waits[0].getTime() - startedAt).toBeGreaterThanOrEqual(120_000);
		expect(waits[0].getTime() - startedAt).toBeLessThan(130_000);
	});

	it.each([
		[{ sendTo: 'chat', chat_id: { mode: 'id', value: '1' }, message: '  ' }, /^Message: is required/],
		[{ sendTo: 'phone', phone: '+49 151', message: 'x' }, /^Phone Number: /],
		[
			{ sendTo: 'chat', chat_id: { mode: 'id', value: '1' }, message: 'x', approvalOptions: { values: { approvalType: 'maybe' } } },
			/^Type of Approval: /,
		],
	])('refuses %j before any request and without waiting', async (parameters, expected) => {
		const { output, requests, waits } = await execute(parameters);
		expect((output as Error).message).toMatch(expected);
		expect(requests).toEqual([]);
		expect(waits).toEqual([]);
	});

	it('refuses more than one input item: n8n resumes an execution once', async () => {
		const { output, requests } = await execute({ sendTo: 'phone', phone: '+4915112345678', message: 'x' }, [{ json: {} }, { json: {} }]);
		expect((output as Error).message).toMatch(/one response per execution, but got 2 input items/);
		expect(requests).toEqual([]);
	});
});

describe("the links' webhook", () => {
	it("Approval: a person opening a link answers with the link's choice, as n8n's send-and-wait outputs it", async () => {
		const approved = await answer({}, { method: 'GET', query: { approved: 'true' }, agent: BROWSER });
		expect(approved.workflowData?.[0]?.[0]?.json).toEqual({ data: { approved: true, respondedAt: expect.any(String) } });
		expect(String(approved.webhookResponse)).toContain('Got it, thanks');
		const declined = await answer({}, { method: 'GET', query: { approved: 'false' }, agent: BROWSER });
		expect(declined.workflowData?.[0]?.[0]?.json).toMatchObject({ data: { approved: false } });
	});

	it.each([['WhatsApp/2.23.20.0'], ['TelegramBot (like TwitterBot)'], ['Slackbot-LinkExpanding 1.0'], ['']])(
		'a link preview (%j) does not answer: it gets a page whose button (POST) does',
		async (agent) => {
			const preview = await answer({}, { method: 'GET', query: { approved: 'true' }, agent });
			expect(preview.workflowData).toBeUndefined();
			expect(String(preview.webhookResponse)).toContain('<form method="post">');
			const confirmed = await answer({}, { method: 'POST', query: { approved: 'true' }, agent });
			expect(confirmed.workflowData?.[0]?.[0]?.json).toMatchObject({ data: { approved: true } });
		},
	);

	it('Free Text: GET shows the form (escaped), a blank answer shows it again, the answer resumes with the text', async () => {
		const parameters = { responseType: 'freeText', message: 'Which <b>day</b>?', options: { responseFormTitle: 'Delivery' } };
		const form = await answer(parameters, { method: 'GET', agent: BROWSER });
		expect(form.workflowData).toBeUndefined();
		expect(String(form.webhookResponse)).toContain('<h1>Delivery</h1>');
		expect(String(form.webhookResponse)).toContain('Which &#60;b&#62;day&#60;/b&#62;?');
		expect(String(form.webhookResponse)).toContain('<textarea id="response" name="response" required>');
		const blank = await answer(parameters, { method: 'POST', body: { response: '  ' }, agent: BROWSER });
		expect(blank.workflowData).toBeUndefined();
		expect(String(blank.webhookResponse)).toContain('Please write a response');
		const answered = await answer(parameters, { method: 'POST', body: { response: 'Friday after 5' }, agent: BROWSER });
		expect(answered.workflowData?.[0]?.[0]?.json).toEqual({ data: { text: 'Friday after 5', respondedAt: expect.any(String) } });
	});
});

describe('the action node', () => {
	const node = new ChatMessaging();
	const description = (version: number) => node.nodeVersions[version].description;
	const operationValues = (version: number, resource: string) =>
		(description(version).properties.find(
			(property) => property.name === 'operation' && property.displayOptions?.show?.resource?.includes(resource),
		)?.options ?? []) as Array<{ value: string }>;

	it("version 2.x offers sendAndWait as n8n's human-in-the-loop tools look for it: the operation value, webhooks, a resource", () => {
		for (const version of [2, 2.1]) {
			expect(operationValues(version, 'message').map((option) => option.value)).toContain(SEND_AND_WAIT_OPERATION);
			expect(description(version).webhooks).toEqual([
				// responseData '': n8n answers with the page webhook() returns.
				expect.objectContaining({ httpMethod: 'GET', path: '={{ $nodeId }}', restartWebhook: true, isFullPath: true, responseData: '' }),
				expect.objectContaining({ httpMethod: 'POST', path: '={{ $nodeId }}', restartWebhook: true, isFullPath: true, responseData: '' }),
			]);
			const names = description(version).properties.filter((property) =>
				property.displayOptions?.show?.operation?.includes(SEND_AND_WAIT_OPERATION),
			);
			expect(names.map((property) => property.name)).toEqual(
				expect.arrayContaining(['sendTo', 'phone', 'chat_id', 'chat_name', 'jid', 'message', 'responseType', 'approvalOptions', 'options']),
			);
		}
	});

	it('version 1 stays as it was: no webhooks, no sendAndWait', () => {
		expect(description(1).webhooks).toBeUndefined();
		for (const resource of ['message', 'chat'])
			expect(operationValues(1, resource).map((option) => option.value)).not.toContain(SEND_AND_WAIT_OPERATION);
	});

	it("webhook() answers Send and Wait for Response's links by the node's operation", async () => {
		const context = {
			getNode: () => makeNode('chatMessaging', {}),
			getNodeParameter: (name: string, fallback?: unknown) =>
				({ operation: SEND_AND_WAIT_OPERATION, responseType: 'approval' })[name] ?? fallback,
			getRequestObject: () => ({ method: 'GET', headers: { 'user-agent': BROWSER } }),
			getQueryData: () => ({ approved: 'true' }),
			getBodyData: () => ({}),
		} as unknown as IWebhookFunctions;
		const answered = await node.nodeVersions[2.1].webhook!.call(context);
		expect(answered.workflowData?.[0]?.[0]?.json).toMatchObject({ data: { approved: true } });
	});
});
