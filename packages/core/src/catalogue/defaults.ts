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
 * How often a wait polls the message: often enough for short waits, gently for long ones (the service
 * sends about one message every 2 seconds per workspace, so polling faster than 2 s gains little).
 */
export const statusPollInterval = (timeoutMs: number): number => Math.min(2000, Math.max(250, Math.round(timeoutMs / 20)));
