/**
 * The inbox options (packages/core/src/catalogue/inboxOptions.ts) as values, read from what the webhook
 * trigger, the Poll Trigger and the Node-RED event node saved: human takeover (takeover.ts) and burst
 * batching (bursts.ts) act on them; the adapters only read the options and keep the state where their
 * platform keeps things.
 */
import { BURST_QUIET_OPTION, SKIP_ASSIGNED_OPTION, TEAMMATE_QUIET_OPTION } from '../../catalogue/inboxOptions';
import { inputError } from '../errors';

export interface InboxOptions {
	/** Skip chats with a responsible teammate. */
	skipAssigned: boolean;
	/** Skip chats where a teammate wrote within this many minutes; 0: off. */
	teammateQuietMinutes: number;
	/** Hold received messages until the chat has been quiet this many seconds; 0: off. */
	burstQuietSeconds: number;
}

export const INBOX_OFF: InboxOptions = { skipAssigned: false, teammateQuietMinutes: 0, burstQuietSeconds: 0 };

function numberOption(value: unknown, option: { name: string; displayName: string }): number {
	if (value === undefined || value === null || value === '') return 0;
	const number = typeof value === 'number' ? value : Number(String(value).trim());
	if (!Number.isFinite(number) || number < 0) {
		throw inputError(option.name, `must be a number of 0 or more, got ${JSON.stringify(value)}`, option.displayName);
	}
	return number;
}

/**
 * The options from saved values (an n8n Options collection, a Node-RED node's properties): a value left
 * out is off, so what was saved before the options existed runs as before; a wrong value names the field.
 */
export function readInboxOptions(values: Record<string, unknown>): InboxOptions {
	const assigned = values[SKIP_ASSIGNED_OPTION.name];
	return {
		skipAssigned: assigned === true || assigned === 'true',
		teammateQuietMinutes: numberOption(values[TEAMMATE_QUIET_OPTION.name], TEAMMATE_QUIET_OPTION),
		burstQuietSeconds: numberOption(values[BURST_QUIET_OPTION.name], BURST_QUIET_OPTION),
	};
}

export const takeoverIsOff = (options: InboxOptions): boolean => !options.skipAssigned && !(options.teammateQuietMinutes > 0);
