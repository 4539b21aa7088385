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
import { parseDelivery, type ChatEvent } from './delivery';
import type { Executor } from '../executor';
import { isRecord } from '../validation';

/** What a poll looks for. */
export type PollSource = 'messageReceived' | 'messageSent' | 'chatCreated';

/** The webhook event type each source stands in for: polled events look like webhook events. */
export const POLL_EVENT_TYPES: Readonly<Record<PollSource, string>> = {
	messageReceived: 'message:received:new',
	messageSent: 'message:sent:new',
	chatCreated: 'chat:created',
};

export const POLL_SOURCES: readonly PollSource[] = ['messageReceived', 'messageSent', 'chatCreated'];

/** Where a poll stopped. `at`: epoch ms of a whole second; `seen`: `[key, epoch ms]` of items emitted at or after it. */
export interface PollCursor {
	v: 1;
	source: PollSource;
	at: number;
	seen: Array<[string, number]>;
}

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

/** A cursor is kept only when it is one this module wrote for the same source; anything else starts afresh. */
function readCursor(value: unknown, source: PollSource): PollCursor | undefined {
	if (!isRecord(value) || value.v !== 1 || value.source !== source) return undefined;
	if (typeof value.at !== 'number' || !Number.isFinite(value.at) || !Array.isArray(value.seen)) return undefined;
	const seen = value.seen.filter(
		(entry): entry is [string, number] => Array.isArray(entry) && typeof entry[0] === 'string' && typeof entry[1] === 'number',
	);
	return { v: 1, source, at: value.at, seen };
}

const wholeSecond = (ms: number): number => Math.floor(ms / 1000) * 1000;

/**
 * Reads a record timestamp: the spec's `YYYY-MM-DD HH:MM:SS ±ZZZZ`, or ISO 8601. Null when absent
 * or unreadable (such an item cannot be placed against the cursor and is left out).
 */
export function parseRecordTime(value: unknown): number | null {
	if (typeof value !== 'string' || !value.trim()) return null;
	const spec = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.\d+)? ?([+-])(\d{2}):?(\d{2})$/.exec(value.trim());
	const ms = spec ? Date.parse(`${spec[1]}T${spec[2]}${spec[3]}${spec[4]}:${spec[5]}`) : Date.parse(value);
	return Number.isNaN(ms) ? null : ms;
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

/**
 * Catch-up for webhook receivers: the same cursor, kept up to date with what the deliveries handed on, so that after
 * a restart `pollEvents` reads only what arrived while the receiver was down, and nothing a delivery already passed.
 *
 * The cursor's rule stays: every event of the source at or after `at` that was handed on has its key in `seen`. A
 * delivery adds its key; `at` follows at `horizonMs` behind the newest delivery (a delivery the service is still
 * retrying is older than its arrival by up to its retry horizon), and further forward only to keep `seen` within
 * `limit` keys.
 */
export const CATCH_UP_HORIZON_MS = 15 * 60_000;
export const CATCH_UP_SEEN_LIMIT = 1000;

/** The poll source that stands for a webhook event type, if any (only these can be read back). */
export function pollSourceOf(eventType: string): PollSource | undefined {
	return POLL_SOURCES.find((source) => POLL_EVENT_TYPES[source] === eventType);
}

/** The key a poll of `source` knows an event by (`message|<uid>`, `chat|<id>`). */
function pollKeyOf(event: ChatEvent): string | undefined {
	if (event.event_type === POLL_EVENT_TYPES.chatCreated) return event.chat_id === null ? undefined : `chat|${String(event.chat_id)}`;
	return event.message_uid ? `message|${event.message_uid}` : undefined;
}

/** The record time a delivery carries (spec-shaped `data`, or the live shape's records), if any. */
function deliveredAt(event: ChatEvent): number | undefined {
	const raw = event.raw;
	const data = isRecord(raw.data) ? raw.data : {};
	const record = event.event_type === POLL_EVENT_TYPES.chatCreated ? raw.chat : raw.message;
	const own = isRecord(record) ? record : {};
	const field = event.event_type === POLL_EVENT_TYPES.chatCreated ? 'created_timestamp' : 'timestamp';
	return [data[field], own[field]].map(parseRecordTime).find((ms): ms is number => ms !== null);
}

/** `at` no earlier than `floor`, and moved on until `seen` holds at most `limit` keys; keys behind `at` forgotten. */
function bounded(cursor: PollCursor, floor: number, limit: number): PollCursor {
	let at = Math.max(cursor.at, wholeSecond(floor));
	const newestFirst = cursor.seen.filter(([, seenAt]) => seenAt >= at).sort((a, b) => b[1] - a[1]);
	const oldestKept = newestFirst[limit - 1];
	if (newestFirst.length > limit && oldestKept) at = Math.max(at, wholeSecond(oldestKept[1]));
	const seen = newestFirst.filter(([, seenAt]) => seenAt >= at).reverse();
	return { v: 1, source: cursor.source, at, seen };
}

/**
 * The cursor after a delivery of `event` was handed on at `now`. Undefined when there is no cursor yet (the first
 * start places it) or the event has no key; the stored one is kept then. `source`: the cursor's, when it is not the
 * event's own (a sent message recorded in the received messages' cursor too: a poll then skips a chat whose last
 * message, in either direction, was handed on, and a catch-up after a busy time costs fewer requests).
 */
export function cursorAfterDelivery(
	stored: unknown,
	event: ChatEvent,
	now: number,
	options: { source?: PollSource; horizonMs?: number; limit?: number } = {},
): PollCursor | undefined {
	const source = options.source ?? pollSourceOf(event.event_type);
	const cursor = source && readCursor(stored, source);
	const key = pollKeyOf(event);
	if (!cursor || !key) return undefined;
	// Never earlier than the arrival: a key must outlive every cursor that could read its event again.
	const seenAt = Math.max(now, deliveredAt(event) ?? now);
	const seen = cursor.seen.filter(([seenKey]) => seenKey !== key);
	seen.push([key, seenAt]);
	return bounded({ ...cursor, seen }, now - (options.horizonMs ?? CATCH_UP_HORIZON_MS), options.limit ?? CATCH_UP_SEEN_LIMIT);
}

/** Two cursors of one source as one: the later `at`, the keys of both (a catch-up's result and deliveries made meanwhile). */
export function mergeCursors(stored: unknown, next: PollCursor, limit = CATCH_UP_SEEN_LIMIT): PollCursor {
	const other = readCursor(stored, next.source);
	if (!other) return next;
	const seen = new Map(other.seen);
	for (const [key, seenAt] of next.seen) seen.set(key, Math.max(seenAt, seen.get(key) ?? seenAt));
	return bounded({ v: 1, source: next.source, at: Math.max(other.at, next.at), seen: [...seen] }, 0, limit);
}

/** The redelivery keys (`eventKey`) of what a cursor holds as handed on, to seed a receiver's memory after a restart. */
export function deliveredKeysOf(stored: unknown, source: PollSource): string[] {
	const cursor = readCursor(stored, source);
	if (!cursor) return [];
	return cursor.seen.map(([key]) => {
		const [kind, id] = [key.slice(0, key.indexOf('|')), key.slice(key.indexOf('|') + 1)];
		return `${kind === 'chat' ? POLL_EVENT_TYPES.chatCreated : POLL_EVENT_TYPES[source]}|${id}`;
	});
}
