/**
 * The event node's own settings besides the event types: how events arrive (Mode), how often polling
 * looks, and the event filters. Read by the runtime (index.ts) and written into the editor (src/generate/catalogue.ts)
 * from here, so the dialog and the runtime agree. What a flow saved before these settings existed runs with is
 * filled in by migrations.ts before they are read.
 */
import {
	eventPassesFilter,
	inputError,
	isFilterEmpty,
	POLL_EVENT_TYPES,
	readEventFilter,
	type ChatEvent,
	type Executor,
	type PollSource,
} from '@chat-messaging/core';

export type EventMode = 'webhook' | 'polling';

export const EVENT_MODES: ReadonlyArray<{ value: EventMode; name: string }> = [
	{ value: 'webhook', name: 'Webhook: the service posts each event to the Public URL' },
	{ value: 'polling', name: 'Polling: no public URL, no subscription' },
];

export const DEFAULT_EVENT_MODE: EventMode = 'webhook';
export const DEFAULT_POLL_SECONDS = 60;
export const MIN_POLL_SECONDS = 1;

export function readEventMode(value: unknown): EventMode {
	if (value === 'webhook' || value === 'polling') return value;
	throw inputError('mode', `must be one of ${EVENT_MODES.map((mode) => mode.value).join(', ')}, got ${JSON.stringify(value)}`);
}

export function readPollSeconds(value: unknown): number {
	const seconds = Number(value);
	if (!Number.isFinite(seconds) || seconds < MIN_POLL_SECONDS) {
		throw inputError(
			'pollSeconds',
			`must be a number of ${MIN_POLL_SECONDS} or more, got ${JSON.stringify(value)}`,
			'Poll every (seconds)',
		);
	}
	return seconds;
}

/** The poll source standing for each webhook event type. */
export const POLL_SOURCE_OF: Readonly<Record<string, PollSource>> = Object.fromEntries(
	Object.entries(POLL_EVENT_TYPES).map(([source, eventType]) => [eventType, source as PollSource]),
);

/** What the filter says of an event: dropped (null), or what its msg carries besides (a failed lookup's `filterError`). */
export type FilterVerdict = Record<string, unknown> | null;

/**
 * The node's event filters (the core catalogue's EVENT_FILTER_OPTIONS, saved as node properties), evaluated by
 * the core's eventPassesFilter in both modes. Throws at once, naming the property, when a saved value is not
 * one it offers. A lookup that fails does not lose the event: it goes on with `msg.filterError`.
 */
export function eventFilterGate(
	definition: Record<string, unknown>,
): (executor: Executor | undefined, event: ChatEvent) => Promise<FilterVerdict> {
	const filter = readEventFilter(definition);
	if (isFilterEmpty(filter)) return () => Promise.resolve({});
	return async (executor, event) => {
		if (!executor) return {};
		try {
			return (await eventPassesFilter(executor, event, filter)) ? {} : null;
		} catch (error) {
			return { filterError: (error as Error).message };
		}
	};
}
