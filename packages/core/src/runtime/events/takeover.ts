/**
 * Human takeover: an event of a chat that a person handles is skipped — a chat with a responsible
 * teammate, and/or a chat where a teammate wrote (an outbound message not sent through the API) within
 * the last N minutes. What an event carries is used first (polled events carry the chat record, the live
 * webhook shape the chat's responsible_email); otherwise one request per check, per chat, cached
 * briefly, so a burst of one chat costs one lookup. A teammate's message seen stays a fact until its
 * window ends, so that answer is kept without asking again.
 */
import { SKIP_ASSIGNED_OPTION } from '../../catalogue/inboxOptions';
import { parseRecordTime, type ChatEvent } from './delivery';
import { API_ORIGIN } from './eventFilter';
import type { Executor } from '../executor';
import { takeoverIsOff, type InboxOptions } from './inbox';
import { isRecord } from '../validation';

/**
 * How long a lookup's answer is trusted: long enough that a customer's burst costs one lookup, short
 * because an assignment or a teammate's message can come at any moment.
 */
export const TAKEOVER_CACHE_MS = 5_000;

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
