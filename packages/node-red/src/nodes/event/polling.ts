/**
 * One look of polling mode: no public URL, no subscription; the core's exactly-once cursor per event type, stored
 * with the held bursts before anything is emitted, so a restart or redeploy neither repeats nor loses an event.
 */
import {
	holdBursts,
	pollEvents,
	readBurstState,
	releaseBursts,
	withoutTakenOver,
	type ChatEvent,
	type Executor,
	type HumanTakeover,
} from '@chat-messaging/core';
import { POLL_SOURCE_OF } from './settings';
import type { NodeStateStore } from './state';

export interface PollingNode {
	store: NodeStateStore;
	/** The chosen event types. */
	events: readonly string[];
	/** Burst batching's quiet time; 0: off. */
	burstMs: number;
	takeover: HumanTakeover;
}

export async function pollStep(poller: Executor, node: PollingNode, emit: (event: ChatEvent) => Promise<void>): Promise<void> {
	const state = node.store.load();
	const cursors = (state.cursors && typeof state.cursors === 'object' ? state.cursors : {}) as Record<string, unknown>;
	const now = Date.now();
	let found: ChatEvent[] = [];
	for (const type of node.events) {
		const source = POLL_SOURCE_OF[type];
		const result = await pollEvents(poller, { source, cursor: cursors[source], now });
		cursors[source] = result.cursor;
		found.push(...result.events);
	}
	let burst = readBurstState(state.burst);
	// Messages held when batching was turned off go out at once (releaseBursts with no quiet time).
	if (node.burstMs > 0 || burst.chats.length) {
		const held = holdBursts(burst, found, now, 'record');
		const ready = releaseBursts(held.state, now, node.burstMs);
		burst = ready.state;
		found = [...held.passThrough, ...ready.released];
	}
	// A failed lookup throws before the cursor is stored: the next poll reads the same events again.
	const kept = await withoutTakenOver(poller, node.takeover, found);
	node.store.save({ ...state, v: 1, cursors, burst });
	for (const event of kept) await emit(event);
}
