/**
 * Where the composite operations' handlers (composites.ts) register, so the executor can run any
 * operation id without importing them (they build on the executor: importing them here would be a cycle).
 */
import type { Timing } from '../../catalogue/types';
import type { WaitReporting } from '../waiting';
import type { WaitTarget } from './waitForStatus';

/**
 * What a platform may add to a composite run: progress callbacks, its own timing, cancellation. A wait
 * (a status, a reply) reports its progress to `onProgress` and stops when `cancelled` says so; a run
 * cancelled before its send sends nothing.
 */
export interface CompositeRunOptions extends WaitReporting {
	/** Called when a send starts waiting for a status. */
	onWaiting?: (target: WaitTarget) => void;
	/** Send and Wait for Reply: called with the send's answer and the chat waited in, before the wait begins. */
	onSent?: (sent: Record<string, unknown>, watch: { chat_id: number | string; message_uid: string }) => void;
	/** Timing of the wait (a platform whose pauses end early on close); the executor's by default. */
	timing?: Timing;
}

/** A composite's handler; `executor` is the Executor running it. */
export type CompositeHandler = (
	executor: never,
	input: Record<string, unknown>,
	options: CompositeRunOptions,
) => Promise<Record<string, unknown>>;

export const COMPOSITE_HANDLERS = new Map<string, CompositeHandler>();
