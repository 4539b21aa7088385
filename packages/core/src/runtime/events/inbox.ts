/**
 * The inbox options (packages/core/src/catalogue/inboxOptions.ts) for the webhook trigger, the Poll Trigger and
 * the Node-RED event node; the adapters only read the options and keep the state where their platform
 * keeps things.
 *
 * Human takeover: an event of a chat that a person handles is skipped — a chat with a responsible
 * teammate, and/or a chat where a teammate wrote (an outbound message not sent through the API) within
 * the last N minutes. What an event carries is used first (polled events carry the chat record, the live
 * webhook shape the chat's responsible_email); otherwise one request per check, per chat, cached
 * briefly, so a burst of one chat costs one lookup. A teammate's message seen stays a fact until its
 * window ends, so that answer is kept without asking again.
 *
 * Burst batching: received messages are held per chat until the customer has been quiet for N
 * seconds, then emitted as one event (texts joined, every uid kept). The held messages are plain JSON
 * (`BurstState`), stored by the platform with its cursor, so a restart neither loses nor repeats one.
 * Nothing here sets a timer: the caller asks `releaseBursts` at each poll (n8n) or when the quiet time
 * of the newest held message has passed (Node-RED).
 */
import { BURST_QUIET_OPTION, SKIP_ASSIGNED_OPTION, TEAMMATE_QUIET_OPTION } from '../../catalogue/inboxOptions';
import { inputError } from '../errors';
import type { ChatEvent } from './delivery';
import { API_ORIGIN } from './eventFilter';
import type { Executor } from '../executor';
import { parseRecordTime } from './polling';
import { isRecord } from '../validation';

export interface InboxOptions {
	/** Skip chats with a responsible teammate. */
	skipAssigned: boolean;
	/** Skip chats where a teammate wrote within this many minutes; 0: off. */
	teammateQuietMinutes: number;
	/** Hold received messages until the chat has been quiet this many seconds; 0: off. */
	burstQuietSeconds: number;
}

export const INBOX_OFF: InboxOptions = { skipAssigned: false, teammateQuietMinutes: 0, burstQuietSeconds: 0 };

/**
 * How long a lookup's answer is trusted: long enough that a customer's burst costs one lookup, short
 * because an assignment or a teammate's message can come at any moment.
 */
export const TAKEOVER_CACHE_MS = 5_000;

/** A burst longer than this is emitted at once, so held state stays small whatever a chat does. */
export const MAX_BURST_MESSAGES = 50;

function numberOption(value: unknown, option: { name: string; displayName: string }): number {
	if (value === undefined || value === null || value === '') return 0;
	const number = typeof value === 'number' ? value : Number(String(value).trim());
	if (!Number.isFinite(number) || number < 0) {
		throw inputError(option.name, `must be a number of 0 or more, got ${JSON.stringify(value)}`, option.displayName);
	}
	return number;
}

/**
 * The options from saved values (an n8n Options collection, a Node-RED node's properties): a value left
 * out is off, so what was saved before the options existed runs as before; a wrong value names the field.
 */
export function readInboxOptions(values: Record<string, unknown>): InboxOptions {
	const assigned = values[SKIP_ASSIGNED_OPTION.name];
	return {
		skipAssigned: assigned === true || assigned === 'true',
		teammateQuietMinutes: numberOption(values[TEAMMATE_QUIET_OPTION.name], TEAMMATE_QUIET_OPTION),
		burstQuietSeconds: numberOption(values[BURST_QUIET_OPTION.name], BURST_QUIET_OPTION),
	};
}

export const takeoverIsOff = (options: InboxOptions): boolean => !options.skipAssigned && !(options.teammateQuietMinutes > 0);

const record = (value: unknown): Record<string, unknown> => (isRecord(value) ? value : {});

/** The responsible teammate the event's chat record says, when it carries one (`undefined`: not carried). */
function carriedResponsible(event: ChatEvent): { known: boolean; email: unknown } {
	const chat = record(event.raw.chat);
	for (const key of ['responsible_email', 'responsible']) {
		if (key in chat) return { known: true, email: chat[key] };
	}
	return { known: false, email: undefined };
}

const isAssigned = (email: unknown): boolean => typeof email === 'string' && email.trim() !== '';

interface ChatLookup {
	assignedAt?: { value: boolean; at: number };
	/** Newest teammate message found (epoch ms), or null for none, and when that was asked. */
	teammate?: { lastAt: number | null; askedAt: number };
}

/** Why an event is skipped, for logs and tests. */
export type TakeoverReason = 'assigned' | 'teammate';

/**
 * Decides human takeover per event. Keep one per trigger or node (its cache is per chat): `now` is the
 * platform's clock.
 */
export class HumanTakeover {
	private readonly cache = new Map<string, ChatLookup>();
	/** Lookups made (for tests and the request-cost note). */
	lookups = 0;

	constructor(
		private readonly options: InboxOptions,
		private readonly now: () => number,
		private readonly cacheMs = TAKEOVER_CACHE_MS,
	) {}

	get off(): boolean {
		return takeoverIsOff(this.options);
	}

	/** Undefined when the event goes on; otherwise why it is skipped. Only message events of a known chat are judged. */
	async skipReason(executor: Executor, event: ChatEvent): Promise<TakeoverReason | undefined> {
		if (this.off || event.chat_id === null || !SKIP_ASSIGNED_OPTION.eventTypes.includes(event.event_type)) return undefined;
		const key = String(event.chat_id);
		const entry = this.cache.get(key) ?? {};
		this.cache.set(key, entry);
		const now = this.now();
		this.forgetOld(now);

		if (this.options.skipAssigned) {
			const carried = carriedResponsible(event);
			let assigned: boolean;
			if (carried.known) assigned = isAssigned(carried.email);
			else if (entry.assignedAt && now - entry.assignedAt.at < this.cacheMs) assigned = entry.assignedAt.value;
			else {
				this.lookups++;
				const chat = record(await executor.run('chat:get', { chat_id: event.chat_id }));
				assigned = isAssigned(chat.responsible_email ?? chat.responsible);
				entry.assignedAt = { value: assigned, at: now };
			}
			if (assigned) return 'assigned';
		}

		const windowMs = this.options.teammateQuietMinutes * 60_000;
		if (windowMs > 0) {
			const since = now - windowMs;
			const known = entry.teammate;
			// A teammate's message inside the window stays inside it until the window passes it: no need to ask.
			if (known?.lastAt != null && known.lastAt >= since) return 'teammate';
			if (!known || now - known.askedAt >= this.cacheMs) {
				this.lookups++;
				entry.teammate = { lastAt: await newestTeammateMessage(executor, event.chat_id, since), askedAt: now };
			}
			const lastAt = entry.teammate?.lastAt ?? null;
			if (lastAt !== null && lastAt >= since) return 'teammate';
		}
		return undefined;
	}

	private forgetOld(now: number): void {
		if (this.cache.size < 1000) return;
		const keepMs = Math.max(this.cacheMs, this.options.teammateQuietMinutes * 60_000);
		for (const [key, entry] of this.cache) {
			const at = Math.max(entry.assignedAt?.at ?? 0, entry.teammate?.askedAt ?? 0);
			if (now - at > keepMs) this.cache.delete(key);
		}
	}
}

/**
 * The newest message a teammate wrote into the chat since `since` (epoch ms), or null: an outbound message
 * not sent through the API (the service marks those `origin: "Public API"`: a workflow's own replies do
 * not count as a person taking over). A message without an origin counts as a teammate's: when unsure,
 * the person wins. One request (the first page, newest first).
 */
async function newestTeammateMessage(executor: Executor, chatId: number | string, since: number): Promise<number | null> {
	const { items } = await executor.listPage(
		'message:getAll',
		{ chat_id: chatId, from_me: true, after: new Date(Math.floor(since / 1000) * 1000 - 1000).toISOString() },
		1,
	);
	let newest: number | null = null;
	for (const message of items) {
		if (message.from_me === false || message.origin === API_ORIGIN || message.status === 'failed') continue;
		const at = parseRecordTime(message.timestamp);
		if (at === null || at < since) continue;
		newest = Math.max(newest ?? at, at);
	}
	return newest;
}

/** Keeps the events that pass human takeover, in order (a skipped event is dropped, as a filtered one is). */
export async function withoutTakenOver(executor: Executor, takeover: HumanTakeover, events: ChatEvent[]): Promise<ChatEvent[]> {
	if (takeover.off) return events;
	const kept: ChatEvent[] = [];
	for (const event of events) if ((await takeover.skipReason(executor, event)) === undefined) kept.push(event);
	return kept;
}

// -------------------------------------------------------------------------------------------------
// Burst batching

/** Messages held per chat; plain JSON for n8n's static data or Node-RED's state file. */
export interface BurstState {
	v: 1;
	chats: Array<{ chat_id: number | string; events: ChatEvent[]; lastAt: number }>;
}

/** One event standing for a chat's burst: the last message's fields, the texts joined, every uid. */
export type BurstEvent = ChatEvent & {
	/** Every message of the burst, oldest first. */
	message_uids: string[];
	/** The events of the burst as each would have been emitted alone, oldest first. */
	messages: ChatEvent[];
};

export function readBurstState(value: unknown): BurstState {
	if (!isRecord(value) || value.v !== 1 || !Array.isArray(value.chats)) return { v: 1, chats: [] };
	const chats = value.chats.filter(
		(chat): chat is BurstState['chats'][number] =>
			isRecord(chat) && (typeof chat.chat_id === 'number' || typeof chat.chat_id === 'string') && Array.isArray(chat.events),
	);
	return { v: 1, chats: chats.map((chat) => ({ ...chat, lastAt: Number(chat.lastAt) || 0 })) };
}

export const isBatchable = (event: ChatEvent): boolean =>
	event.chat_id !== null && BURST_QUIET_OPTION.eventTypes.includes(event.event_type);

/** When the message was written: its record timestamp, else when it arrived. */
function writtenAt(event: ChatEvent, arrivedAt: number): number {
	const data = record(event.raw.data);
	const message = record(event.raw.message);
	return parseRecordTime(data.timestamp ?? message.timestamp) ?? arrivedAt;
}

/**
 * Adds events to the held bursts. Returns the events that go out now: those that are not batched
 * (other event types, no chat) and any burst that reached MAX_BURST_MESSAGES. `clock`: `record` dates a
 * message by its timestamp (polling, where messages are read late), `arrival` by `now` (webhooks).
 */
export function holdBursts(
	state: BurstState,
	events: ChatEvent[],
	now: number,
	clock: 'record' | 'arrival',
): { state: BurstState; passThrough: ChatEvent[] } {
	const chats = state.chats.map((chat) => ({ ...chat, events: [...chat.events] }));
	const passThrough: ChatEvent[] = [];
	for (const event of events) {
		if (!isBatchable(event)) {
			passThrough.push(event);
			continue;
		}
		const at = clock === 'record' ? writtenAt(event, now) : now;
		let chat = chats.find((held) => String(held.chat_id) === String(event.chat_id));
		if (!chat) {
			chat = { chat_id: event.chat_id as number | string, events: [], lastAt: at };
			chats.push(chat);
		}
		if (event.message_uid && chat.events.some((held) => held.message_uid === event.message_uid)) continue; // held already
		chat.events.push(event);
		chat.lastAt = Math.max(chat.lastAt, at);
		if (chat.events.length >= MAX_BURST_MESSAGES) {
			passThrough.push(burstEvent(chat.events));
			chats.splice(chats.indexOf(chat), 1);
		}
	}
	return { state: { v: 1, chats }, passThrough };
}

/** The bursts whose chat has been quiet `quietMs` at `now`, as one event each; the rest stay held. */
export function releaseBursts(state: BurstState, now: number, quietMs: number): { state: BurstState; released: BurstEvent[] } {
	const released: BurstEvent[] = [];
	const chats = state.chats.filter((chat) => {
		if (now - chat.lastAt < quietMs || !chat.events.length) return chat.events.length > 0;
		released.push(burstEvent(chat.events));
		return false;
	});
	return { state: { v: 1, chats }, released };
}

/** When the next held burst becomes quiet (epoch ms), for a platform that schedules its check; undefined when none is held. */
export function nextBurstRelease(state: BurstState, quietMs: number): number | undefined {
	if (!state.chats.length) return undefined;
	return Math.min(...state.chats.map((chat) => chat.lastAt + quietMs));
}

export function burstEvent(events: ChatEvent[]): BurstEvent {
	const last = events[events.length - 1];
	const texts = events.map((event) => event.text).filter((text): text is string => typeof text === 'string' && text !== '');
	return {
		...last,
		text: texts.length ? texts.join('\n') : null,
		message_uids: events.map((event) => event.message_uid).filter((uid): uid is string => typeof uid === 'string'),
		messages: events,
	};
}
