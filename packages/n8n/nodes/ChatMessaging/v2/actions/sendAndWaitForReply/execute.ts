/**
 * Send and Wait for Reply: sends a message into a chat (or to a phone number), then waits for the
 * customer's next message in that chat, with a time-out. This folder holds its parameters
 * (description.ts), its execute, the webhook the reply resumes it through, and the reply's watch
 * (replyWatch.ts); the router (../router.ts) sends it the executions and webhook requests of the operation.
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
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { chatId, DEFAULT_REPLY_POLL_S, inputError, runSendAndWaitForReply, sendAndSubscribeForReply } from '@chat-messaging/core';
import { createExecutor, n8nTiming } from '../../../../shared/transport';
import { locatorValue } from '../../fields';
import { secondsPerUnit, waitOnce } from '../wait';
import { DEFAULT_REPLY_SEND_TO, DEFAULT_TIMEOUT_HOURS } from './description';
import { isExpiredReplySubscription, isReplySubscriptionOf, replyItem, replySubscriptionUrl } from './replyWatch';

interface ReplyWaitParameters {
	/** The composite's input (packages/core/src/runtime/composites/compositeHandlers.ts). */
	input: Record<string, unknown>;
	using: 'webhook' | 'polling';
}

/** The parameters as the composite's input; the core checks them all before the first request. */
function readParameters(context: IExecuteFunctions): ReplyWaitParameters {
	const sendTo = String(context.getNodeParameter('replyWaitSendTo', 0, DEFAULT_REPLY_SEND_TO));
	const amount = Number(context.getNodeParameter('replyWaitTimeout', 0, DEFAULT_TIMEOUT_HOURS));
	const seconds = secondsPerUnit(String(context.getNodeParameter('replyWaitTimeoutUnit', 0, 'hours')), 'Time-Out Unit');
	if (!Number.isFinite(amount) || amount <= 0) throw inputError('Time-Out', `must be more than 0, got ${amount}`);
	const using = String(context.getNodeParameter('replyWaitUsing', 0, 'webhook'));
	if (using !== 'webhook' && using !== 'polling') throw inputError('Wait Using', `must be webhook or polling, got "${using}"`);
	const input: Record<string, unknown> = {
		sendTo,
		text: String(context.getNodeParameter('replyWaitText', 0, '') ?? ''),
		replyTimeout: amount * seconds,
		pollInterval: Number(context.getNodeParameter('replyWaitPollSeconds', 0, DEFAULT_REPLY_POLL_S)),
	};
	if (sendTo === 'phone') input.phone = String(context.getNodeParameter('replyWaitPhone', 0, '') ?? '').trim();
	if (sendTo === 'chatName') input.chat_name = String(context.getNodeParameter('replyWaitChatName', 0, '') ?? '').trim();
	if (sendTo === 'jid') input.jid = String(context.getNodeParameter('replyWaitJid', 0, '') ?? '').trim();
	if (sendTo === 'chat') input.chat_id = locatorValue(chatId, context.getNodeParameter('replyWaitChatId', 0, ''));
	return { input, using };
}

const PUBLIC_URL_ADVICE =
	"Set n8n's public webhook URL (WEBHOOK_URL) to an HTTPS address the internet reaches (for example through a tunnel such as cloudflared or ngrok), or set Wait Using to Polling";

/** The operation's execute: the message, then the wait, in webhook mode or by polling. */
export async function executeSendAndWaitForReply(context: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await waitOnce(context, { name: 'Send and Wait for Reply', waitsFor: 'reply' }, async (items) => {
		const parameters = readParameters(context);
		const executor = await createExecutor(context);
		if (parameters.using === 'polling') {
			const result = { ...(await runSendAndWaitForReply(executor, parameters.input, { timing: n8nTiming })) };
			// The node's output has never carried how long the wait took.
			delete result.waited_ms;
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
	});
}
