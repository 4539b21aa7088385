/**
 * Webhook mode's catch-up (index.ts says why): each event handed to the flow goes into the polling cursor of its
 * type in the node's state file (state.ts), and every start reads what arrived since then with the core's
 * exactly-once cursor, as polling mode reads, and hands it on the way a delivery goes. The cursor's keys and the
 * redelivery memory keep a delivery and the catch-up from both passing one event.
 */
import {
	cursorAfterDelivery,
	deliveredKeysOf,
	mergeCursors,
	pollEvents,
	pollSourceOf,
	type ChatEvent,
	type Executor,
	type PollSource,
	type SeenEvents,
} from '@chat-messaging/core';
import type { NodeStateStore } from './state';

export const cursorsOf = (state: Record<string, unknown>): Record<string, unknown> =>
	state.cursors && typeof state.cursors === 'object' ? { ...(state.cursors as Record<string, unknown>) } : {};

export class HandedEvents {
	/** Handed on before the first catch-up placed the cursor of its type: recorded once it is placed. */
	private readonly beforeCursor: ChatEvent[] = [];

	/**
	 * The cursors as the node started with them, which the catch-up reads from. Not the cursors as they are when it
	 * reads: a poll skips a chat whose newest message was handed on, and a delivery taken while the node subscribes
	 * may be a chat's newest message while the ones before it, sent while the node was stopped, are still unread.
	 * What deliveries took meanwhile the catch-up reads again, and the redelivery memory passes it on once.
	 */
	private readonly startCursors: Record<string, unknown>;

	/** `sources`: the poll sources that stand for the node's event types, caught up at every start. */
	constructor(
		private readonly store: NodeStateStore,
		private readonly sources: readonly PollSource[],
	) {
		this.startCursors = cursorsOf(store.load());
	}

	/** After a restart, a late redelivery of an event handed on before it is still recognised. */
	rememberDelivered(memory: SeenEvents): void {
		const stored = cursorsOf(this.store.load());
		for (const source of this.sources) for (const key of deliveredKeysOf(stored[source], source)) memory.remember(key);
	}

	/** The cursors an event handed on is recorded in: its own type's, and a message in every message cursor of the node. */
	private cursorsFor(event: ChatEvent): PollSource[] {
		const own = pollSourceOf(event.event_type);
		if (!own) return [];
		return own === 'chatCreated' ? [own] : [...new Set([own, ...this.sources.filter((source) => source !== 'chatCreated')])];
	}

	/**
	 * `state` with the event recorded in its cursors, to be saved in the same write that puts it in the outbox
	 * (outbox.ts): from then on no catch-up reads it again, and the outbox hands it on.
	 */
	record(state: Record<string, unknown>, event: ChatEvent): Record<string, unknown> {
		const targets = this.cursorsFor(event);
		if (!targets.length) return state;
		const cursors = cursorsOf(state);
		if (targets.some((source) => cursors[source] === undefined)) this.beforeCursor.push(event);
		for (const source of targets) cursors[source] = cursorAfterDelivery(cursors[source], event, Date.now(), { source }) ?? cursors[source];
		return { ...state, v: 1, cursors };
	}

	/**
	 * Reads what arrived since the cursor of each caught-up type and hands it to `receive` as deliveries go
	 * (deliveries keep arriving meanwhile; the memory passes each event once). The cursor is stored before the
	 * events go on, as a poll stores it. One request per type on a quiet start (a poll's cost). Stops when `closing`.
	 */
	async catchUp(poller: Executor, closing: () => boolean, receive: (event: ChatEvent) => void): Promise<void> {
		for (const source of this.sources) {
			const cursorAtStart = this.startCursors[source] ?? cursorsOf(this.store.load())[source];
			const result = await pollEvents(poller, { source, cursor: cursorAtStart, now: Date.now() });
			if (closing()) return;
			const state = this.store.load();
			const cursors = cursorsOf(state);
			let cursor = mergeCursors(cursors[source], result.cursor);
			for (const event of this.beforeCursor.filter((early) => this.cursorsFor(early).includes(source))) {
				cursor = cursorAfterDelivery(cursor, event, Date.now(), { source }) ?? cursor;
			}
			this.store.save({ ...state, v: 1, cursors: { ...cursors, [source]: cursor } });
			for (const event of result.events) receive(event);
		}
	}
}
