/**
 * The composite operations' handlers (runtime/composites/) by their descriptor's id, which the executor runs:
 * they build on the executor, so it never imports them (that would be a cycle); each is registered here
 * (`registerComposite`) by registerCompositeHandlers, which the core's index calls. For the same reason this
 * file does not import the Executor's type: a handler's executor is its type parameter.
 */
import type { CompositeDescriptor } from '../../catalogue/composites';
import { operationId } from '../../catalogue/endpoints';
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
export type CompositeHandler<E> = (
	executor: E,
	input: Record<string, unknown>,
	options: CompositeRunOptions,
) => Promise<Record<string, unknown>>;

/** Each composite's handler, by `resource:operation`. */
const COMPOSITE_HANDLERS = new Map<string, unknown>();

export function registerComposite<E>(descriptor: CompositeDescriptor, handler: CompositeHandler<E>): void {
	COMPOSITE_HANDLERS.set(operationId(descriptor), handler);
}

/** The handler registered for a composite's id, run by the executor `E` that registered it. */
export const compositeHandler = <E>(id: string): CompositeHandler<E> | undefined =>
	COMPOSITE_HANDLERS.get(id) as CompositeHandler<E> | undefined;
