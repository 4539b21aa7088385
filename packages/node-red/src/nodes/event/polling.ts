/**
 * One look of polling mode: no public URL, no subscription; the core's exactly-once cursor per event type, stored
 * with the held bursts before anything is emitted, so a restart or redeploy neither repeats nor loses an event.
 */
import { pollEvents, pollStep as holdReleaseAndTakeOver, type ChatEvent, type Executor, type HumanTakeover } from '@chat-messaging/core';
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
	const found: ChatEvent[] = [];
	for (const type of node.events) {
		const source = POLL_SOURCE_OF[type];
		const result = await pollEvents(poller, { source, cursor: cursors[source], now });
		cursors[source] = result.cursor;
		found.push(...result.events);
	}
	// Bursts, then human takeover (the core's poll step, as n8n's Poll Trigger runs it). A failed lookup throws
	// before the cursor is stored: the next poll reads the same events again.
	const { events, burst } = await holdReleaseAndTakeOver(poller, found, {
		burst: state.burst,
		burstQuietMs: node.burstMs,
		takeover: node.takeover,
		now,
	});
	node.store.save({ ...state, v: 1, cursors, burst });
	for (const event of events) await emit(event);
}
