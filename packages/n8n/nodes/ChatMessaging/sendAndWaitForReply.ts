/**
 * Send and Wait for Reply: sends a message into a chat (or to a phone number), then waits for the
 * customer's next message in that chat, with a time-out. Self-contained so the action node only
 * lists the operation, spreads these properties and webhooks, and routes to the two handlers.
 *
 * Two ways to wait:
 * - Webhook (default): n8n puts the execution to wait (as its Wait node and Slack's Send and Wait do)
 *   and a temporary `message:received:new` subscription points at the execution's resume URL. A
 *   delivery of another chat is acknowledged and ignored; the reply resumes the execution and the
 *   subscription is removed. On time-out n8n resumes the execution itself, passing the node's input
 *   items through (n8n runs no node code then); the expired subscription is removed by the next
 *   run of this operation in the workspace.
 * - Polling: the execution keeps running and reads the chat's messages every few seconds. Needs no
 *   public URL and no subscription (the workspace allows 10); suited to waits of minutes.
 */
import { NodeOperationError } from 'n8n-workflow';
import type {
	IDataObject,
	IDisplayOptions,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import {
	checkReceiverUrl,
	ChatMessagingError,
	inputError,
	isNotFound,
	PHONE_PATTERN,
	type ChatEvent,
	type Executor,
} from '@chat-messaging/core';
import { chatIdFromUrl } from '@chat-messaging/core';
import { findReply, replyInDelivery, replyWatchFor, waitForReply, type ReplyWatch } from '@chat-messaging/core';
import { toNodeError } from '../shared/errors';
import { createExecutor, n8nTiming } from '../shared/transport';

export const SEND_AND_WAIT_FOR_REPLY = 'sendAndWaitForReply';

/** The operation's entry in the action node's Operation list. */
export const sendAndWaitForReplyOperation: INodePropertyOptions = {
	name: 'Send and Wait for Reply',
	value: SEND_AND_WAIT_FOR_REPLY,
	action: 'Send a message and wait for the reply',
	description: "Send a message into a chat, then wait for the customer's next message in that chat, with a time-out",
};

/** Query parameters of the temporary subscription URL: what the webhook needs to recognise the reply. */
const CHAT_PARAMETER = 'cm_chat';
const AFTER_PARAMETER = 'cm_after';
/** Epoch seconds after which the subscription is stale and any later run removes it. */
const UNTIL_PARAMETER = 'cm_until';

const UNIT_SECONDS: Record<string, number> = { minutes: 60, hours: 3600, days: 86400 };

/**
 * The operation's parameters, shown where `show` says (resource and operation of the host node).
 * `chatParameter` replaces the plain Chat ID text box (version 2 passes its chat picker).
 */
export function sendAndWaitForReplyProperties(show: IDisplayOptions['show'], chatParameter?: INodeProperties): INodeProperties[] {
	const on = (extra: IDataObject = {}) => ({ show: { ...show, ...extra } }) as IDisplayOptions;
	const plainChatId: INodeProperties = {
		displayName: 'Chat ID',
		name: 'replyWaitChatId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 1000001',
		description: 'The chat to send into and to wait in',
	};
	return [
		{
			displayName:
				"The customer's next message in the chat resumes the workflow; its output holds <code>reply</code>. If no reply comes in time, the workflow goes on with this node's input items (no <code>reply</code>), as n8n's Wait node does.",
			name: 'replyWaitNotice',
			type: 'notice',
			default: '',
			displayOptions: on(),
		},
		{
			displayName: 'Send To',
			name: 'replyWaitSendTo',
			type: 'options',
			options: [
				{ name: 'Chat', value: 'chat', description: 'An existing chat, by its ID' },
				{ name: 'Phone Number', value: 'phone', description: 'A phone number, also one never messaged before' },
			],
			default: 'chat',
			displayOptions: on(),
		},
		{
			...(chatParameter ?? plainChatId),
			name: 'replyWaitChatId',
			required: true,
			description: 'The chat to send into and to wait in',
			displayOptions: on({ replyWaitSendTo: ['chat'] }),
		},
		{
			displayName: 'Phone Number',
			name: 'replyWaitPhone',
			type: 'string',
			required: true,
			default: '',
			placeholder: '+4915112345678',
			description: 'International format with country code; "+" optional; digits only',
			displayOptions: on({ replyWaitSendTo: ['phone'] }),
		},
		{
			displayName: 'Message',
			name: 'replyWaitText',
			type: 'string',
			required: true,
			default: '',
			typeOptions: { rows: 3 },
			description: 'The text to send; the reply to it is waited for',
			displayOptions: on(),
		},
		{
			displayName: 'Time-Out',
			name: 'replyWaitTimeout',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 2 },
			default: 1,
			description: 'How long to wait for the reply',
			displayOptions: on(),
		},
		{
			displayName: 'Time-Out Unit',
			name: 'replyWaitTimeoutUnit',
			type: 'options',
			options: [
				{ name: 'Minutes', value: 'minutes' },
				{ name: 'Hours', value: 'hours' },
				{ name: 'Days', value: 'days' },
			],
			default: 'hours',
			displayOptions: on(),
		},
		{
			displayName: 'Wait Using',
			name: 'replyWaitUsing',
			type: 'options',
			options: [
				{
					name: 'Webhook (Execution Waits)',
					value: 'webhook',
					description: "The execution pauses; a temporary webhook subscription resumes it on the reply. Needs n8n's public HTTPS URL.",
				},
				{
					name: 'Polling (Execution Keeps Running)',
					value: 'polling',
					description:
						"Reads the chat's messages every few seconds. No public URL and no subscription needed; for waits of minutes. On time-out outputs replied: false.",
				},
			],
			default: 'webhook',
			displayOptions: on(),
		},
		{
			displayName: 'Poll Every (Seconds)',
			name: 'replyWaitPollSeconds',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 10,
			description: 'Pause between two looks for the reply (one request each)',
			displayOptions: on({ replyWaitUsing: ['polling'] }),
		},
	];
}

/** The waiting webhook n8n routes the execution's resume URL to (as in n8n's own send-and-wait nodes). */
export const sendAndWaitForReplyWebhooks: IWebhookDescription[] = [
	{
		name: 'default',
		httpMethod: 'POST',
		responseMode: 'onReceived',
		path: '={{ $nodeId }}',
		restartWebhook: true,
		isFullPath: true,
	},
];

/** The chat id of the Chat parameter: a plain id, or a resource locator's value (an id, or a chat URL). */
function chatIdOf(raw: unknown): string {
	if (raw && typeof raw === 'object' && 'value' in raw) {
		const { mode, value } = raw as { mode?: unknown; value?: unknown };
		const text = String(value ?? '').trim();
		return mode === 'url' ? (chatIdFromUrl(text) ?? text) : text;
	}
	return String(raw ?? '').trim();
}

interface ReplyWaitParameters {
	sendOperation: string;
	sendInput: Record<string, unknown>;
	timeoutMs: number;
	using: 'webhook' | 'polling';
	pollMs: number;
}

/** Every parameter read and checked before the first request. */
function readParameters(context: IExecuteFunctions): ReplyWaitParameters {
	const text = String(context.getNodeParameter('replyWaitText', 0, '') ?? '');
	if (!text.trim()) throw inputError('Message', 'is required: the text to send');
	const sendTo = String(context.getNodeParameter('replyWaitSendTo', 0, 'chat'));
	let sendOperation: string;
	let sendInput: Record<string, unknown>;
	if (sendTo === 'phone') {
		const phone = String(context.getNodeParameter('replyWaitPhone', 0, '') ?? '').trim();
		if (!PHONE_PATTERN.test(phone))
			throw inputError('Phone Number', `must be in international format, digits only with an optional "+", got "${phone}"`);
		sendOperation = 'message:sendToPhone';
		sendInput = { phone, text };
	} else if (sendTo === 'chat') {
		const chatId = chatIdOf(context.getNodeParameter('replyWaitChatId', 0, ''));
		if (!/^\d+$/.test(chatId)) throw inputError('Chat ID', `must be a whole number, got "${chatId}"`);
		sendOperation = 'message:sendToChat';
		sendInput = { chat_id: Number(chatId), text };
	} else {
		throw inputError('Send To', `must be chat or phone, got "${sendTo}"`);
	}
	const amount = Number(context.getNodeParameter('replyWaitTimeout', 0, 1));
	const unit = String(context.getNodeParameter('replyWaitTimeoutUnit', 0, 'hours'));
	if (!(unit in UNIT_SECONDS)) throw inputError('Time-Out Unit', `must be minutes, hours or days, got "${unit}"`);
	if (!Number.isFinite(amount) || amount <= 0) throw inputError('Time-Out', `must be more than 0, got ${amount}`);
	const using = String(context.getNodeParameter('replyWaitUsing', 0, 'webhook'));
	if (using !== 'webhook' && using !== 'polling') throw inputError('Wait Using', `must be webhook or polling, got "${using}"`);
	const pollSeconds = Number(context.getNodeParameter('replyWaitPollSeconds', 0, 10));
	if (using === 'polling' && (!Number.isFinite(pollSeconds) || pollSeconds < 1))
		throw inputError('Poll Every (Seconds)', `must be 1 or more, got ${pollSeconds}`);
	return { sendOperation, sendInput, timeoutMs: Math.round(amount * UNIT_SECONDS[unit] * 1000), using, pollMs: pollSeconds * 1000 };
}

/** The item the reply becomes: the sent message's ids, and the reply as the triggers output events. */
function replyItem(watch: ReplyWatch, reply: ChatEvent | undefined, sent: IDataObject = {}): INodeExecutionData {
	return {
		json: {
			...sent,
			chat_id: watch.chat_id,
			message_uid: watch.message_uid,
			replied: reply !== undefined,
			reply: (reply ?? null) as unknown as IDataObject,
		},
		pairedItem: { item: 0 },
	};
}

/** Whether a subscription URL is a temporary one of this operation on this n8n whose time has passed. */
function isExpiredReplySubscription(url: string, resumeOrigin: string, nowMs: number): boolean {
	try {
		const parsed = new URL(url);
		const until = Number(parsed.searchParams.get(UNTIL_PARAMETER));
		return parsed.origin === resumeOrigin && parsed.searchParams.has(CHAT_PARAMETER) && Number.isFinite(until) && until * 1000 < nowMs;
	} catch {
		return false;
	}
}

/** Removes temporary subscriptions left by waits that timed out (n8n runs no node code on a time-out). */
async function removeExpiredSubscriptions(executor: Executor, resumeOrigin: string): Promise<void> {
	const list = await executor.run('webhook:getAll');
	if (!Array.isArray(list)) return;
	const now = n8nTiming.now();
	for (const item of list) {
		const subscription = item as IDataObject;
		if (typeof subscription.url !== 'string' || !isExpiredReplySubscription(subscription.url, resumeOrigin, now)) continue;
		await executor.run('webhook:delete', { id: subscription.id }).catch((error: unknown) => {
			if (!isNotFound(error)) throw error;
		});
	}
}

/** The execution's resume URL for this node, with what the webhook needs to recognise the reply. */
function replySubscriptionUrl(context: IExecuteFunctions, watch: ReplyWatch, deadline: number): URL {
	const resumeUrl = String(context.getWorkflowDataProxy(0).$execution.resumeUrl ?? '');
	let url: URL;
	try {
		url = new URL(resumeUrl);
	} catch {
		throw new NodeOperationError(context.getNode(), `n8n gave no usable resume URL for this execution ("${resumeUrl}")`);
	}
	url.pathname = `${url.pathname.replace(/\/+$/, '')}/${encodeURIComponent(context.getNode().id)}`;
	url.searchParams.set(CHAT_PARAMETER, String(watch.chat_id));
	url.searchParams.set(AFTER_PARAMETER, watch.message_uid);
	url.searchParams.set(UNTIL_PARAMETER, String(Math.ceil(deadline / 1000)));
	return url;
}

const PUBLIC_URL_ADVICE =
	"Set n8n's public webhook URL (WEBHOOK_URL) to an HTTPS address the internet reaches (for example through a tunnel such as cloudflared or ngrok), or set Wait Using to Polling";

/**
 * The operation's execute: one message per execution (n8n resumes an execution once), so more than
 * one input item is refused with advice rather than silently narrowed to the first.
 */
export async function executeSendAndWaitForReply(context: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = context.getInputData();
	try {
		if (items.length > 1) {
			throw inputError(
				'Send and Wait for Reply',
				`waits for one reply per execution, but got ${items.length} input items: send them one by one (Loop Over Items with a batch size of 1)`,
			);
		}
		const parameters = readParameters(context);
		const executor = await createExecutor(context);
		const sent = (await executor.sendMessage(parameters.sendOperation, parameters.sendInput)) as IDataObject;
		const watch = await replyWatchFor(executor, sent);
		const deadline = n8nTiming.now() + parameters.timeoutMs;

		if (parameters.using === 'polling') {
			const outcome = await waitForReply(executor, watch, {
				timeoutMs: parameters.timeoutMs,
				intervalMs: parameters.pollMs,
				timing: n8nTiming,
			});
			const item = replyItem(watch, 'reply' in outcome ? outcome.reply : undefined, sent);
			if ('timedOut' in outcome) item.json.timed_out = true;
			return [[item]];
		}

		const url = replySubscriptionUrl(context, watch, deadline);
		checkReceiverUrl(executor.baseUrl, url.href, PUBLIC_URL_ADVICE);
		await removeExpiredSubscriptions(executor, url.origin);
		await executor.run('webhook:create', { event_type: 'message:received:new', url: url.href, enabled: true });
		// A reply that came between the send and the subscription would never be delivered to it: look once.
		const early = await findReply(executor, watch);
		if (early) {
			await removeOwnSubscriptions(executor, watch.message_uid);
			return [[replyItem(watch, early, sent)]];
		}
		await context.putExecutionToWait(new Date(deadline));
		return [items];
	} catch (error) {
		if (context.continueOnFail()) {
			return [[{ json: { error: (error as Error).message }, pairedItem: { item: 0 } }]];
		}
		throw toNodeError(context.getNode(), error, 0);
	}
}

/** Deletes the temporary subscription of this wait: the one whose URL names the sent message (unique per send). */
async function removeOwnSubscriptions(executor: Executor, sentMessageUid: string): Promise<void> {
	const list = await executor.run('webhook:getAll');
	if (!Array.isArray(list)) return;
	for (const item of list) {
		const subscription = item as IDataObject;
		if (typeof subscription.url !== 'string') continue;
		let url: URL;
		try {
			url = new URL(subscription.url);
		} catch {
			continue;
		}
		if (url.searchParams.get(AFTER_PARAMETER) !== sentMessageUid || !url.searchParams.has(CHAT_PARAMETER)) continue;
		await executor.run('webhook:delete', { id: subscription.id }).catch((error: unknown) => {
			if (!isNotFound(error)) throw error;
		});
	}
}

/**
 * A delivery at the resume URL: the reply resumes the execution (after the temporary subscription
 * is removed); anything else is acknowledged and leaves the execution waiting.
 */
export async function sendAndWaitForReplyWebhook(context: IWebhookFunctions): Promise<IWebhookResponseData> {
	const query = context.getQueryData() as IDataObject;
	const chatId = String(query[CHAT_PARAMETER] ?? '');
	const after = String(query[AFTER_PARAMETER] ?? '');
	if (!chatId || !after) return { webhookResponse: { status: 'ok', ignored: 'not a reply subscription of this node' } };
	const watch: ReplyWatch = { chat_id: /^\d+$/.test(chatId) ? Number(chatId) : chatId, message_uid: after };
	const reply = replyInDelivery(context.getBodyData(), watch);
	if (!reply) return { webhookResponse: { status: 'ok', ignored: 'not a reply in the watched chat' } };
	try {
		const executor = await createExecutor(context);
		await removeOwnSubscriptions(executor, after);
	} catch (error) {
		// The reply still resumes the execution; a subscription left behind is removed once expired.
		const reason = error instanceof ChatMessagingError ? error.message : String(error);
		context.logger.warn(`Chat Messaging: could not remove the temporary reply subscription: ${reason}`);
	}
	return { workflowData: [[replyItem(watch, reply)]] };
}

/**
 * The action node's properties with this operation added to the Message resource: its entry in the
 * Message operation list (alphabetical, as n8n's lint wants for five or more) and its parameters
 * after that list. Additive only: no existing name, value or default changes.
 */
export function withSendAndWaitForReply(
	properties: INodeProperties[],
	options: { resource?: string; chatParameter?: INodeProperties } = {},
): INodeProperties[] {
	const resource = options.resource ?? 'message';
	const index = properties.findIndex(
		(property) => property.name === 'operation' && (property.displayOptions?.show?.resource ?? []).includes(resource),
	);
	if (index < 0) throw new Error(`the action node has no operation list for resource "${resource}"`);
	const list = properties[index];
	const existing = (list.options ?? []) as INodePropertyOptions[];
	// n8n's lint wants a list of five or more options in alphabetical order, so a leading Send moves
	// to its place (the default, what a new node opens on, stays as it was).
	const listed = [...existing, sendAndWaitForReplyOperation].sort((a, b) => a.name.localeCompare(b.name));
	return [
		...properties.slice(0, index),
		{ ...list, options: listed },
		...sendAndWaitForReplyProperties({ resource: [resource], operation: [SEND_AND_WAIT_FOR_REPLY] }, options.chatParameter),
		...properties.slice(index + 1),
	];
}
