/**
 * Send and Wait for Response: n8n's standard send-and-wait operation (`sendAndWait`, as in n8n's Slack,
 * Telegram and Gmail nodes), which also makes n8n offer this node as a human-in-the-loop tool for its
 * AI Agent. The core's composite (message:sendAndWait) builds the text with the links and sends it;
 * this adapter hands it n8n's signed resume URLs (each wait's own id in them), puts the execution to
 * wait, and answers the links: a GET shows the page (the approval's button, or the free-text form), and
 * only that page's POST, for the wait its link was sent for, answers.
 *
 * Parameter names are n8n's own (`message`, `responseType`, `approvalOptions`, `options`): n8n's
 * human-in-the-loop tool replaces `message` with its own and keeps the rest by these names.
 */
import { randomBytes, timingSafeEqual } from 'crypto';
import { SEND_AND_WAIT_OPERATION, WAIT_INDEFINITELY } from 'n8n-workflow';
import type {
	IDataObject,
	IDisplayOptions,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import {
	DEFAULT_SEND_TO,
	inputError,
	SEND_AND_WAIT_COMPOSITE,
	sendAndWaitInputs,
	sendOperation,
	type FieldDescriptor,
} from '@chat-messaging/core';
import { toNodeError } from '../../shared/errors';
import { createExecutor, n8nTiming } from '../../shared/transport';
import { locatorValue } from './operation';
import { v2FieldParameter } from './properties';

/** The operation's value: n8n's constant, which its human-in-the-loop tools look for. */
export const SEND_AND_WAIT = SEND_AND_WAIT_OPERATION;
if (SEND_AND_WAIT_COMPOSITE.operation !== SEND_AND_WAIT) throw new Error('the Send and Wait composite must be n8n\'s "sendAndWait"');

const SHOW = { resource: [SEND_AND_WAIT_COMPOSITE.resource], operation: [SEND_AND_WAIT] };
const on = (extra: IDataObject = {}): IDisplayOptions => ({ show: { ...SHOW, ...extra } }) as IDisplayOptions;

const { message, responseType, approvalType, approveLabel, disapproveLabel, messageButtonLabel } = sendAndWaitInputs;
const { responseFormTitle, responseFormDescription, responseFormButtonLabel } = sendAndWaitInputs;

const stringOption = (input: FieldDescriptor, extra: Partial<INodeProperties> = {}): INodeProperties => ({
	displayName: input.displayName,
	name: input.name,
	type: 'string',
	default: String(input.default ?? ''),
	description: input.description,
	...extra,
});

const choices = (input: FieldDescriptor) => (input.options ?? []).map(({ name, value, description }) => ({ name, value, description }));

/** Options of one response type: one collection per type, as n8n's own send-and-wait nodes show them. */
const optionsFor = (type: string, options: INodeProperties[]): INodeProperties => ({
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add option',
	default: {},
	options,
	displayOptions: on({ responseType: [type] }),
});

/** n8n's Limit Wait Time: after an interval or at a date; unlimited when not added. */
const limitWaitTime: INodeProperties = {
	displayName: 'Limit Wait Time',
	name: 'limitWaitTime',
	type: 'fixedCollection',
	description: 'Whether to limit the time this node waits for a response before the execution resumes without one',
	default: { values: { limitType: 'afterTimeInterval', resumeAmount: 45, resumeUnit: 'minutes' } },
	options: [
		{
			displayName: 'Values',
			name: 'values',
			values: [
				{
					displayName: 'Limit Type',
					name: 'limitType',
					type: 'options',
					default: 'afterTimeInterval',
					description: 'Resume after some time, or at a date and time',
					options: [
						{ name: 'After Time Interval', value: 'afterTimeInterval', description: 'Waits for a certain amount of time' },
						{ name: 'At Specified Time', value: 'atSpecifiedTime', description: 'Waits until the set date and time to continue' },
					],
				},
				{
					displayName: 'Amount',
					name: 'resumeAmount',
					type: 'number',
					displayOptions: { show: { limitType: ['afterTimeInterval'] } },
					typeOptions: { minValue: 0, numberPrecision: 2 },
					default: 1,
					description: 'The time to wait',
				},
				{
					displayName: 'Unit',
					name: 'resumeUnit',
					type: 'options',
					displayOptions: { show: { limitType: ['afterTimeInterval'] } },
					options: [
						{ name: 'Minutes', value: 'minutes' },
						{ name: 'Hours', value: 'hours' },
						{ name: 'Days', value: 'days' },
					],
					default: 'hours',
					description: 'Unit of the interval value',
				},
				{
					displayName: 'Max Date and Time',
					name: 'maxDateAndTime',
					type: 'dateTime',
					displayOptions: { show: { limitType: ['atSpecifiedTime'] } },
					default: '',
					description: 'Continue execution after the specified date and time',
				},
			],
		},
	],
};

/** The operation's parameters (Send To and its addressing as Send shows them, then n8n's send-and-wait ones). */
export function sendAndWaitProperties(): INodeProperties[] {
	const { variants } = SEND_AND_WAIT_COMPOSITE;
	const addressing = SEND_AND_WAIT_COMPOSITE.fields
		.filter(({ field }) => field !== message)
		.map(({ field, variants: targets }) => ({
			...v2FieldParameter(field, true, sendOperation(targets[0] ?? DEFAULT_SEND_TO)),
			displayOptions: on({ [variants.name]: [...targets] }),
		}));
	return [
		{
			displayName: variants.displayName,
			name: variants.name,
			type: 'options',
			noDataExpression: true,
			options: variants.options.map(({ name, value, description }) => ({ name, value, description })),
			default: DEFAULT_SEND_TO,
			displayOptions: on(),
		},
		...addressing,
		{ ...stringOption(message), required: true, typeOptions: { rows: 4 }, displayOptions: on() },
		{
			displayName: responseType.displayName,
			name: responseType.name,
			type: 'options',
			default: String(responseType.default),
			options: choices(responseType),
			displayOptions: on(),
		},
		{
			displayName: 'Approval Options',
			name: 'approvalOptions',
			type: 'fixedCollection',
			placeholder: 'Add option',
			default: {},
			options: [
				{
					displayName: 'Values',
					name: 'values',
					values: [
						{
							displayName: approvalType.displayName,
							name: approvalType.name,
							type: 'options',
							default: String(approvalType.default),
							options: choices(approvalType),
						},
						stringOption(approveLabel, { displayOptions: { show: { approvalType: ['single', 'double'] } } }),
						stringOption(disapproveLabel, { displayOptions: { show: { approvalType: ['double'] } } }),
					],
				},
			],
			displayOptions: on({ responseType: ['approval'] }),
		},
		optionsFor('approval', [limitWaitTime]),
		optionsFor('freeText', [
			limitWaitTime,
			stringOption(messageButtonLabel),
			stringOption(responseFormButtonLabel),
			stringOption(responseFormDescription),
			stringOption(responseFormTitle),
		]),
	];
}

/** The links' webhook: GET opens a page, POST answers it; n8n routes the signed resume URLs here. */
export const sendAndWaitWebhook: IWebhookDescription = {
	name: 'default',
	httpMethod: 'GET',
	responseMode: 'onReceived',
	responseData: '',
	path: '={{ $nodeId }}',
	restartWebhook: true,
	isFullPath: true,
};

const UNIT_MS: Record<string, number> = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

/** When the wait ends without a response: never, unless Limit Wait Time is added. */
function waitTill(context: IExecuteFunctions): Date {
	const limit = context.getNodeParameter('options.limitWaitTime.values', 0, {}) as IDataObject;
	if (!Object.keys(limit).length) return WAIT_INDEFINITELY;
	if (limit.limitType === 'atSpecifiedTime') {
		const at = new Date(String(limit.maxDateAndTime ?? ''));
		if (Number.isNaN(at.getTime())) throw inputError('Max Date and Time', `is not a date and time, got "${String(limit.maxDateAndTime)}"`);
		return at;
	}
	const amount = Number(limit.resumeAmount ?? 1);
	const unit = String(limit.resumeUnit ?? 'hours');
	if (!(unit in UNIT_MS)) throw inputError('Unit', `must be minutes, hours or days, got "${unit}"`);
	if (!Number.isFinite(amount) || amount < 0) throw inputError('Amount', `must be 0 or more, got ${String(limit.resumeAmount)}`);
	return new Date(n8nTiming.now() + amount * UNIT_MS[unit]);
}

/** The composite's input from the parameters (the core checks it all before the first request). */
function readInput(context: IExecuteFunctions): Record<string, unknown> {
	const { variants } = SEND_AND_WAIT_COMPOSITE;
	const sendTo = String(context.getNodeParameter(variants.name, 0, variants.default));
	const input: Record<string, unknown> = { [variants.name]: sendTo, message: context.getNodeParameter('message', 0, '') };
	for (const { field, variants: targets } of SEND_AND_WAIT_COMPOSITE.fields) {
		if (field !== message && targets.includes(sendTo)) input[field.name] = locatorValue(field, context.getNodeParameter(field.name, 0, ''));
	}
	input.responseType = context.getNodeParameter('responseType', 0, responseType.default);
	Object.assign(input, context.getNodeParameter('approvalOptions.values', 0, {}) as IDataObject);
	const options = context.getNodeParameter('options', 0, {}) as IDataObject;
	for (const option of [messageButtonLabel, responseFormTitle, responseFormDescription, responseFormButtonLabel])
		if (options[option.name] !== undefined) input[option.name] = options[option.name];
	return input;
}

/**
 * One wait of this node: the id its links carry, the token only the page its links open carries, and
 * the host the links point at. n8n signs a resume link by execution and node only, so without an id of
 * its own a link sent for an earlier wait of this node in the same execution (a loop) would answer the
 * current one. The wait is kept in the execution's custom data: n8n saves it with the waiting execution
 * (in regular and queue mode alike) and hands it back to the links' webhook; the id is signed with the
 * rest of the link, so knowing it forges nothing.
 */
interface Wait {
	id: string;
	formToken: string;
	host: string;
}

/** The links' query parameter naming the wait they were sent for. */
const WAIT_PARAMETER = 'wait';
/** The execution's custom data key of the current wait (one key: an execution waits on one node at a time). */
const WAIT_KEY = 'chatMessagingWait';
/** The page's form field carrying the wait's form token. */
const FORM_TOKEN_FIELD = 'formToken';

const randomId = (): string => randomBytes(16).toString('hex');

/** Keeps the wait with the execution, or fails before anything is sent when n8n would not keep it. */
function keepWait(context: IExecuteFunctions, wait: Wait): void {
	const value = JSON.stringify(wait);
	context.customData.set(WAIT_KEY, value);
	if (context.customData.get(WAIT_KEY) !== value)
		throw new Error(
			`${SEND_AND_WAIT_COMPOSITE.name} keeps the id of each wait in the execution's custom data, which n8n did not store ` +
				'(an execution holds at most 10 custom data keys): set fewer with Execution Data or $execution.customData',
		);
}

/**
 * Sends the message with its links and puts the execution to wait until a person answers on the page
 * a link opens (or the limit passes: n8n then resumes with the node's input items). One message per
 * execution, since n8n resumes an execution once: more than one input item is refused with advice.
 */
export async function executeSendAndWait(context: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = context.getInputData();
	try {
		if (items.length > 1)
			throw inputError(
				SEND_AND_WAIT_COMPOSITE.name,
				`waits for one response per execution, but got ${items.length} input items: send them one by one (Loop Over Items with a batch size of 1)`,
			);
		const input = readInput(context);
		const until = waitTill(context);
		const id = randomId();
		const approve = context.getSignedResumeUrl({ approved: 'true', [WAIT_PARAMETER]: id });
		const resumeUrls = { approve, disapprove: context.getSignedResumeUrl({ approved: 'false', [WAIT_PARAMETER]: id }), respond: approve };
		keepWait(context, { id, formToken: randomId(), host: new URL(approve).host });
		const executor = await createExecutor(context);
		await executor.run(SEND_AND_WAIT_COMPOSITE, { ...input, resumeUrls });
		await context.putExecutionToWait(until);
		return [items];
	} catch (error) {
		if (context.continueOnFail()) return [[{ json: { error: (error as Error).message }, pairedItem: { item: 0 } }]];
		throw toNodeError(context.getNode(), error, 0);
	}
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** A small self-contained page: no scripts, no outside resources. */
function page(title: string, body: string): string {
	return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222}p{white-space:pre-wrap}textarea{width:100%;min-height:8rem;box-sizing:border-box}button{font-size:1rem;padding:.5rem 1.25rem;margin-top:1rem}</style></head><body>${body}</body></html>`;
}

const RECORDED_PAGE = page('Response recorded', '<h1>Got it, thanks</h1><p>This page can be closed now.</p>');
const NO_LONGER_VALID_PAGE = page(
	'This link is no longer valid',
	'<h1>This link is no longer valid</h1><p>The request it was sent for has already been answered or has timed out. Nothing was changed.</p>',
);
const NOT_FROM_PAGE = page(
	'Not answered',
	'<h1>Not answered</h1><p>An answer counts only when it is sent with the button of the page this link opens. Open the link and use its button. Nothing was changed.</p>',
);
const UNCHECKED_PAGE = page('Not answered', '<h1>Not answered</h1><p>This link could not be checked. Nothing was changed.</p>');

function parameter(context: IWebhookFunctions, name: string, fallback: string): string {
	try {
		const value = context.getNodeParameter(name, fallback);
		return typeof value === 'string' && value.trim() ? value : fallback;
	} catch {
		// The human-in-the-loop tool's message is an expression of the tool call, which has no value here.
		return fallback;
	}
}

const sameText = (a: string, b: string): boolean => {
	const left = Buffer.from(a);
	const right = Buffer.from(b);
	return left.length === right.length && timingSafeEqual(left, right);
};

/** The wait the execution is in: a Wait, none (a wait begun by a version of this node without ids), or unreadable. */
function currentWait(context: IWebhookFunctions): Wait | 'none' | 'unreadable' {
	let value: unknown;
	try {
		value = context.customData.get(WAIT_KEY);
	} catch {
		return 'unreadable';
	}
	if (value === undefined) return 'none';
	try {
		const wait = JSON.parse(String(value)) as Partial<Wait>;
		if (typeof wait.id === 'string' && typeof wait.formToken === 'string' && typeof wait.host === 'string') return wait as Wait;
	} catch {
		// Not a wait this node stored: refused below.
	}
	return 'unreadable';
}

const firstHeader = (value: string | string[] | undefined): string =>
	String((Array.isArray(value) ? value[0] : value) ?? '')
		.split(',')[0]
		.trim();

/**
 * Extra to the form token: a POST whose browser names another site as its origin is refused. `null` is
 * accepted, as n8n serves webhook pages sandboxed (no same origin), so its own page's form posts with it.
 */
function fromForeignOrigin(context: IWebhookFunctions, wait: Wait | undefined): boolean {
	const { headers } = context.getRequestObject();
	const origin = firstHeader(headers.origin);
	if (!origin || origin === 'null') return false;
	let host: string;
	try {
		host = new URL(origin).host.toLowerCase();
	} catch {
		return true;
	}
	const ours = [firstHeader(headers.host), firstHeader(headers['x-forwarded-host']), wait?.host ?? ''].map((name) => name.toLowerCase());
	return !ours.includes(host);
}

/** A page that answers nothing, with the status that says why. */
function refused(context: IWebhookFunctions, status: number, html: string): IWebhookResponseData {
	context.getResponseObject().status(status).send(html);
	return { noWebhookResponse: true };
}

function responded(data: IDataObject): IWebhookResponseData {
	return {
		webhookResponse: RECORDED_PAGE,
		workflowData: [[{ json: { data: { ...data, respondedAt: new Date(n8nTiming.now()).toISOString() } } }]],
	};
}

const tokenField = (wait: Wait | undefined): string =>
	wait ? `<input type="hidden" name="${FORM_TOKEN_FIELD}" value="${escapeHtml(wait.formToken)}">` : '';

/** Approval: GET shows the page with its button; only the button's POST answers (`approved` comes from the signed link). */
function approvalAnswer(context: IWebhookFunctions, wait: Wait | undefined): IWebhookResponseData {
	const approved = String((context.getQueryData() as IDataObject).approved) === 'true';
	if (context.getRequestObject().method === 'POST') return responded({ approved });
	const label = approved
		? parameter(context, `approvalOptions.values.${approveLabel.name}`, String(approveLabel.default))
		: parameter(context, `approvalOptions.values.${disapproveLabel.name}`, String(disapproveLabel.default));
	const text = parameter(context, message.name, '');
	return {
		webhookResponse: page(
			label,
			`<h1>${escapeHtml(label)}?</h1>${text ? `<p>${escapeHtml(text)}</p>` : ''}` +
				`<form method="post">${tokenField(wait)}<button type="submit">${escapeHtml(label)}</button></form>`,
		),
	};
}

/** Free Text: GET shows the form, its POST takes the answer (a blank one shows the form again). */
function freeTextAnswer(context: IWebhookFunctions, wait: Wait | undefined): IWebhookResponseData {
	const { method } = context.getRequestObject();
	const body = (context.getBodyData() ?? {}) as IDataObject;
	const text = typeof body.response === 'string' ? body.response.trim() : '';
	if (method === 'POST' && text) return responded({ text });
	const title = parameter(context, `options.${responseFormTitle.name}`, '');
	const description = parameter(context, `options.${responseFormDescription.name}`, '') || parameter(context, message.name, '');
	const button = parameter(context, `options.${responseFormButtonLabel.name}`, String(responseFormButtonLabel.default));
	const blank = method === 'POST' ? '<p role="alert">Please write a response.</p>' : '';
	return {
		webhookResponse: page(
			title || 'Your response',
			`${title ? `<h1>${escapeHtml(title)}</h1>` : ''}${description ? `<p>${escapeHtml(description)}</p>` : ''}${blank}` +
				`<form method="post">${tokenField(wait)}<label for="response">Response</label><textarea id="response" name="response" required></textarea>` +
				`<button type="submit">${escapeHtml(button)}</button></form>`,
		),
	};
}

/**
 * A request at one of the links. Only a POST from the page the link opens answers, and only for the
 * wait the link was sent for: a GET, whoever sends it (a person, a link preview, a scanner), gets the
 * page; a link of an earlier wait, or a POST without the page's token, changes nothing and says so.
 */
export function sendAndWaitWebhookAnswer(context: IWebhookFunctions): IWebhookResponseData {
	const stored = currentWait(context);
	if (stored === 'unreadable') return refused(context, 409, UNCHECKED_PAGE);
	const wait = stored === 'none' ? undefined : stored;
	const linked = (context.getQueryData() as IDataObject)[WAIT_PARAMETER];
	// A wait begun by a version of this node without ids has links without one; a link with one is of a later wait.
	const current = wait ? typeof linked === 'string' && sameText(linked, wait.id) : linked === undefined;
	if (!current) return refused(context, 410, NO_LONGER_VALID_PAGE);
	if (context.getRequestObject().method === 'POST') {
		const token = ((context.getBodyData() ?? {}) as IDataObject)[FORM_TOKEN_FIELD];
		if (wait && !(typeof token === 'string' && sameText(token, wait.formToken))) return refused(context, 403, NOT_FROM_PAGE);
		if (fromForeignOrigin(context, wait)) return refused(context, 403, NOT_FROM_PAGE);
	}
	const type = parameter(context, 'responseType', String(responseType.default));
	return type === 'freeText' ? freeTextAnswer(context, wait) : approvalAnswer(context, wait);
}
