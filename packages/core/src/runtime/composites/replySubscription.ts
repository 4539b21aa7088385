/**
 * Send and Wait for Reply for a platform that pauses the run and is woken by a webhook delivery (n8n's action
 * node: the execution waits, its resume URL receives the reply). Everything up to the pause is one call: the
 * input checked before any request, the send (Send's handler: a lost answer looked up, never sent twice), the
 * chat to watch, a temporary `message:received:new` subscription at the platform's receiver URL, and one look
 * for a reply that came before the subscription could deliver it. The platform then pauses until the deadline;
 * the delivery at its URL is recognised by `replyInDelivery` (replies.ts).
 */
import { SEND_COMPOSITE } from '../../catalogue/composites';
import type { Timing } from '../../catalogue/types';
import type { Executor } from '../executor';
import { planSendAndWaitForReply, runSend } from './compositeHandlers';
import type { ChatEvent } from '../events/delivery';
import { findReply, replyWatchFor, type ReplyWatch } from '../events/replies';
import { checkReceiverUrl, deleteSubscriptions } from '../events/subscriptions';

/** Where and how the platform receives the reply. */
export interface ReplyReceiver {
	/** The address the service delivers to for this wait (the platform's resume URL, with what recognises the reply). */
	url: (watch: ReplyWatch, deadline: number) => string | Promise<string>;
	/** Whether a subscription's URL is this wait's: removed when the reply is found before the pause. */
	ownsUrl: (url: string, watch: ReplyWatch) => boolean;
	/** Whether a subscription's URL is a leftover of an earlier wait whose time has passed: removed before subscribing. */
	isStale?: (url: string) => boolean;
	/** The platform's advice when the service cannot reach `url` (checkReceiverUrl). */
	howToFix: string;
}

/** The send's answer, the chat watched, and either the reply (it came at once) or when the wait ends. */
export type ReplySubscription = { sent: Record<string, unknown>; watch: ReplyWatch } & (
	{ reply: ChatEvent } | { subscribed: true; deadline: number }
);

/**
 * Sends the message of Send and Wait for Reply (`message:sendAndWaitForReply`'s input) and subscribes the
 * receiver for the reply. `timing`: the platform's clock (the executor's by default), for the deadline.
 */
export async function sendAndSubscribeForReply(
	executor: Executor,
	input: Record<string, unknown>,
	receiver: ReplyReceiver,
	options: { timing?: Pick<Timing, 'now'> } = {},
): Promise<ReplySubscription> {
	const timing = options.timing ?? executor.timing;
	const plan = planSendAndWaitForReply(executor, input);
	const sent = await runSend(executor, { ...input, [SEND_COMPOSITE.variants.name]: plan.sendTo });
	const watch = await replyWatchFor(executor, sent);
	const deadline = timing.now() + plan.timeoutMs;
	const url = await receiver.url(watch, deadline);
	checkReceiverUrl(executor.baseUrl, url, receiver.howToFix);
	const { isStale } = receiver;
	if (isStale) await deleteSubscriptions(executor, [], isStale);
	await executor.run('webhook:create', { event_type: 'message:received:new', url, enabled: true });
	// A reply that came between the send and the subscription would never be delivered to it: look once.
	const early = await findReply(executor, watch);
	if (early) {
		await deleteSubscriptions(executor, [], (subscriptionUrl) => receiver.ownsUrl(subscriptionUrl, watch));
		return { sent, watch, reply: early };
	}
	return { sent, watch, subscribed: true, deadline };
}
