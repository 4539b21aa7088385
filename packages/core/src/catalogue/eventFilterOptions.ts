/**
 * The event filters of the event surfaces (n8n Chat Messaging Trigger and Poll Trigger, Node-RED event node),
 * besides the choice of event types (EVENT_TYPES): one definition each, so every platform shows the same
 * names, choices, defaults and descriptions. Every one passes everything by default: a workflow or flow saved
 * before it existed runs as before. How they are read and evaluated is packages/core/src/runtime/events/eventFilter.ts.
 */
import type { FieldOption } from './types';

export interface EventFilterOptionDescriptor {
	/** The saved parameter / node property name (UI contract). */
	name: 'labels' | 'accountIds' | 'chatType' | 'ignoreOwnMessages' | 'ignoreGroupMessages';
	displayName: string;
	/** `list`: comma-separated values, any of which matches. */
	type: 'list' | 'options' | 'boolean';
	/** Passes everything. */
	default: string | boolean;
	description: string;
	placeholder?: string;
	options?: readonly FieldOption[];
	/** Only events of these types are filtered (the others pass). */
	eventTypes: readonly string[];
}

const EVERY_EVENT = ['message:received:new', 'message:sent:new', 'chat:created'] as const;

export const LABELS_FILTER: EventFilterOptionDescriptor = {
	name: 'labels',
	displayName: 'Labels',
	type: 'list',
	default: '',
	placeholder: 'vip, support',
	description: 'Only events of chats having at least one of these labels (comma-separated)',
	eventTypes: EVERY_EVENT,
};

export const ACCOUNTS_FILTER: EventFilterOptionDescriptor = {
	name: 'accountIds',
	displayName: 'Chat-App Account IDs',
	type: 'list',
	default: '',
	placeholder: '4930123456@c.us',
	description: 'Only events of chats on one of these accounts (comma-separated wid values)',
	eventTypes: EVERY_EVENT,
};

/** The chat-type choice's values. */
export type ChatType = 'any' | 'direct' | 'group';

export const CHAT_TYPE_FILTER: EventFilterOptionDescriptor = {
	name: 'chatType',
	displayName: 'Chat Type',
	type: 'options',
	default: 'any',
	options: [
		{ name: 'Any', value: 'any' },
		{ name: 'Direct Chats Only', value: 'direct', description: 'Ignore group chats' },
		{ name: 'Group Chats Only', value: 'group' },
	],
	description: 'Only events of direct chats, or only of group chats',
	eventTypes: EVERY_EVENT,
};

export const API_SENT_FILTER: EventFilterOptionDescriptor = {
	name: 'ignoreOwnMessages',
	displayName: 'Ignore Messages Sent Through the API',
	type: 'boolean',
	default: false,
	description:
		'Whether to skip Message Sent events of messages sent through the API, such as by this or another workflow, so an auto-reply cannot trigger itself',
	eventTypes: ['message:sent:new'],
};

/**
 * The webhook trigger's first name for Chat Type's Direct Chats Only, offered by its version 1 only, read
 * the same way wherever it is saved.
 */
export const IGNORE_GROUPS_FILTER: EventFilterOptionDescriptor = {
	name: 'ignoreGroupMessages',
	displayName: 'Ignore Group Messages',
	type: 'boolean',
	default: false,
	description: 'Whether to skip events of group chats',
	eventTypes: EVERY_EVENT,
};

/** The event filters every event surface offers, in the order editors list them. */
export const EVENT_FILTER_OPTIONS: readonly EventFilterOptionDescriptor[] = [
	ACCOUNTS_FILTER,
	CHAT_TYPE_FILTER,
	API_SENT_FILTER,
	LABELS_FILTER,
];
