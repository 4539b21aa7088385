/**
 * What a poll does with the events it read, the sequence both polling platforms run (n8n's Poll Trigger, the
 * Node-RED event node in polling mode): received messages held per chat until the customer has been quiet
 * (bursts.ts), the quiet bursts released, then human takeover (takeover.ts). Messages held when batching was
 * turned off go out at once. A failed takeover lookup throws: the caller then stores neither its cursor nor the
 * bursts, so the next poll reads the same events again.
 */
import { holdBursts, readBurstState, releaseBursts, type BurstState } from './bursts';
import type { ChatEvent } from './delivery';
import type { Executor } from '../executor';
import { withoutTakenOver, type HumanTakeover } from './takeover';

export interface PollStepOptions {
	/** The bursts held so far, as the platform stored them (anything unreadable holds none). */
	burst: unknown;
	/** Burst batching's quiet time (ms); 0: off. */
	burstQuietMs: number;
	takeover: HumanTakeover;
	/** The platform's clock (epoch ms). */
	now: number;
}

/** The events to emit, in order, and the bursts still held (store them with the cursor). */
export async function pollStep(
	executor: Executor,
	found: ChatEvent[],
	options: PollStepOptions,
): Promise<{ events: ChatEvent[]; burst: BurstState }> {
	let burst = readBurstState(options.burst);
	let events = found;
	if (options.burstQuietMs > 0 || burst.chats.length) {
		const held = holdBursts(burst, events, options.now, 'record');
		const ready = releaseBursts(held.state, options.now, options.burstQuietMs);
		burst = ready.state;
		events = [...held.passThrough, ...ready.released];
	}
	return { events: await withoutTakenOver(executor, options.takeover, events), burst };
}
