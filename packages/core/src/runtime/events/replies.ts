/**
 * Send and wait for reply, shared by n8n and Node-RED: after a message is sent into a chat, the
 * customer's next inbound message in that chat is its reply. It is recognised either in a webhook
 * delivery (`replyInDelivery`, for a platform that subscribes a temporary URL) or by reading the
 * chat's messages after the sent one (`findReply`, `waitForReply`), with a time-out.
 *
 * A reply is an inbound message of the same chat that comes after the sent message: by position in
 * the chat's history (`after_message`), so equal timestamps never confuse them.
 */
import { inputError } from '../errors';
import { parseDelivery, type ChatEvent } from './delivery';
import type { Executor } from '../executor';
import { polledEvent } from './polling';
import type { Timing } from '../../catalogue/types';
import { isBlank, isRecord } from '../validation';
import { pauseBetweenLooks, type WaitReporting } from '../waiting';

/** What a wait for a reply needs to know about the message sent. */
export interface ReplyWatch {
	/** The chat the message went to (the send's answer carries it). */
	chat_id: number | string;
	/** The sent message: only inbound messages after it count. */
	message_uid: string;
}

/** Reads the watch from a send's answer (`{message_uid, chat_id}`), or names what is missing. */
export function replyWatchOf(sent: Record<string, unknown>): ReplyWatch {
	if (typeof sent.message_uid !== 'string' || !sent.message_uid)
		throw inputError('message_uid', 'the send returned no message uid to wait after');
	if (isBlank(sent.chat_id)) {
		throw inputError('chat_id', 'the send returned no chat id, so there is no chat to wait in');
	}
	return { chat_id: sent.chat_id as number | string, message_uid: sent.message_uid };
}

/**
 * The watch for a send's answer. The spec's send answer holds only `message_uid`; the chat is then
 * read from the message record (one request).
 */
export async function replyWatchFor(executor: Executor, sent: Record<string, unknown>): Promise<ReplyWatch> {
	if (isBlank(sent.chat_id) && typeof sent.message_uid === 'string' && sent.message_uid) {
		const message = await executor.run('message:get', { message_uid: sent.message_uid });
		if (isRecord(message)) return replyWatchOf({ ...sent, chat_id: message.chat_id });
	}
	return replyWatchOf(sent);
}

/**
 * The reply in a webhook delivery: a `message:received:new` of the watched chat, as a ChatEvent.
 * Undefined for anything else (another chat, another event type, a malformed body), which the
 * receiver acknowledges and ignores.
 */
export function replyInDelivery(body: unknown, watch: ReplyWatch): ChatEvent | undefined {
	const parsed = parseDelivery(body);
	if (!('event' in parsed)) return undefined;
	const { event } = parsed;
	if (event.event_type !== 'message:received:new') return undefined;
	if (event.chat_id === null || String(event.chat_id) !== String(watch.chat_id)) return undefined;
	if (event.message_uid !== null && event.message_uid === watch.message_uid) return undefined;
	return event;
}

/**
 * One look for the reply: the oldest inbound message after the sent one, with the chat record, as a
 * polled `message:received:new` event; undefined when the customer has not answered. Costs one
 * request while nothing came (two once a reply is found: the chat is read for its name).
 */
export async function findReply(executor: Executor, watch: ReplyWatch): Promise<ChatEvent | undefined> {
	let oldest: Record<string, unknown> | undefined;
	for (let page = 1; ; page++) {
		const { items, more } = await executor.listPage(
			'message:getAll',
			{ chat_id: watch.chat_id, from_me: false, after_message: watch.message_uid },
			page,
		);
		// Newest first: the last item of the last page is the first reply.
		const inbound = items.filter((item) => item.from_me !== true);
		if (inbound.length) oldest = inbound[inbound.length - 1];
		if (!more) break;
	}
	if (!oldest) return undefined;
	const chat = await executor.run('chat:get', { chat_id: watch.chat_id });
	return polledEvent('message:received:new', isRecord(chat) ? chat : { id: watch.chat_id }, oldest);
}

export interface WaitForReplyOptions extends WaitReporting {
	timeoutMs: number;
	/** Pause between two looks (default: a tenth of the time-out, between 2 s and 60 s). */
	intervalMs?: number;
	timing: Timing;
}

export type ReplyOutcome = { reply: ChatEvent } | { timedOut: true; waitedMs: number } | { cancelled: true };

/** The default pause between looks for a reply. */
export function replyPollInterval(timeoutMs: number): number {
	return Math.min(60_000, Math.max(2000, Math.round(timeoutMs / 10)));
}

/**
 * Looks for the reply until it comes or the time-out passes; a time-out is an outcome, not an error
 * (the platforms route it: n8n's time-out branch, Node-RED's third output). Errors of the service
 * (an unknown chat, a bad token) are thrown.
 */
export async function waitForReply(executor: Executor, watch: ReplyWatch, options: WaitForReplyOptions): Promise<ReplyOutcome> {
	if (!Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0) {
		throw inputError('timeout', `must be more than 0, got ${options.timeoutMs}`);
	}
	const { timing } = options;
	const startedAt = timing.now();
	const deadline = startedAt + options.timeoutMs;
	const interval = Math.max(100, options.intervalMs ?? replyPollInterval(options.timeoutMs));
	let looks = 0;
	const report = () =>
		options.onProgress?.({
			awaiting: 'reply',
			message_uid: watch.message_uid,
			elapsedMs: timing.now() - startedAt,
			timeoutMs: options.timeoutMs,
			looks,
		});
	for (;;) {
		if (options.cancelled?.()) return { cancelled: true };
		const reply = await findReply(executor, watch);
		looks++;
		if (reply) return { reply };
		const left = deadline - timing.now();
		if (left <= 0) return { timedOut: true, waitedMs: timing.now() - startedAt };
		report();
		await pauseBetweenLooks(timing, Math.min(interval, left), options, report);
	}
}
