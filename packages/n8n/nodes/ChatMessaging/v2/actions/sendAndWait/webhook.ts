/**
 * Send and Wait for Response's links: n8n routes the signed resume URLs to the node's webhook; a GET
 * opens a page (the approval's button, or the free-text form), and only that page's POST, for the wait
 * its link was sent for, answers.
 */
import { timingSafeEqual } from 'crypto';
import type { IDataObject, IWebhookDescription, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { sendAndWaitInputs } from '@chat-messaging/core';
import { n8nTiming } from '../../../../shared/transport';
import { approvalPage, freeTextPage, NO_LONGER_VALID_PAGE, NOT_FROM_PAGE, RECORDED_PAGE, UNCHECKED_PAGE } from './page';
import { currentWait, FORM_TOKEN_FIELD, WAIT_PARAMETER, type Wait } from './resumeLinks';

const { message, responseType, approveLabel, disapproveLabel } = sendAndWaitInputs;
const { responseFormTitle, responseFormDescription, responseFormButtonLabel } = sendAndWaitInputs;

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

/** Approval: GET shows the page with its button; only the button's POST answers (`approved` comes from the signed link). */
function approvalAnswer(context: IWebhookFunctions, wait: Wait | undefined): IWebhookResponseData {
	const approved = String((context.getQueryData() as IDataObject).approved) === 'true';
	if (context.getRequestObject().method === 'POST') return responded({ approved });
	const label = approved
		? parameter(context, `approvalOptions.values.${approveLabel.name}`, String(approveLabel.default))
		: parameter(context, `approvalOptions.values.${disapproveLabel.name}`, String(disapproveLabel.default));
	return { webhookResponse: approvalPage(label, parameter(context, message.name, ''), wait?.formToken) };
}

/** Free Text: GET shows the form, its POST takes the answer (a blank one shows the form again). */
function freeTextAnswer(context: IWebhookFunctions, wait: Wait | undefined): IWebhookResponseData {
	const { method } = context.getRequestObject();
	const body = (context.getBodyData() ?? {}) as IDataObject;
	const text = typeof body.response === 'string' ? body.response.trim() : '';
	if (method === 'POST' && text) return responded({ text });
	const form = {
		title: parameter(context, `options.${responseFormTitle.name}`, ''),
		description: parameter(context, `options.${responseFormDescription.name}`, '') || parameter(context, message.name, ''),
		button: parameter(context, `options.${responseFormButtonLabel.name}`, String(responseFormButtonLabel.default)),
		blank: method === 'POST',
	};
	return { webhookResponse: freeTextPage(form, wait?.formToken) };
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
