/**
 * Where the composite operations' handlers (composites.ts) register, so the executor can run any
 * operation id without importing them (they build on the executor: importing them here would be a cycle).
 */
import type { Timing } from '../../catalogue/types';
import type { WaitTarget } from './waitForStatus';

/** What a platform may add to a composite run: progress callbacks, its own timing, cancellation. */
export interface CompositeRunOptions {
	/** Called when a send starts waiting for a status. */
	onWaiting?: (target: WaitTarget) => void;
	/** Send and Wait for Reply: called with the send's answer and the chat waited in, before the wait begins. */
	onSent?: (sent: Record<string, unknown>, watch: { chat_id: number | string; message_uid: string }) => void;
	/** Timing of the reply wait (a platform whose pauses end early on close); the executor's by default. */
	timing?: Timing;
	/** Stops a reply wait early (a node closing); checked between looks. */
	cancelled?: () => boolean;
}

/** A composite's handler; `executor` is the Executor running it. */
export type CompositeHandler = (
	executor: never,
	input: Record<string, unknown>,
	options: CompositeRunOptions,
) => Promise<Record<string, unknown>>;

export const COMPOSITE_HANDLERS = new Map<string, CompositeHandler>();
