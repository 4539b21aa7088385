/**
 * Defaults both platforms show and apply, kept here once so the n8n parameters, the Node-RED editor
 * and the executor cannot disagree. Changing one changes saved workflows and flows: see the UI contract.
 */

/** Lists: off means "up to `limit` items". n8n omits default values when it saves a workflow, so this stays off. */
export const LIST_DEFAULTS = { returnAll: false, limit: 50 } as const;
