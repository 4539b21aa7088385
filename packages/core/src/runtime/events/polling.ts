/**
 * Polling for new events without a webhook subscription, shared by the n8n polling trigger and the
 * Node-RED nodes: new inbound messages, new sent messages and new chats since a stored cursor.
 *
 * The service offers no workspace-wide message feed, so messages are found through the chat list,
 * which is ordered by the timestamp of each chat's latest message, newest first (spec, GET /chats):
 * the walk reads chat pages until a chat's latest message is older than the cursor, then reads the
 * new messages of each chat it passed (GET /chats/{id}/messages?from_me=&after=, newest first).
 * Request cost of one poll: ceil((changed chats + 1) / 50) chat pages, plus one message page per
 * changed chat (more only for a chat with over 50 new messages); a chat whose latest message was
 * already emitted is not read again. A quiet workspace costs 1 request.
 * New chats are read with `created_after` (every page of the answer: the list is not ordered by
 * creation): ceil(new chats / 50) requests, at least 1.
 *
 * Exactly once: record timestamps have whole seconds, so several items can share the cursor's
 * second. The cursor holds that second and the keys already emitted at or after it; each poll reads
 * from the cursor's second inclusive and skips the keys it holds. A queued outbound message (not yet
 * sent) holds the cursor back so it is emitted once it is sent. The cursor is plain JSON, for n8n's
 * static data or Node-RED's context, so restarts resume where the last poll stopped.
 */
import { inputError } from '../errors';
import { parseDelivery, parseRecordTime, type ChatEvent } from './delivery';
import { POLL_EVENT_TYPES, POLL_SOURCES, readCursor, wholeSecond, type PollCursor, type PollSource } from './cursor';
import type { Executor } from '../executor';

/** Chat-list filters that narrow what is polled (server side). */
export interface PollFilter {
	/** Chats having at least one of these labels. */
	labels?: string[];
	/** Chats of any of these chat-app accounts (wid). */
	accountIds?: string[];
	/** true: group chats only; false: direct chats only. */
	group?: boolean;
}

export interface PollOptions {
	source: PollSource;
	/** The cursor the last poll returned; none on the first activation. */
	cursor?: unknown;
	/** First activation only: how far back to emit existing items. 0 (default) emits nothing that exists already. */
	lookbackMs?: number;
	filter?: PollFilter;
	/**
	 * Also re-read this far behind the cursor, for a service that makes items visible later than their
	 * timestamp; emitted keys are remembered over the same span, so nothing comes twice. Default 0.
	 */
	overlapMs?: number;
	/** The current time (epoch ms): the platform's clock, injected. */
	now: number;
}

export interface PollResult {
	/** New events, oldest first. Each is shaped as the matching webhook delivery (see `polledEvent`). */
	events: ChatEvent[];
	/** Store it and pass it to the next poll. */
	cursor: PollCursor;
	/** Requests this poll made (without retries). */
	requests: number;
	/** True on the first activation without a look-back: the cursor was placed, nothing emitted. */
	primed: boolean;
}

/** The query value for "after": one second before the cursor, so the cursor's own second is read again whatever the service's rounding. */
const afterQuery = (ms: number): string => new Date(wholeSecond(ms) - 1000).toISOString();

function chatListFilter(filter: PollFilter = {}): Record<string, unknown> {
	const query: Record<string, unknown> = {};
	if (filter.labels?.length) query.label = filter.labels;
	if (filter.accountIds?.length) query.chatapp_account_id = filter.accountIds;
	if (filter.group !== undefined) query.group = filter.group;
	return query;
}

/**
 * A polled item as a webhook delivery of the spec's shape, with the records alongside:
 * `{event_type, source: "polling", data: {chat_id, chat_name, text, message_uid, unattended_customer,
 * timestamp}, chat, message}`. parseDelivery reads it like any delivery, so both triggers and
 * send-and-wait output the same fields.
 */
export function polledEvent(eventType: string, chat: Record<string, unknown>, message?: Record<string, unknown>): ChatEvent {
	const raw: Record<string, unknown> = {
		event_type: eventType,
		source: 'polling',
		data: message
			? {
					chat_id: message.chat_id ?? chat.id,
					chat_name: chat.name ?? null,
					text: message.text ?? null,
					message_uid: message.uid ?? null,
					unattended_customer: chat.unattended ?? null,
					timestamp: message.timestamp ?? null,
				}
			: {
					chat_id: chat.id,
					chat_name: chat.name ?? null,
					unattended_customer: chat.unattended ?? null,
					timestamp: chat.created_timestamp ?? null,
				},
		chat,
		...(message ? { message } : {}),
	};
	const parsed = parseDelivery(raw);
	if (!('event' in parsed)) throw new Error(`polled event not readable: ${parsed.malformed}`); // cannot happen: raw is built above
	return parsed.event;
}

interface Candidate {
	key: string;
	at: number;
	/** Not yet emittable (a queued outbound message): holds the cursor back. */
	pending: boolean;
	event: () => ChatEvent;
}

/** Counts requests as it makes them. */
class Reader {
	requests = 0;
	constructor(private readonly executor: Executor) {}

	async page(
		operation: string,
		input: Record<string, unknown>,
		page: number,
	): Promise<{ items: Record<string, unknown>[]; more: boolean }> {
		this.requests++;
		return await this.executor.listPage(operation, input, page);
	}

	async all(operation: string, input: Record<string, unknown>): Promise<Record<string, unknown>[]> {
		const out: Record<string, unknown>[] = [];
		for (let page = 1; ; page++) {
			const { items, more } = await this.page(operation, input, page);
			out.push(...items);
			if (!more) return out;
		}
	}
}

/**
 * Chats whose latest message is at or after `since`, in list order (newest first), except those whose
 * latest message was already emitted (`skip`): everything before it in that chat was read with it.
 */
async function chatsChangedSince(
	reader: Reader,
	since: number,
	filter: PollFilter | undefined,
	skip: (chat: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>[]> {
	const changed: Record<string, unknown>[] = [];
	for (let page = 1; ; page++) {
		const { items, more } = await reader.page('chat:getAll', chatListFilter(filter), page);
		for (const chat of items) {
			const latest = parseRecordTime(chat.last_message_timestamp);
			if (latest === null) continue; // no message yet: nothing to read, and no age to stop at
			if (latest < since) return changed;
			if (!skip(chat)) changed.push(chat);
		}
		if (!more) return changed;
	}
}

async function messageCandidates(
	reader: Reader,
	source: PollSource,
	since: number,
	filter: PollFilter | undefined,
	skip: (chat: Record<string, unknown>) => boolean,
): Promise<Candidate[]> {
	const fromMe = source === 'messageSent';
	const eventType = POLL_EVENT_TYPES[source];
	const candidates: Candidate[] = [];
	for (const chat of await chatsChangedSince(reader, since, filter, skip)) {
		const messages = await reader.all('message:getAll', { chat_id: chat.id, from_me: fromMe, after: afterQuery(since) });
		// Newest first as listed; reversed so messages of one second keep their order in the chat.
		for (const message of messages.reverse()) {
			const at = parseRecordTime(message.timestamp);
			if (at === null || at < since || typeof message.uid !== 'string') continue;
			// The service filters by from_me; checked again so a service ignoring the filter cannot mix directions.
			if (message.from_me !== undefined && Boolean(message.from_me) !== fromMe) continue;
			if (fromMe && message.status === 'failed') continue; // never sent: not a "sent" event
			candidates.push({
				key: `message|${message.uid}`,
				at,
				pending: fromMe && message.status === 'queued',
				event: () => polledEvent(eventType, chat, message),
			});
		}
	}
	return candidates;
}

async function chatCandidates(reader: Reader, since: number, filter?: PollFilter): Promise<Candidate[]> {
	const chats = await reader.all('chat:getAll', { ...chatListFilter(filter), created_after: afterQuery(since) });
	const candidates: Candidate[] = [];
	for (const chat of chats) {
		const at = parseRecordTime(chat.created_timestamp);
		if (at === null || at < since || chat.id === undefined || chat.id === null) continue;
		candidates.push({ key: `chat|${String(chat.id)}`, at, pending: false, event: () => polledEvent('chat:created', chat) });
	}
	return candidates;
}

/**
 * One poll: the events since the cursor, each once, and the cursor to store. Without a cursor (first
 * activation) the cursor is placed at `now − lookbackMs`; with no look-back nothing that exists is
 * emitted (`primed`), so history is never replayed.
 */
export async function pollEvents(executor: Executor, options: PollOptions): Promise<PollResult> {
	const { source } = options;
	if (!POLL_SOURCES.includes(source)) throw inputError('event', `must be one of ${POLL_SOURCES.join(', ')}, got "${String(source)}"`);
	const lookbackMs = options.lookbackMs ?? 0;
	if (!Number.isFinite(lookbackMs) || lookbackMs < 0) throw inputError('lookback', `must be zero or more, got ${lookbackMs}`);
	const overlapMs = Math.max(0, options.overlapMs ?? 0);
	const stored = readCursor(options.cursor, source);
	const cursor: PollCursor = stored ?? { v: 1, source, at: wholeSecond(options.now - lookbackMs), seen: [] };
	const priming = !stored && lookbackMs === 0;
	const since = wholeSecond(cursor.at - overlapMs);
	const seen = new Map(cursor.seen);

	const reader = new Reader(executor);
	// A chat whose latest message was emitted has nothing new: it is not read again (chats of the cursor's
	// second would otherwise be re-read every poll). With an overlap, late arrivals behind it are looked for.
	const alreadyEmitted = (chat: Record<string, unknown>) =>
		overlapMs === 0 && typeof chat.last_message_uid === 'string' && seen.has(`message|${chat.last_message_uid}`);
	const candidates =
		source === 'chatCreated'
			? await chatCandidates(reader, since, options.filter)
			: await messageCandidates(reader, source, since, options.filter, alreadyEmitted);
	// By second; within a second, chat by chat (the service gives no finer order across chats).
	candidates.sort((a, b) => a.at - b.at);

	const events: ChatEvent[] = [];
	let newest = cursor.at;
	let oldestPending = Infinity;
	for (const candidate of candidates) {
		if (candidate.pending) {
			oldestPending = Math.min(oldestPending, candidate.at);
			continue;
		}
		newest = Math.max(newest, candidate.at);
		if (seen.has(candidate.key)) continue;
		seen.set(candidate.key, candidate.at);
		if (!priming) events.push(candidate.event());
	}
	// Never past a message still queued, never back before the stored cursor (the keys behind it are forgotten).
	const at = wholeSecond(Math.max(cursor.at, Math.min(newest, oldestPending)));
	const keepFrom = at - overlapMs;
	const kept = [...seen].filter(([, seenAt]) => seenAt >= keepFrom);
	return { events, cursor: { v: 1, source, at, seen: kept }, requests: reader.requests, primed: priming };
}

/**
 * A real recent item for "Fetch Test Event": the newest received (or sent) message among the most
 * recently active chats (up to `chatsToSearch` of them, 1 + that many requests at most), or the newest
 * created chat on the first page. Undefined when the workspace has none.
 */
export async function pollSample(
	executor: Executor,
	source: PollSource,
	options: { filter?: PollFilter; chatsToSearch?: number } = {},
): Promise<ChatEvent | undefined> {
	if (!POLL_SOURCES.includes(source)) throw inputError('event', `must be one of ${POLL_SOURCES.join(', ')}, got "${String(source)}"`);
	const reader = new Reader(executor);
	const { items: chats } = await reader.page('chat:getAll', chatListFilter(options.filter), 1);
	if (source === 'chatCreated') {
		const newest = chats
			.filter((chat) => parseRecordTime(chat.created_timestamp) !== null)
			.sort((a, b) => (parseRecordTime(b.created_timestamp) ?? 0) - (parseRecordTime(a.created_timestamp) ?? 0))[0];
		return newest ? polledEvent('chat:created', newest) : undefined;
	}
	const fromMe = source === 'messageSent';
	for (const chat of chats.slice(0, Math.max(1, options.chatsToSearch ?? 10))) {
		if (parseRecordTime(chat.last_message_timestamp) === null) continue;
		const { items: messages } = await reader.page('message:getAll', { chat_id: chat.id, from_me: fromMe }, 1);
		const message = messages.find((item) => typeof item.uid === 'string' && Boolean(item.from_me) === fromMe);
		if (message) return polledEvent(POLL_EVENT_TYPES[source], chat, message);
	}
	return undefined;
}
