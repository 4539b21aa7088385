/**
 * The poll cursor: where a poll of one source stopped (`at`, a whole second, and the keys of what was emitted
 * at or after it), plain JSON for n8n's static data or Node-RED's context. Polling (polling.ts) reads and
 * writes it; webhook receivers keep it up to date with what their deliveries handed on (catch-up, below).
 */
import { parseRecordTime, type ChatEvent } from './delivery';
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

/** A cursor is kept only when it is one this module wrote for the same source; anything else starts afresh. */
export function readCursor(value: unknown, source: PollSource): PollCursor | undefined {
	if (!isRecord(value) || value.v !== 1 || value.source !== source) return undefined;
	if (typeof value.at !== 'number' || !Number.isFinite(value.at) || !Array.isArray(value.seen)) return undefined;
	const seen = value.seen.filter(
		(entry): entry is [string, number] => Array.isArray(entry) && typeof entry[0] === 'string' && typeof entry[1] === 'number',
	);
	return { v: 1, source, at: value.at, seen };
}

export const wholeSecond = (ms: number): number => Math.floor(ms / 1000) * 1000;

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

const CATCH_UP_SEEN_LIMIT = 1000;

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
