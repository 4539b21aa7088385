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
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import {
	chatId,
	ChatMessagingError,
	DEFAULT_REPLY_POLL_S,
	DEFAULT_REPLY_TIMEOUT_S,
	deleteSubscriptions,
	inputError,
	runSendAndWaitForReply,
	sendAndSubscribeForReply,
	SEND_AND_WAIT_FOR_REPLY_COMPOSITE,
	FIELD_KINDS,
	type ChatEvent,
	type Executor,
} from '@chat-messaging/core';
import { replyInDelivery, type ReplyWatch } from '@chat-messaging/core';
import { toNodeError } from '../../shared/errors';
import { createExecutor, n8nTiming } from '../../shared/transport';
import { locatorValue } from './operation';

/** The composite's operation key (packages/core/src/catalogue/composites.ts), as saved workflows hold it. */
export const SEND_AND_WAIT_FOR_REPLY = SEND_AND_WAIT_FOR_REPLY_COMPOSITE.operation;

/** Query parameters of the temporary subscription URL: what the webhook needs to recognise the reply. */
const CHAT_PARAMETER = 'cm_chat';
const AFTER_PARAMETER = 'cm_after';
/** Epoch seconds after which the subscription is stale and any later run removes it. */
const UNTIL_PARAMETER = 'cm_until';

const UNIT_SECONDS: Record<string, number> = { minutes: 60, hours: 3600, days: 86400 };
const DEFAULT_REPLY_SEND_TO = SEND_AND_WAIT_FOR_REPLY_COMPOSITE.variants.default;
/** The core's reply time-out, shown as n8n shows it: an amount of hours. */
const DEFAULT_TIMEOUT_HOURS = DEFAULT_REPLY_TIMEOUT_S / UNIT_SECONDS.hours;

/** The field the composite asks of one Send To choice as a required text parameter (Chat Name, JID). */
function addressParameter(sendTo: string, name: string, parameter: string, on: (extra: IDataObject) => IDisplayOptions): INodeProperties {
	const entry = SEND_AND_WAIT_FOR_REPLY_COMPOSITE.fields.find(
		(candidate) => candidate.field.name === name && candidate.variants.includes(sendTo),
	);
	if (!entry) throw new Error(`Send and Wait for Reply has no field ${name} for Send To ${sendTo}`);
	const { field } = entry;
	return {
		displayName: field.displayName,
		name: parameter,
		type: 'string',
		required: true,
		default: '',
		placeholder: field.placeholder,
		description: field.description,
		hint: FIELD_KINDS[field.kind]?.hint,
		displayOptions: on({ replyWaitSendTo: [sendTo] }),
	};
}

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
			options: SEND_AND_WAIT_FOR_REPLY_COMPOSITE.variants.options.map(({ name, value, description }) => ({ name, value, description })),
			default: DEFAULT_REPLY_SEND_TO,
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
			description: 'Phone number of the recipient',
			hint: FIELD_KINDS.phone.hint,
			displayOptions: on({ replyWaitSendTo: ['phone'] }),
		},
		// The other Send To choices of the composite (packages/core/src/catalogue/composites.ts), described as the core describes them.
		addressParameter('chatName', 'chat_name', 'replyWaitChatName', on),
		addressParameter('jid', 'jid', 'replyWaitJid', on),
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
			default: DEFAULT_TIMEOUT_HOURS,
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
			default: DEFAULT_REPLY_POLL_S,
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
		// The answer is webhook()'s own (n8n would otherwise answer the text "firstEntryJson"); Send and Wait
		// for Response's form answers through this webhook too, with its page.
		responseData: '',
		path: '={{ $nodeId }}',
		restartWebhook: true,
		isFullPath: true,
	},
];

interface ReplyWaitParameters {
	/** The composite's input (packages/core/src/runtime/operations/compositeHandlers.ts). */
	input: Record<string, unknown>;
	using: 'webhook' | 'polling';
}

/** The parameters as the composite's input; the core checks them all before the first request. */
function readParameters(context: IExecuteFunctions): ReplyWaitParameters {
	const sendTo = String(context.getNodeParameter('replyWaitSendTo', 0, DEFAULT_REPLY_SEND_TO));
	const amount = Number(context.getNodeParameter('replyWaitTimeout', 0, DEFAULT_TIMEOUT_HOURS));
	const unit = String(context.getNodeParameter('replyWaitTimeoutUnit', 0, 'hours'));
	if (!(unit in UNIT_SECONDS)) throw inputError('Time-Out Unit', `must be minutes, hours or days, got "${unit}"`);
	if (!Number.isFinite(amount) || amount <= 0) throw inputError('Time-Out', `must be more than 0, got ${amount}`);
	const using = String(context.getNodeParameter('replyWaitUsing', 0, 'webhook'));
	if (using !== 'webhook' && using !== 'polling') throw inputError('Wait Using', `must be webhook or polling, got "${using}"`);
	const input: Record<string, unknown> = {
		sendTo,
		text: String(context.getNodeParameter('replyWaitText', 0, '') ?? ''),
		replyTimeout: amount * UNIT_SECONDS[unit],
		pollInterval: Number(context.getNodeParameter('replyWaitPollSeconds', 0, DEFAULT_REPLY_POLL_S)),
	};
	if (sendTo === 'phone') input.phone = String(context.getNodeParameter('replyWaitPhone', 0, '') ?? '').trim();
	if (sendTo === 'chatName') input.chat_name = String(context.getNodeParameter('replyWaitChatName', 0, '') ?? '').trim();
	if (sendTo === 'jid') input.jid = String(context.getNodeParameter('replyWaitJid', 0, '') ?? '').trim();
	if (sendTo === 'chat') input.chat_id = locatorValue(chatId, context.getNodeParameter('replyWaitChatId', 0, ''));
	return { input, using };
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
		if (parameters.using === 'polling') {
			const { waited_ms: _waited, ...result } = await runSendAndWaitForReply(executor, parameters.input, { timing: n8nTiming });
			return [[{ json: result as unknown as IDataObject, pairedItem: { item: 0 } }]];
		}

		// The core sends, subscribes the resume URL and looks once for a reply that came before the subscription.
		let resumeOrigin = '';
		const started = await sendAndSubscribeForReply(
			executor,
			parameters.input,
			{
				url: (watch, deadline) => {
					const url = replySubscriptionUrl(context, watch, deadline);
					resumeOrigin = url.origin;
					return url.href;
				},
				ownsUrl: (url, watch) => isReplySubscriptionOf(url, watch.message_uid),
				// Left by waits that timed out: n8n runs no node code on a time-out.
				isStale: (url) => isExpiredReplySubscription(url, resumeOrigin, n8nTiming.now()),
				howToFix: PUBLIC_URL_ADVICE,
			},
			{ timing: n8nTiming },
		);
		if ('reply' in started) return [[replyItem(started.watch, started.reply, started.sent as IDataObject)]];
		await context.putExecutionToWait(new Date(started.deadline));
		return [items];
	} catch (error) {
		if (context.continueOnFail()) {
			return [[{ json: { error: (error as Error).message }, pairedItem: { item: 0 } }]];
		}
		throw toNodeError(context.getNode(), error, 0);
	}
}

/** Whether a subscription URL is the temporary one of this wait: the one naming the sent message (unique per send). */
function isReplySubscriptionOf(subscriptionUrl: string, sentMessageUid: string): boolean {
	try {
		const url = new URL(subscriptionUrl);
		return url.searchParams.get(AFTER_PARAMETER) === sentMessageUid && url.searchParams.has(CHAT_PARAMETER);
	} catch {
		return false;
	}
}

/** Deletes the temporary subscription of this wait. */
async function removeOwnSubscriptions(executor: Executor, sentMessageUid: string): Promise<void> {
	await deleteSubscriptions(executor, [], (url) => isReplySubscriptionOf(url, sentMessageUid));
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
