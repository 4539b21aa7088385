/**
 * Webhook deliveries: both payload shapes (the spec's `{event_type, data{...}}` and the live
 * service's `{event_type, chat{...}, message{...}}`) flattened into one item, and a bounded memory
 * of delivered events, because the service may deliver the same event more than once.
 */
import type { IDataObject } from 'n8n-workflow';

/** The one flat item the trigger emits per delivery. */
export interface ChatMessagingEvent extends IDataObject {
	event_type: string;
	chat_id: number | string | null;
	chat_name: string | null;
	text: string | null;
	message_uid: string | null;
	unattended: boolean | null;
	raw: IDataObject;
}

const isRecord = (value: unknown): value is IDataObject => !!value && typeof value === 'object' && !Array.isArray(value);

const first = (...values: unknown[]): unknown => values.find((value) => value !== undefined && value !== null);

function asId(value: unknown): number | string | null {
	return typeof value === 'number' || (typeof value === 'string' && value !== '') ? value : null;
}

function asText(value: unknown): string | null {
	return typeof value === 'string' ? value : null;
}

function asFlag(value: unknown): boolean | null {
	if (typeof value === 'boolean') return value;
	if (value === 'true' || value === 'false') return value === 'true';
	return null;
}

/** Why a body is not a delivery, or undefined when it is one. */
export function malformedReason(body: unknown): string | undefined {
	if (!isRecord(body)) return 'the body must be a JSON object';
	if (typeof body.event_type !== 'string' || !body.event_type) return 'the body must hold a string event_type';
	if (!isRecord(body.data) && !isRecord(body.chat) && !isRecord(body.message)) {
		return 'the body must hold a data object (or chat and message objects)';
	}
	return undefined;
}

/** Flattens a well-formed delivery (see malformedReason) of either shape. */
export function toEvent(body: IDataObject): ChatMessagingEvent {
	const data = isRecord(body.data) ? body.data : {};
	const chat = isRecord(body.chat) ? body.chat : isRecord(data.chat) ? data.chat : {};
	const message = isRecord(body.message) ? body.message : isRecord(data.message) ? data.message : {};
	return {
		event_type: String(body.event_type),
		chat_id: asId(first(data.chat_id, chat.chat_id, chat.id, message.chat_id)),
		chat_name: asText(first(data.chat_name, chat.chat_name, chat.full_name, chat.name)),
		text: asText(first(data.text, message.text)),
		message_uid: asText(first(data.message_uid, message.message_uid, message.uid)),
		unattended: asFlag(first(data.unattended_customer, body.unattended_customer, data.unattended, chat.unattended_customer, chat.unattended)),
		raw: body,
	};
}

/**
 * The identity of an event for de-duplication: a message event by its message uid, a chat
 * creation by its chat id. Undefined when the delivery carries neither.
 */
export function eventKey(event: ChatMessagingEvent): string | undefined {
	const id = event.event_type.startsWith('chat:') ? event.chat_id : event.message_uid ?? event.chat_id;
	return id === null || id === undefined ? undefined : `${event.event_type}|${id}`;
}

export const SEEN_EVENTS_LIMIT = 500;

/**
 * Remembers the last SEEN_EVENTS_LIMIT event keys per trigger node. Kept in process memory, which
 * survives between deliveries in every execution mode (n8n persists a node's static data only
 * after production executions); the trigger mirrors it into static data for restarts.
 */
export class SeenEvents {
	private readonly byNode = new Map<string, string[]>();

	/** Records the key; returns false when it was already seen. */
	remember(nodeKey: string, key: string, persisted: readonly string[] = []): boolean {
		let seen = this.byNode.get(nodeKey);
		if (!seen) {
			seen = [...persisted].slice(-SEEN_EVENTS_LIMIT);
			this.byNode.set(nodeKey, seen);
		}
		if (seen.includes(key)) return false;
		seen.push(key);
		if (seen.length > SEEN_EVENTS_LIMIT) seen.splice(0, seen.length - SEEN_EVENTS_LIMIT);
		return true;
	}

	recent(nodeKey: string): string[] {
		return [...(this.byNode.get(nodeKey) ?? [])];
	}
}
