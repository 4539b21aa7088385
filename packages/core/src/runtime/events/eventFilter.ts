/**
 * Narrowing events after they arrive, shared by the webhook trigger, the polling trigger and the
 * Node-RED event node (both modes): by label, by chat-app account, direct or group chats only, without
 * messages sent through the API (a workflow's own sends, so an auto-reply cannot trigger itself). The
 * options are defined once in packages/core/src/catalogue/eventFilterOptions.ts and read here (`readEventFilter`).
 *
 * Deliveries carry little: the spec's shape only ids and text, the live shape the chat's `is_group`
 * and the message's `origin`. What a filter needs and the event lacks is read from the service: the
 * chat (one request, only when a label, account or group filter is set) and, for the API-sent check,
 * the message (one request, only for sent-message events without `origin`). Polled events carry both
 * records and cost nothing.
 */
import { CHAT_TYPE_FILTER, type ChatType } from '../../catalogue/eventFilterOptions';
import { inputError } from '../errors';
import type { ChatEvent } from './delivery';
import type { Executor } from '../executor';
import { isRecord } from '../validation';

export interface EventFilter {
	/** Only chats having at least one of these labels. */
	labels?: string[];
	/** Only chats of one of these chat-app accounts (wid). */
	accountIds?: string[];
	/** Only group chats (true) or only direct chats (false); undefined: both. */
	group?: boolean;
	/** Skip Message Sent events of messages sent through the API (origin "Public API"). */
	ignoreApiSent?: boolean;
}

/** The origin the service gives messages sent through the API (service notes: `origin`, e.g. `Public API`). */
export const API_ORIGIN = 'Public API';

/** A comma-separated text (or list) as trimmed, non-empty values. */
export function listOf(value: unknown): string[] {
	const parts = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split(',') : [];
	return parts.map((part) => part.trim()).filter(Boolean);
}

export function isFilterEmpty(filter: EventFilter): boolean {
	return !filter.labels?.length && !filter.accountIds?.length && filter.group === undefined && !filter.ignoreApiSent;
}

const isOn = (value: unknown): boolean => value === true || value === 'true';

/**
 * The saved event filter options (n8n's Options collection, a Node-RED node's properties), by the names of
 * the catalogue's EVENT_FILTER_OPTIONS, as the filter `eventPassesFilter` evaluates. A missing option passes
 * everything; the webhook trigger's first `ignoreGroupMessages` reads as Chat Type: Direct Chats Only.
 */
export function readEventFilter(options: Record<string, unknown>): EventFilter {
	const chatType = options.chatType === undefined || options.chatType === null || options.chatType === '' ? 'any' : options.chatType;
	const allowed = (CHAT_TYPE_FILTER.options ?? []).map((option) => option.value);
	if (typeof chatType !== 'string' || !allowed.includes(chatType)) {
		throw inputError('chatType', `must be one of ${allowed.join(', ')}, got ${JSON.stringify(chatType)}`, CHAT_TYPE_FILTER.displayName);
	}
	const type = isOn(options.ignoreGroupMessages) && chatType === 'any' ? 'direct' : (chatType as ChatType);
	return {
		labels: listOf(options.labels),
		accountIds: listOf(options.accountIds),
		...(type === 'any' ? {} : { group: type === 'group' }),
		ignoreApiSent: isOn(options.ignoreOwnMessages),
	};
}

const record = (value: unknown): Record<string, unknown> => (isRecord(value) ? value : {});

/** The chat record an event carries (polled events), if it has the fields asked for. */
function carriedChat(event: ChatEvent, needs: string[]): Record<string, unknown> | undefined {
	const chat = record(event.raw.chat);
	return needs.every((key) => key in chat) ? chat : undefined;
}

/**
 * Whether the event passes the filter. Reads the chat or message from the service only when the
 * event lacks what a set filter needs; an event without a chat id passes chat filters untested
 * (nothing to test them on) and the caller decides what to do with such events.
 */
export async function eventPassesFilter(executor: Executor, event: ChatEvent, filter: EventFilter): Promise<boolean> {
	if (isFilterEmpty(filter)) return true;
	const data = record(event.raw.data);
	const message = record(event.raw.message);

	if (filter.ignoreApiSent && event.event_type === 'message:sent:new') {
		let origin = message.origin ?? data.origin;
		if (origin === undefined && event.message_uid) {
			origin = record(await executor.run('message:get', { message_uid: event.message_uid })).origin;
		}
		if (origin === API_ORIGIN) return false;
	}

	const labels = filter.labels ?? [];
	const accounts = filter.accountIds ?? [];
	const wantsChat = labels.length > 0 || accounts.length > 0 || filter.group !== undefined;
	if (!wantsChat || event.chat_id === null) return true;

	const needs = [
		...(labels.length ? ['labels'] : []),
		...(accounts.length ? ['chatapp_account_id'] : []),
		...(filter.group !== undefined ? ['is_group'] : []),
	];
	// The live payload says is_group itself; a group-only filter then needs no request.
	const liveChat = record(event.raw.chat);
	const groupKnown = typeof liveChat.is_group === 'boolean' && needs.length === 1 && needs[0] === 'is_group';
	const chat = carriedChat(event, needs) ?? (groupKnown ? liveChat : record(await executor.run('chat:get', { chat_id: event.chat_id })));

	if (filter.group !== undefined && (chat.is_group === true) !== filter.group) return false;
	if (labels.length) {
		const chatLabels = Array.isArray(chat.labels) ? chat.labels.map((label) => String(label).toLowerCase()) : [];
		if (!labels.some((label) => chatLabels.includes(label.toLowerCase()))) return false;
	}
	if (accounts.length && !accounts.includes(String(chat.chatapp_account_id ?? ''))) return false;
	return true;
}
