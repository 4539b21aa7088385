/**
 * A webhook delivery read, shared by the n8n trigger, the Node-RED event node, polling and replies: either
 * payload shape flattened into one ChatEvent, its attachments, the key that recognises a redelivery, and the
 * service's record timestamps.
 *
 * The platforms keep what is theirs: where deliveries arrive, how the secret is checked, where the seen
 * keys are stored.
 */
import { ChatMessagingError } from '../errors';
import type { Executor } from '../executor';
import type { DownloadedFile } from '../../catalogue/types';
import { isRecord } from '../validation';

/** One delivery, flattened. Values a delivery does not carry are null. */
export type ChatEvent = {
	event_type: string;
	chat_id: number | string | null;
	chat_name: string | null;
	text: string | null;
	message_uid: string | null;
	unattended: boolean | null;
	/** The delivery as received. */
	raw: Record<string, unknown>;
};

const first = (...values: unknown[]): unknown => values.find((value) => value !== undefined && value !== null);

const asId = (value: unknown): number | string | null =>
	typeof value === 'number' || (typeof value === 'string' && value !== '') ? value : null;

const asText = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function asFlag(value: unknown): boolean | null {
	if (typeof value === 'boolean') return value;
	if (value === 'true' || value === 'false') return value === 'true';
	return null;
}

/**
 * Reads a webhook body of either shape: the spec's `{event_type, data: {chat_id, chat_name, text,
 * message_uid, unattended_customer}}` or the live service's `{event_type, chat: {chat_id, full_name, ...},
 * message: {text, message_uid, ...}}` (service notes). A body that is neither names what is wrong.
 */
export function parseDelivery(body: unknown): { event: ChatEvent } | { malformed: string } {
	if (!isRecord(body)) return { malformed: 'the body must be a JSON object' };
	if (typeof body.event_type !== 'string' || !body.event_type) return { malformed: 'the body must hold a string event_type' };
	if (!isRecord(body.data) && !isRecord(body.chat) && !isRecord(body.message)) {
		return { malformed: 'the body must hold a data object (or chat and message objects)' };
	}
	const data = isRecord(body.data) ? body.data : {};
	const chat = isRecord(body.chat) ? body.chat : isRecord(data.chat) ? data.chat : {};
	const message = isRecord(body.message) ? body.message : isRecord(data.message) ? data.message : {};
	// A chat:created delivery may carry the chat record itself as `data` (its id is `id`); in a message
	// event `data.id` could be the message's, so it is read only here.
	const isChat = body.event_type === 'chat:created';
	return {
		event: {
			event_type: body.event_type,
			chat_id: asId(first(data.chat_id, isChat ? data.id : undefined, chat.chat_id, chat.id, message.chat_id)),
			chat_name: asText(first(data.chat_name, isChat ? data.name : undefined, chat.chat_name, chat.full_name, chat.name)),
			text: asText(first(data.text, message.text)),
			message_uid: asText(first(data.message_uid, message.message_uid, message.uid)),
			unattended: asFlag(
				first(data.unattended_customer, body.unattended_customer, data.unattended, chat.unattended_customer, chat.unattended),
			),
			raw: body,
		},
	};
}

/** A file attached to an inbound message: its short-lived link (about 15 minutes) and what is known about it. */
export interface EventAttachment {
	url: string;
	filename?: string;
	mimeType?: string;
	size?: number;
}

/**
 * The attachments a delivery links to, in either shape: the live `message.attachments[]`
 * (`temporary_download_url`, `filename`, `mimetype`, `size`), or the message record's
 * `attachment_url`/`attachment_filename` inside `data` (or `data.attachments[]`). Download them with
 * `executor.download(attachment.url, attachment)`.
 */
export function eventAttachments(event: ChatEvent): EventAttachment[] {
	const raw = event.raw;
	const data = isRecord(raw.data) ? raw.data : {};
	const message = isRecord(raw.message) ? raw.message : isRecord(data.message) ? data.message : {};
	const listed = [message.attachments, data.attachments].find(Array.isArray) ?? [];
	const out: EventAttachment[] = [];
	for (const item of listed) {
		if (!isRecord(item)) continue;
		const url = first(item.temporary_download_url, item.url, item.download_url);
		if (typeof url !== 'string' || !url) continue;
		out.push({
			url,
			filename: asText(first(item.filename, item.name)) ?? undefined,
			mimeType: asText(first(item.mimetype, item.mime_type, item.content_type)) ?? undefined,
			size: typeof item.size === 'number' ? item.size : undefined,
		});
	}
	const single = first(data.attachment_url, message.attachment_url);
	if (!out.length && typeof single === 'string' && single) {
		out.push({ url: single, filename: asText(first(data.attachment_filename, message.attachment_filename)) ?? undefined });
	}
	return out;
}

/**
 * Whether the delivery says the message has an attachment: `has_attachment` (the sandbox's spec-shaped
 * bodies), or the live shape's `message.attachments` list (empty: none). Undefined when it does not say,
 * as in the spec's own event (`chat_id`, `chat_name`, `text`, `message_uid`).
 */
function deliverySaysAttachment(event: ChatEvent): boolean | undefined {
	const data = isRecord(event.raw.data) ? event.raw.data : {};
	const message = isRecord(event.raw.message) ? event.raw.message : isRecord(data.message) ? data.message : {};
	const flag = first(data.has_attachment, message.has_attachment);
	if (typeof flag === 'boolean') return flag;
	if (Array.isArray(message.attachments)) return message.attachments.length > 0;
	return undefined;
}

/**
 * Downloads the attachments of a message event (their links live about 15 minutes, so a flow that wants
 * the bytes must fetch them at once). The live shape links them in the delivery. The spec's event names
 * no attachment at all, so unless the delivery says there is none, the message is read (one request) and
 * the file its `attachment_url` links to is fetched. A message whose record says it has an attachment but
 * links none fails, naming the message: a file is never skipped in silence.
 */
export async function downloadEventAttachments(executor: Executor, event: ChatEvent): Promise<DownloadedFile[]> {
	let attachments = eventAttachments(event);
	if (!attachments.length && event.message_uid && deliverySaysAttachment(event) !== false) {
		const record = await executor.run('message:get', { message_uid: event.message_uid });
		if (isRecord(record) && typeof record.attachment_url === 'string' && record.attachment_url) {
			attachments = [{ url: record.attachment_url, filename: asText(record.attachment_filename) ?? undefined }];
		} else if (isRecord(record) && record.has_attachment === true) {
			throw new ChatMessagingError(
				`message ${event.message_uid} has an attachment, but its record gives no attachment_url to download it from`,
				{ kind: 'service', operation: 'message:get' },
			);
		}
	}
	const files: DownloadedFile[] = [];
	for (const attachment of attachments) files.push(await executor.download(attachment.url, attachment));
	return files;
}

/**
 * What makes two deliveries the same event: the chat for `chat:created`; otherwise the message uid,
 * or the delivery's `data.event_id` (the same on a redelivery). Undefined when the delivery carries
 * none of them: such an event is never taken for a redelivery.
 */
export function eventKey(event: ChatEvent): string | undefined {
	const data = isRecord(event.raw.data) ? event.raw.data : {};
	const subject = event.event_type === 'chat:created' ? event.chat_id : first(event.message_uid, asId(data.event_id));
	return subject === undefined || subject === null ? undefined : `${event.event_type}|${String(subject)}`;
}

/**
 * Reads a record timestamp: the spec's `YYYY-MM-DD HH:MM:SS ±ZZZZ`, or ISO 8601. Null when absent
 * or unreadable (such an item cannot be placed against the cursor and is left out).
 */
export function parseRecordTime(value: unknown): number | null {
	if (typeof value !== 'string' || !value.trim()) return null;
	const spec = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.\d+)? ?([+-])(\d{2}):?(\d{2})$/.exec(value.trim());
	const ms = spec ? Date.parse(`${spec[1]}T${spec[2]}${spec[3]}${spec[4]}:${spec[5]}`) : Date.parse(value);
	return Number.isNaN(ms) ? null : ms;
}
