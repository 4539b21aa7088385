/**
 * What an admitted delivery (admission.ts) goes through, where every platform does the same; beside pollStep.ts,
 * which is the same for a poll's events. Two calls, because the service wants its answer within 5 seconds and an
 * answered delivery is a promise the receiver must keep:
 * - `deliveryAnswer`, before answering: is the event one the receiver chose, and is it a redelivery of one it took
 *   (seen events, in whatever store the platform keeps them: process memory, n8n's static data, the Chat SDK's
 *   state)? No request to the service.
 * - `deliveryStep`, after answering: the event filters (eventFilter.ts), then human takeover (takeover.ts). A lookup
 *   that fails never loses the event: it goes on, with the problem named, for the platform to put where its users
 *   read it.
 *
 * Two things stay with the one platform that has them, on the core's pieces: burst batching of deliveries (the
 * Node-RED event node; the n8n trigger batches only when polling) on bursts.ts, and the conversation option (the
 * Node-RED event node) on Get Conversation.
 */
import { DELIVERY_ANSWERS, type DeliveryAnswer } from './admission';
import { eventKey, type ChatEvent } from './delivery';
import { eventPassesFilter, isFilterEmpty, type EventFilter } from './eventFilter';
import type { Executor } from '../executor';
import type { HumanTakeover, TakeoverReason } from './takeover';

/** Where a platform keeps the keys of the events it took: `remember` is false for a key already there. */
export interface SeenStore {
	remember(key: string): boolean | Promise<boolean>;
}

export interface DeliveryAnswerOptions {
	/** The event types the receiver chose. */
	chosen: readonly string[];
	/** Where redeliveries are recognised; none: every delivery is new. */
	seen?: SeenStore;
}

/**
 * The answer a delivery gets, and whether its event is taken on (then the platform answers, and keeps the promise).
 * A store that cannot be read asks for the delivery again rather than take it twice or lose it.
 */
export async function deliveryAnswer(
	event: ChatEvent,
	options: DeliveryAnswerOptions,
): Promise<{ answer: DeliveryAnswer; taken: boolean; storeError?: unknown }> {
	if (!options.chosen.includes(event.event_type)) return { answer: DELIVERY_ANSWERS.notChosen(event.event_type), taken: false };
	const key = eventKey(event);
	if (key !== undefined && options.seen) {
		let first: boolean;
		try {
			first = await options.seen.remember(key);
		} catch (error) {
			return { answer: DELIVERY_ANSWERS.unavailable('the record of delivered events cannot be read'), taken: false, storeError: error };
		}
		if (!first) return { answer: DELIVERY_ANSWERS.duplicate, taken: false };
	}
	return { answer: DELIVERY_ANSWERS.accepted, taken: true };
}

export interface DeliveryStepOptions {
	filter?: EventFilter;
	/** Left out where takeover was already decided (a poll decides it before storing its cursor). */
	takeover?: HumanTakeover;
}

/** Why a check could not be made, by check: the event went on all the same. */
export interface DeliveryProblems {
	filter?: string;
	takeover?: string;
}

export type DeliveryStep =
	| { passed: false; droppedBy: 'filter' }
	| { passed: false; droppedBy: 'takeover'; reason: TakeoverReason }
	| { passed: true; problems: DeliveryProblems };

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The checks an event taken on goes through, in order: the filters, then human takeover, each only when set. A
 * dropped event stops there; a check that fails is named in `problems`, and the other is still made.
 */
export async function deliveryStep(executor: Executor, event: ChatEvent, options: DeliveryStepOptions): Promise<DeliveryStep> {
	const problems: DeliveryProblems = {};
	if (options.filter && !isFilterEmpty(options.filter)) {
		try {
			if (!(await eventPassesFilter(executor, event, options.filter))) return { passed: false, droppedBy: 'filter' };
		} catch (error) {
			problems.filter = messageOf(error);
		}
	}
	if (options.takeover && !options.takeover.off) {
		try {
			const reason = await options.takeover.skipReason(executor, event);
			if (reason) return { passed: false, droppedBy: 'takeover', reason };
		} catch (error) {
			problems.takeover = messageOf(error);
		}
	}
	return { passed: true, problems };
}
