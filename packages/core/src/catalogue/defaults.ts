/**
 * Defaults both platforms show and apply, kept here once so the n8n parameters, the Node-RED editor
 * and the executor cannot disagree. Changing one changes saved workflows and flows: see the UI contract.
 */

/** Lists: off means "up to `limit` items". n8n omits default values when it saves a workflow, so this stays off. */
export const LIST_DEFAULTS = { returnAll: false, limit: 50 } as const;

/** Waiting for a sent message's status: the statuses one can wait for, and how long by default. */
export const WAIT_TARGETS = ['sent', 'delivered', 'read'] as const;
export const DEFAULT_WAIT_TIMEOUT_S = 60;

/**
 * Send and Wait for Reply: how long to wait for the customer's reply (one hour on both platforms; n8n
 * shows it as 1 hour), and the pause between two looks when the wait polls.
 */
export const DEFAULT_REPLY_TIMEOUT_S = 3600;
export const DEFAULT_REPLY_POLL_S = 10;
/**
 * A Node-RED action node saved without a reply time-out (written by hand, or before new nodes started
 * at an hour) keeps the 5 minutes it always had: a flow is users' data.
 */
export const REPLY_TIMEOUT_OF_FLOWS_SAVED_WITHOUT_IT_S = 300;

/**
 * How often a wait polls the message: often enough for short waits, gently for long ones (the service
 * sends about one message every 2 seconds per workspace, so polling faster than 2 s gains little).
 */
export const statusPollInterval = (timeoutMs: number): number => Math.min(2000, Math.max(250, Math.round(timeoutMs / 20)));
