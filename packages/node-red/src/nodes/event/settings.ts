/**
 * The event node's own settings besides the event types: how events arrive (Mode), how often polling
 * looks, and the event filters. Read by the runtime (index.ts) and written into the editor (src/generate.ts)
 * from here, so the dialog and the runtime agree. What a flow saved before these settings existed runs with is
 * filled in by migrations.ts before they are read.
 */
import {
	ChatMessagingError,
	EVENT_TYPES,
	eventPassesFilter,
	INBOX_OFF,
	inputError,
	isFilterEmpty,
	POLL_EVENT_TYPES,
	readEventFilter,
	readInboxOptions,
	type ChatEvent,
	type Executor,
	type InboxOptions,
	type PollSource,
} from '@chat-messaging/core';
import { CONVERSATION_OFF, readConversationSetting, type ConversationSetting } from './conversation';

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

/** One event node's settings as read from its saved properties (after migrations.ts). */
export interface EventNodeSettings {
	/** The chosen event types, trimmed, without repeats. */
	events: string[];
	downloadAttachments: boolean;
	mode: EventMode;
	pollSeconds: number;
	inbox: InboxOptions;
	passesFilter: ReturnType<typeof eventFilterGate>;
	/** Add Conversation and its window (conversation.ts). */
	conversation: ConversationSetting;
	/** A wrong setting, reported when the node starts (until then: webhook mode, every inbox option off). */
	problem?: unknown;
}

export function readEventNodeSettings(definition: Record<string, unknown>): EventNodeSettings {
	const settings: EventNodeSettings = {
		events: (Array.isArray(definition.events) ? definition.events : [definition.events])
			.map((value) => String(value ?? '').trim())
			.filter((value, index, all) => value !== '' && all.indexOf(value) === index),
		downloadAttachments: definition.downloadAttachments === true || definition.downloadAttachments === 'true',
		mode: DEFAULT_EVENT_MODE,
		pollSeconds: DEFAULT_POLL_SECONDS,
		inbox: INBOX_OFF,
		passesFilter: eventFilterGate({}),
		conversation: CONVERSATION_OFF,
	};
	try {
		settings.mode = readEventMode(definition.mode);
		settings.pollSeconds = readPollSeconds(definition.pollSeconds);
		settings.inbox = readInboxOptions(definition);
		settings.passesFilter = eventFilterGate(definition);
		settings.conversation = readConversationSetting(definition);
	} catch (error) {
		settings.problem = error;
	}
	return settings;
}

const SUPPORTED_EVENTS = new Set(EVENT_TYPES.map((option) => option.value));

/** At start: a wrong setting, no event type or an unknown one stops the node, naming the property. */
export function checkEventSettings(settings: EventNodeSettings): void {
	if (settings.problem) throw settings.problem;
	const { events } = settings;
	const unknown = events.filter((type) => !SUPPORTED_EVENTS.has(type));
	if (events.length === 0) throw new ChatMessagingError('events: choose at least one event type', { kind: 'input', field: 'events' });
	if (unknown.length) throw new ChatMessagingError(`events: unknown event type ${unknown.join(', ')}`, { kind: 'input', field: 'events' });
}
