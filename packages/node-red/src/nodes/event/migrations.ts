/**
 * The event node's migrations (src/shared/migrate.ts says how they run): Mode, the poll interval, the event
 * filters and the inbox options came after the first release; a node saved before runs as it did then.
 */
import { EVENT_FILTER_OPTIONS, INBOX_OPTIONS } from '@chat-messaging/core';
import { migrate, type FillStep } from '../../shared/migrate';
import { CONVERSATION_OPTIONS } from './conversation';
import { DEFAULT_POLL_SECONDS } from './settings';

const capital = (name: string): string => `${name.charAt(0).toUpperCase()}${name.slice(1)}`;

export const EVENT_MIGRATIONS: readonly FillStep[] = [
	// Webhook mode, whatever mode new nodes start in: it was the only one.
	{ name: 'fillModeWebhook', property: 'mode', value: 'webhook', missing: 'blank' },
	{ name: 'fillPollSecondsDefault', property: 'pollSeconds', value: DEFAULT_POLL_SECONDS, missing: 'blank' },
	{ name: 'fillDownloadAttachmentsOff', property: 'downloadAttachments', value: false, missing: 'nullish' },
	// Each filter's default passes every event, and each inbox option's is off (the core's catalogue says so).
	...EVENT_FILTER_OPTIONS.map((option) => ({
		name: `fill${capital(option.name)}PassingAll`,
		property: option.name,
		value: option.default,
		missing: 'undefined' as const,
	})),
	...INBOX_OPTIONS.map((option) => ({
		name: `fill${capital(option.name)}Off`,
		property: option.name,
		value: option.default,
		missing: 'undefined' as const,
	})),
	// Add Conversation off, and its window at the core's defaults.
	...CONVERSATION_OPTIONS.map((option) => ({
		name: `fill${capital(option.name)}Default`,
		property: option.name,
		value: option.default,
		missing: 'undefined' as const,
	})),
];

export const migrateEvent = <Node extends object>(node: Node): Node => migrate(node, EVENT_MIGRATIONS).node;
