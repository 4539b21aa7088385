/**
 * Polling mode: no public URL, no subscription; the core's exactly-once cursor per event type, stored with the held
 * bursts and the outbox (outbox.ts) before anything is emitted, so a restart or redeploy neither repeats nor loses
 * an event.
 */
import {
	deleteSubscriptions,
	nextBurstRelease,
	pollEvents,
	readBurstState,
	pollStep as holdReleaseAndTakeOver,
	type ChatEvent,
	type Executor,
	type HumanTakeover,
} from '@chat-messaging/core';
import { asChatMessagingError } from '../../shared/errors';
import type { SavedNodeDef } from '../../shared/saved';
import { resolveConfig } from '../config';
import type { EventNodeInstance } from './instance';
import { withQueued, type Outbox } from './outbox';
import { checkEventSettings, POLL_SOURCE_OF } from './settings';
import type { NodeStateStore } from './state';

export interface PollingNode {
	store: NodeStateStore;
	/** The chosen event types. */
	events: readonly string[];
	/** Burst batching's quiet time; 0: off. */
	burstMs: number;
	takeover: HumanTakeover;
	outbox: Outbox;
}

/** One look: what is new since the cursors, stored with the cursors in one write, then handed to the flow. */
export async function pollStep(poller: Executor, node: PollingNode): Promise<void> {
	const before = node.store.load();
	const cursors = (before.cursors && typeof before.cursors === 'object' ? before.cursors : {}) as Record<string, unknown>;
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
		burst: before.burst,
		burstQuietMs: node.burstMs,
		takeover: node.takeover,
		now,
	});
	// Read again: the outbox changed meanwhile (events handed on).
	const queued = withQueued({ ...node.store.load(), v: 1, cursors, burst }, events, { takeoverChecked: true });
	node.store.save(queued.state);
	for (const entry of queued.entries) await node.outbox.deliver(entry);
}

/** Record times are whole seconds: a look this much after a burst's quiet time finds the chat quiet for all of it. */
const RECORD_TIME_SLACK_MS = 1000;

/**
 * When to look next: after the poll interval, or sooner when a held burst's quiet time ends, so that a burst goes out
 * right after the customer stops (the look then reads anything newer first, and releases the burst only if none came).
 */
export function nextPollDelay(node: Pick<PollingNode, 'store' | 'burstMs'>, pollMs: number, now: number): number {
	if (node.burstMs <= 0) return pollMs;
	const quietAt = nextBurstRelease(readBurstState(node.store.load().burst), node.burstMs);
	if (quietAt === undefined) return pollMs;
	return Math.max(0, Math.min(pollMs, quietAt + RECORD_TIME_SLACK_MS - now));
}

export interface PollingMode {
	/** Settles when the poll under way (if any) is over. */
	current(): Promise<void>;
	stop(): void;
}

export function startPollingMode(instance: EventNodeInstance, definition: SavedNodeDef, ownsUrl: (url: string) => boolean): PollingMode {
	const { RED, node, store, outbox, settings, takeover, burstMs } = instance;
	let pollTimer: ReturnType<typeof setTimeout> | undefined;
	let polling: Promise<void> = Promise.resolve();
	// What the node's previous instance (a redeploy) or process (a restart) took on and did not hand to the flow.
	const leftOver = outbox.left();
	const start = async () => {
		checkEventSettings(settings);
		const poller = (instance.executor = resolveConfig(RED, definition.config).getExecutor());
		for (const entry of leftOver) void outbox.deliver(entry).catch(instance.fail);
		// Subscriptions this node made in webhook mode would keep posting to a route no longer served.
		await deleteSubscriptions(poller, [], ownsUrl).catch((error: unknown) =>
			node.warn(`Could not delete the webhook subscriptions of webhook mode: ${asChatMessagingError(error).message}`),
		);
		const label = `polling every ${settings.pollSeconds} s`;
		const pollingNode: PollingNode = { store, events: settings.events, burstMs, takeover, outbox };
		const pollMs = settings.pollSeconds * 1000;
		const loop = () => {
			if (instance.closing) return;
			// A failed poll waits the whole interval: a held burst's quiet time lies in the past by then, and looking
			// again at once would spend the workspace's request budget in a loop while the service is down.
			let next = pollMs;
			polling = instance
				.serially(() => pollStep(poller, pollingNode))
				.then(
					() => {
						node.status({ fill: 'green', shape: 'dot', text: label });
						next = nextPollDelay(pollingNode, pollMs, Date.now());
					},
					(error: unknown) => instance.fail(error),
				);
			void polling.then(() => {
				if (!instance.closing) pollTimer = setTimeout(loop, next);
			});
		};
		node.status({ fill: 'green', shape: 'dot', text: label });
		loop();
	};
	const started = start().catch(instance.fail);
	return {
		current: () => started.then(() => polling),
		stop: () => {
			if (pollTimer) clearTimeout(pollTimer);
		},
	};
}
