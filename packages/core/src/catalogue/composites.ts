/**
 * Composite operations: what users see as one operation but the service does in several calls. Each
 * is a descriptor in its own file beside this one (its variants, its inputs as field descriptors with their defaults, its effect
 * and the calls it makes) and has one handler in the core (runtime/composites/compositeHandlers.ts), run by
 * `Executor.run(id, input)` like any endpoint. Generators (n8n, Node-RED, OpenAPI, the client, the
 * MCP server) iterate `CATALOGUE` (catalogue.ts) — endpoints and composites, told apart by `kind` — and
 * adapters only translate their parameters into the flat input.
 *
 * - `message:send`: Send with Send To (one of four send descriptors), optionally with an attachment
 *   (uploaded or registered first), optionally waiting for a status; a send whose answer was lost is
 *   looked up before anything is sent again.
 * - `message:sendAndWaitForReply`: a Send (any Send To, attachment, Wait for Status), then the
 *   customer's next message in the chat it went to.
 * - `message:sendAndWait`: n8n's standard Send and Wait (human in the loop): a send whose text carries
 *   the links that answer it (approve / decline, or a form); the platform pauses the run until one is
 *   opened. Resumed by link, so only a platform that pauses and serves those links offers it.
 * - File Download is the endpoint `file:download` (its `download` member names the second step).
 */
import type { CompositeDescriptor, CompositeVariant, SendingComposite } from './compositeDescriptor';
import { CONVERSATION_COMPOSITE } from './conversation';
import { SEND_AND_WAIT_COMPOSITE } from './sendAndWaitComposite';
import { SEND_AND_WAIT_FOR_REPLY_COMPOSITE } from './sendAndWaitForReplyComposite';
import { SEND_COMPOSITE } from './sendComposite';

export type { CompositeDescriptor, CompositeVariant, SendingComposite } from './compositeDescriptor';
export { SEND_COMPOSITE } from './sendComposite';
export { SEND_AND_WAIT_FOR_REPLY_COMPOSITE } from './sendAndWaitForReplyComposite';
export { sendAndWaitInputs, SEND_AND_WAIT_COMPOSITE, type ResumeUrls } from './sendAndWaitComposite';

/** Every composite, those resumed by link included: what a platform that pauses and serves links (n8n) offers. */
export const ALL_COMPOSITES: readonly CompositeDescriptor[] = [
	SEND_COMPOSITE,
	SEND_AND_WAIT_FOR_REPLY_COMPOSITE,
	SEND_AND_WAIT_COMPOSITE,
	CONVERSATION_COMPOSITE,
];

/** The composites every surface runs on its own (see `resumedByLink`). */
export const COMPOSITES: readonly CompositeDescriptor[] = ALL_COMPOSITES.filter((composite) => !composite.resumedByLink);

/** A composite's variant by its value, or an input error naming the choices. */
export function compositeVariant(composite: SendingComposite, value: string): CompositeVariant | undefined {
	return composite.variants.options.find((option) => option.value === value);
}
