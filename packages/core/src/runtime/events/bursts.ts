/**
 * Burst batching: received messages are held per chat until the customer has been quiet for N
 * seconds, then emitted as one event (texts joined, every uid kept). The held messages are plain JSON
 * (`BurstState`), stored by the platform with its cursor, so a restart neither loses nor repeats one.
 * Nothing here sets a timer: the caller asks `releaseBursts` at each poll (n8n) or when the quiet time
 * of the newest held message has passed (Node-RED).
 */
import { BURST_QUIET_OPTION } from '../../catalogue/inboxOptions';
import { parseRecordTime, type ChatEvent } from './delivery';
import type { Executor } from '../executor';
import { isRecord } from '../validation';

const record = (value: unknown): Record<string, unknown> => (isRecord(value) ? value : {});

/** A burst longer than this is emitted at once, so held state stays small whatever a chat does. */
export const MAX_BURST_MESSAGES = 50;

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

/**
 * A burst held from deliveries, in the order its customer wrote it. The service sends deliveries concurrently and
 * retries them, and the spec's delivery carries no timestamp (the live one's has whole seconds), so the order they
 * arrived in is not the order written: the service's history is. One read, the first page of the chat's messages
 * (newest first); a held message not on it is older than every message on it. A burst of one message, or one read
 * from the history already (polling), needs no read. The read failing is the caller's to report: the burst itself
 * is still whole.
 */
export async function burstInWrittenOrder(executor: Executor, burst: BurstEvent): Promise<BurstEvent> {
	if (burst.messages.length < 2 || burst.chat_id === null) return burst;
	const { items } = await executor.listPage('message:getAll', { chat_id: burst.chat_id }, 1);
	const newestFirst = items.map((message) => String(message.uid ?? message.message_uid ?? ''));
	const age = (event: ChatEvent): number => {
		const at = event.message_uid ? newestFirst.indexOf(event.message_uid) : -1;
		return at < 0 ? newestFirst.length : at;
	};
	const ordered = burst.messages
		.map((event, arrival) => ({ event, arrival, age: age(event) }))
		.sort((a, b) => b.age - a.age || a.arrival - b.arrival)
		.map(({ event }) => event);
	return ordered.every((event, index) => event === burst.messages[index]) ? burst : burstEvent(ordered);
}
