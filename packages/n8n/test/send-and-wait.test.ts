/**
 * Send and Wait for Response (nodes/ChatMessaging/v2/actions/sendAndWait/), n8n's standard `sendAndWait`, in
 * the contexts n8n gives it, against the sandbox over real HTTP: the message goes out with n8n's signed
 * resume URLs as its links, each wait's own id in them, and the execution waits; the links' webhook
 * answers only a POST from the page a link opens (approval, or the free-text form), for the wait the
 * link was sent for: a GET never answers, whoever sends it, and a link of an earlier wait or a second
 * answer changes nothing; bad input is refused before any request. The node's description qualifying
 * as n8n's human-in-the-loop tool is checked by n8n's own rule.
 */
import { SEND_AND_WAIT_OPERATION, WAIT_INDEFINITELY } from 'n8n-workflow';
import type { IDataObject, INodeExecutionData, INodeProperties, IWebhookFunctions } from 'n8n-workflow';

import { ChatMessaging } from '../nodes/ChatMessaging/ChatMessaging.node';
import { sendAndWaitProperties } from '../nodes/ChatMessaging/v2/actions/sendAndWait/description';
import { executeSendAndWait } from '../nodes/ChatMessaging/v2/actions/sendAndWait/execute';
import { sendAndWaitWebhookAnswer } from '../nodes/ChatMessaging/v2/actions/sendAndWait/webhook';
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
/** The execution's custom data key the node keeps its wait under (what n8n shows as the execution's custom data). */
const WAIT_KEY = 'chatMessagingWait';

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

/** The execution's custom data as n8n keeps it (at most 10 keys; a key past them is dropped, as outside manual runs). */
function customDataStore(entries: Record<string, string> = {}) {
	const data = new Map(Object.entries(entries));
	return {
		data,
		set: (key: string, value: string) => {
			if (data.has(key) || data.size < 10) data.set(key, String(value).slice(0, 512));
		},
		get: (key: string) => data.get(key),
	};
}
type CustomData = ReturnType<typeof customDataStore>;

/** Runs execute() as n8n does: signed resume URLs from the node's id, the wait recorded. */
async function execute(parameters: IDataObject, items?: INodeExecutionData[], customData: CustomData = customDataStore()) {
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
		customData,
	});
	const output = await executeSendAndWait(extended as never).catch((error: unknown) => error as Error);
	return { output, requests, waits, customData };
}

interface LinkRequest {
	method: 'GET' | 'POST';
	/** The link's query (n8n hands the node the query of the signed link). */
	query?: IDataObject;
	body?: IDataObject;
	headers?: Record<string, string>;
}

/** A request at one of the links, as n8n's waiting webhook hands it to the node; `status` is what the response object was told. */
function answer(parameters: IDataObject, request: LinkRequest, customData: CustomData = customDataStore()) {
	const values = { responseType: 'approval', ...parameters };
	const sent: { status?: number; body?: string } = {};
	const response = {
		status: (code: number) => {
			sent.status = code;
			return response;
		},
		send: (body: string) => {
			sent.body = body;
			return response;
		},
	};
	const result = sendAndWaitWebhookAnswer({
		getNode: () => makeNode('chatMessaging', values),
		getNodeParameter: (name: string, fallback?: unknown) => dotted((part) => (values as IDataObject)[part], name) ?? fallback,
		getRequestObject: () => ({ method: request.method, headers: { host: '127.0.0.1:5678', ...request.headers } }),
		getResponseObject: () => response,
		getQueryData: () => request.query ?? {},
		getBodyData: () => request.body ?? {},
		customData,
	} as unknown as IWebhookFunctions);
	const html = String(result.webhookResponse ?? sent.body ?? '');
	return { result, html, status: sent.status ?? 200, answered: result.workflowData?.[0]?.[0]?.json };
}

/** A link's query, as n8n parses it for the webhook (the signature left out: n8n checks it before). */
const queryOf = (link: string): IDataObject => {
	const query = Object.fromEntries(new URL(link).searchParams);
	delete query.signature;
	return query;
};
/** The hidden form token of a page (what a person's browser posts back with the button). */
const formTokenOf = (html: string): string | undefined => /name="formToken" value="([^"]*)"/.exec(html)?.[1];

const lastText = async (chatId: unknown): Promise<string> => {
	const messages = (await api('GET', `/chats/${String(chatId)}/messages`)).messages as Array<{ text: string }>;
	return messages.map((message) => message.text).find((text) => text?.includes(RESUME)) ?? '';
};
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

describe('sending and waiting', () => {
	it('Approval (approve and disapprove) to a chat: the signed links in the text, waits without a limit, outputs the input items', async () => {
		const chat = ((await api('GET', '/chats?group=false')).chats as IDataObject[])[0];
		const { output, waits, customData } = await execute({
			sendTo: 'chat',
			chat_id: { mode: 'id', value: String(chat.id) },
			message: 'Refund order 1182?',
			approvalOptions: { values: { approvalType: 'double', disapproveLabel: 'No refund' } },
		});
		expect(output).toEqual([[{ json: {} }]]);
		expect(waits).toEqual([WAIT_INDEFINITELY]);
		const wait = JSON.parse(String(customData.get(WAIT_KEY))) as { id: string; formToken: string; host: string };
		expect(wait).toEqual({
			id: expect.stringMatching(/^[0-9a-f]{32}$/),
			formToken: expect.stringMatching(/^[0-9a-f]{32}$/),
			host: '127.0.0.1:5678',
		});
		const text = await lastText(chat.id);
		expect(text).toBe(
			`Refund order 1182?\n\nApprove: ${RESUME}?approved=true&wait=${wait.id}&signature=signed-true\nNo refund: ${RESUME}?approved=false&wait=${wait.id}&signature=signed-false`,
		);
		// The form token is only ever in the page a link opens, never in the message.
		expect(text).not.toContain(wait.formToken);
	});

	it('each wait has its own id: two waits of one node in one execution (a loop) get different links', async () => {
		const customData = customDataStore({ userKey: 'kept' });
		const parameters = { sendTo: 'phone', phone: '+4915112345678', message: 'Ship it?' };
		await execute(parameters, undefined, customData);
		const first = JSON.parse(String(customData.get(WAIT_KEY))) as { id: string; formToken: string };
		await execute(parameters, undefined, customData);
		const second = JSON.parse(String(customData.get(WAIT_KEY))) as { id: string; formToken: string };
		expect(second.id).not.toBe(first.id);
		expect(second.formToken).not.toBe(first.formToken);
		expect(customData.data.size).toBe(2);
		expect(customData.get('userKey')).toBe('kept');
	});

	it("refuses before any request when n8n would not keep the wait (the execution's 10 custom data keys taken)", async () => {
		const full = customDataStore(Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`key${index}`, 'x'])));
		const { output, requests, waits } = await execute({ sendTo: 'phone', phone: '+4915112345678', message: 'x' }, undefined, full);
		expect((output as Error).message).toMatch(/custom data/);
		expect(requests).toEqual([]);
		expect(waits).toEqual([]);
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
		expect(await lastText(chat.id)).toMatch(
			new RegExp(
				`^Which day suits you\\?\n\nAnswer here: ${RESUME.replace(/[.?]/g, '\\$&')}\\?approved=true&wait=[0-9a-f]{32}&signature=signed-true$`,
			),
		);
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
	/** A wait as execute() leaves it: its links (from the message sent) and the execution's custom data. */
	async function waiting(parameters: IDataObject = {}, customData: CustomData = customDataStore()) {
		const chat = ((await api('GET', '/chats?group=false')).chats as IDataObject[])[2];
		const all = {
			sendTo: 'chat',
			chat_id: { mode: 'id', value: String(chat.id) },
			message: `Refund order ${Math.random()}?`,
			...parameters,
		};
		const { output } = await execute(all, undefined, customData);
		expect(output).toEqual([[{ json: {} }]]);
		const lines = (await lastText(chat.id)).split('\n');
		const link = (label: string) => lines.find((line) => line.startsWith(`${label}: `))!.slice(label.length + 2);
		return { customData, link, values: all };
	}

	it.each([
		['a browser', BROWSER],
		['curl', 'curl/8.5.0'],
		['python-requests', 'python-requests/2.31.0'],
		['Go-http-client', 'Go-http-client/1.1'],
		['a headless browser', 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36'],
		['Iframely', 'Iframely/1.3.1 (+https://iframely.com/docs/about)'],
		['Google-PageRenderer', 'Mozilla/5.0 (compatible; Google-PageRenderer Google (+https://developers.google.com/+/web/snippet/))'],
		['Viber', 'Viber/20.3.0'],
		['Slackbot', 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)'],
		['facebookexternalhit', 'facebookexternalhit/1.1'],
		['no user agent', undefined],
	])('a GET from %s never answers: it gets the page, whose button answers', async (_who, agent) => {
		const { customData, link, values } = await waiting({ approvalOptions: { values: { approveLabel: 'Refund' } } });
		const opened = answer(
			values,
			{ method: 'GET', query: queryOf(link('Refund')), headers: agent ? { 'user-agent': agent } : {} },
			customData,
		);
		expect(opened.answered).toBeUndefined();
		expect(opened.status).toBe(200);
		expect(opened.html).toContain('<h1>Refund?</h1>');
		expect(opened.html).toContain(`<p>${String(values.message)}</p>`);
		expect(opened.html).toMatch(
			/<form method="post"><input type="hidden" name="formToken" value="[0-9a-f]{32}"><button type="submit">Refund<\/button><\/form>/,
		);
		const clicked = answer(
			values,
			{ method: 'POST', query: queryOf(link('Refund')), body: { formToken: formTokenOf(opened.html) } },
			customData,
		);
		expect(clicked.answered).toEqual({ data: { approved: true, respondedAt: expect.any(String) } });
		expect(clicked.html).toContain('Got it, thanks');
	});

	it("the decline link's button declines", async () => {
		const { customData, link, values } = await waiting({ approvalOptions: { values: { approvalType: 'double' } } });
		const opened = answer(values, { method: 'GET', query: queryOf(link('Decline')) }, customData);
		expect(opened.html).toContain('<h1>Decline?</h1>');
		const clicked = answer(
			values,
			{ method: 'POST', query: queryOf(link('Decline')), body: { formToken: formTokenOf(opened.html) } },
			customData,
		);
		expect(clicked.answered).toMatchObject({ data: { approved: false } });
	});

	it.each([
		['without the form token', {}],
		['with another token', { formToken: 'f'.repeat(32) }],
		['with the wait id as token', 'wait id'],
	])('a POST to the link %s (not from its page) answers nothing and says so', async (_case, body) => {
		const { customData, link, values } = await waiting();
		const query = queryOf(link('Approve'));
		const posted = answer(
			values,
			{ method: 'POST', query, body: body === 'wait id' ? { formToken: String(query.wait) } : body },
			customData,
		);
		expect(posted.answered).toBeUndefined();
		expect(posted.status).toBe(403);
		expect(posted.html).toContain('Nothing was changed');
	});

	it("a POST whose browser names another site as origin answers nothing; the page's own origin, or null (n8n's sandboxed page), answers", async () => {
		const { customData, link, values } = await waiting();
		const query = queryOf(link('Approve'));
		const formToken = formTokenOf(answer(values, { method: 'GET', query }, customData).html);
		const post = (origin: string) => answer(values, { method: 'POST', query, body: { formToken }, headers: { origin } }, customData);
		expect(post('https://attacker.example')).toMatchObject({ status: 403, answered: undefined });
		expect(post('http://127.0.0.1:5678.attacker.example')).toMatchObject({ status: 403, answered: undefined });
		expect(post('null').answered).toMatchObject({ data: { approved: true } });
		expect(post('http://127.0.0.1:5678').answered).toMatchObject({ data: { approved: true } });
	});

	it("a link of an earlier wait of the node (a loop) answers nothing: not the page, not the button; the current wait's link does", async () => {
		const customData = customDataStore();
		const first = await waiting({}, customData);
		const firstQuery = queryOf(first.link('Approve'));
		const firstToken = formTokenOf(answer(first.values, { method: 'GET', query: firstQuery }, customData).html);
		const second = await waiting({}, customData);
		const secondQuery = queryOf(second.link('Approve'));
		expect(secondQuery.wait).not.toBe(firstQuery.wait);

		const late = answer(second.values, { method: 'POST', query: firstQuery, body: { formToken: firstToken } }, customData);
		expect(late).toMatchObject({ status: 410, answered: undefined });
		expect(late.html).toContain('This link is no longer valid');
		const lateOpen = answer(second.values, { method: 'GET', query: firstQuery }, customData);
		expect(lateOpen).toMatchObject({ status: 410, answered: undefined });
		// The first wait's page token does not answer the second wait either, even through the second wait's link.
		expect(answer(second.values, { method: 'POST', query: secondQuery, body: { formToken: firstToken } }, customData)).toMatchObject({
			status: 403,
			answered: undefined,
		});
		const token = formTokenOf(answer(second.values, { method: 'GET', query: secondQuery }, customData).html);
		expect(answer(second.values, { method: 'POST', query: secondQuery, body: { formToken: token } }, customData).answered).toMatchObject({
			data: { approved: true },
		});
	});

	it('a wait begun before waits had ids (links without one) still answers by its button, never by a GET; a link with an id it never had does not', async () => {
		const legacy = { approved: 'true' };
		const opened = answer({}, { method: 'GET', query: legacy, headers: { 'user-agent': BROWSER } });
		expect(opened.answered).toBeUndefined();
		expect(opened.html).toContain('<form method="post"><button type="submit">Approve</button></form>');
		expect(answer({}, { method: 'POST', query: legacy }).answered).toMatchObject({ data: { approved: true } });
		expect(answer({}, { method: 'POST', query: { ...legacy, wait: 'a'.repeat(32) } })).toMatchObject({ status: 410, answered: undefined });
		// And with ids, a link without one is of an earlier wait.
		const withIds = customDataStore({
			[WAIT_KEY]: JSON.stringify({ id: 'b'.repeat(32), formToken: 'c'.repeat(32), host: '127.0.0.1:5678' }),
		});
		expect(answer({}, { method: 'POST', query: legacy, body: { formToken: 'c'.repeat(32) } }, withIds)).toMatchObject({
			status: 410,
			answered: undefined,
		});
	});

	it('a wait whose custom data is not one this node stored answers nothing', async () => {
		const odd = customDataStore({ [WAIT_KEY]: 'not a wait' });
		expect(answer({}, { method: 'POST', query: { approved: 'true' } }, odd)).toMatchObject({ status: 409, answered: undefined });
	});

	it('Free Text: GET shows the form (escaped) with its token, a blank answer shows it again, the answer resumes with the text; only from the form', async () => {
		const { customData, link, values } = await waiting({
			responseType: 'freeText',
			message: 'Which <b>day</b>?',
			options: { responseFormTitle: 'Delivery' },
		});
		const query = queryOf(link('Respond'));
		const form = answer(values, { method: 'GET', query, headers: { 'user-agent': 'curl/8.5.0' } }, customData);
		expect(form.answered).toBeUndefined();
		expect(form.html).toContain('<h1>Delivery</h1>');
		expect(form.html).toContain('Which &#60;b&#62;day&#60;/b&#62;?');
		expect(form.html).toContain('<textarea id="response" name="response" required>');
		const formToken = formTokenOf(form.html);
		expect(formToken).toMatch(/^[0-9a-f]{32}$/);
		const blank = answer(values, { method: 'POST', query, body: { response: '  ', formToken } }, customData);
		expect(blank.answered).toBeUndefined();
		expect(blank.html).toContain('Please write a response');
		expect(formTokenOf(blank.html)).toBe(formToken);
		const blind = answer(values, { method: 'POST', query, body: { response: 'Friday after 5' } }, customData);
		expect(blind).toMatchObject({ status: 403, answered: undefined });
		const answered = answer(values, { method: 'POST', query, body: { response: 'Friday after 5', formToken } }, customData);
		expect(answered.answered).toEqual({ data: { text: 'Friday after 5', respondedAt: expect.any(String) } });
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
			getRequestObject: () => ({ method: 'POST', headers: { 'user-agent': BROWSER } }),
			getQueryData: () => ({ approved: 'true', wait: 'd'.repeat(32) }),
			getBodyData: () => ({ formToken: 'e'.repeat(32) }),
			customData: customDataStore({ [WAIT_KEY]: JSON.stringify({ id: 'd'.repeat(32), formToken: 'e'.repeat(32), host: '127.0.0.1' }) }),
		} as unknown as IWebhookFunctions;
		const answered = await node.nodeVersions[2.1].webhook!.call(context);
		expect(answered.workflowData?.[0]?.[0]?.json).toMatchObject({ data: { approved: true } });
	});
});
