/**
 * The service's messages as the Chat SDK's: a thread id is a chat id, a delivery (either payload shape, parsed by
 * the core) or a stored message record becomes a `Message` with its author, and what a bot posts becomes the text
 * and attachment of one send.
 */
import {
	ChatMessagingError,
	eventAttachments,
	isRecord,
	parseRecordTime,
	type Attachment as SendAttachment,
	type ChatEvent,
	type ConversationMessage,
	type EventAttachment,
} from '@chat-messaging/core';
import {
	Message,
	cardChildToFallbackText,
	markdownToPlainText,
	parseMarkdown,
	stringifyMarkdown,
	type AdapterPostableMessage,
	type Attachment,
	type Author,
	type CardElement,
} from 'chat';

/** The adapter's name: the first part of every thread id, and the key of its dedupe records in the SDK's state. */
export const ADAPTER_NAME = 'chat-messaging';

const THREAD_ID = new RegExp(`^${ADAPTER_NAME}:(\\d+)$`);

export const encodeThreadId = (chatId: number | string): string => `${ADAPTER_NAME}:${chatId}`;

/** The chat id a thread id names; anything else is refused before a request is made. */
export function decodeThreadId(threadId: string): { chatId: number } {
	const match = typeof threadId === 'string' ? THREAD_ID.exec(threadId.trim()) : null;
	if (!match) {
		throw new ChatMessagingError(
			`threadId: must be "${ADAPTER_NAME}:<chat id>" (a chat of the service, e.g. ${ADAPTER_NAME}:42), got ${JSON.stringify(threadId)}`,
			{ kind: 'input', field: 'threadId' },
		);
	}
	return { chatId: Number(match[1]) };
}

/** A message uid as the service writes them; checked before a request that names one. */
export function checkMessageId(messageId: string): string {
	if (typeof messageId !== 'string' || !messageId.trim() || /[\s/?#]/.test(messageId.trim())) {
		throw new ChatMessagingError(`messageId: must be a message uid of the service, got ${JSON.stringify(messageId)}`, {
			kind: 'input',
			field: 'messageId',
		});
	}
	return messageId.trim();
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** Who wrote a message and where, read from a delivery of either shape (the members the core's ChatEvent leaves in `raw`). */
export interface DeliveryDetails {
	senderName?: string;
	senderPhone?: string;
	isGroup?: boolean;
	origin?: string;
	timestamp?: string;
	replyTo?: string;
}

export function deliveryDetails(event: ChatEvent): DeliveryDetails {
	const raw = event.raw;
	const data = isRecord(raw.data) ? raw.data : {};
	const chat = isRecord(raw.chat) ? raw.chat : {};
	const message = isRecord(raw.message) ? raw.message : {};
	const sender = isRecord(message.sender) ? message.sender : {};
	const isGroup = [data.is_group, chat.is_group].find((value) => typeof value === 'boolean') as boolean | undefined;
	return {
		senderName: text(data.sender_name) ?? text(sender.full_name),
		senderPhone: text(data.sender_phone) ?? text(sender.phone),
		isGroup,
		origin: text(data.origin) ?? text(message.origin),
		timestamp: text(data.timestamp) ?? text(message.timestamp),
		replyTo: text(data.reply_to) ?? text(message.reply_to_uid),
	};
}

/** The SDK's kind of file, from a MIME type (`image/png`) or the service's message type (`image`, `document`). */
const attachmentType = (type: string | undefined): Attachment['type'] =>
	type?.startsWith('image') ? 'image' : type?.startsWith('video') ? 'video' : type?.startsWith('audio') ? 'audio' : 'file';

/** A file of a message as the SDK's attachment; its bytes are fetched by the core (the link lives about 15 minutes). */
export function toAttachment(file: EventAttachment, download: (file: EventAttachment) => Promise<Uint8Array>): Attachment {
	return {
		type: attachmentType(file.mimeType),
		url: file.url,
		name: file.filename,
		mimeType: file.mimeType,
		size: file.size,
		fetchData: async () => Buffer.from(await download(file)),
	};
}

export interface MessageParts {
	id: string;
	threadId: string;
	text: string;
	author: Author;
	dateSent: Date;
	raw: unknown;
	attachments: Attachment[];
	isMention?: boolean;
}

export function toMessage(parts: MessageParts): Message {
	return new Message({
		id: parts.id,
		threadId: parts.threadId,
		text: parts.text,
		formatted: parseMarkdown(parts.text),
		raw: parts.raw,
		author: parts.author,
		metadata: { dateSent: parts.dateSent, edited: false },
		attachments: parts.attachments,
		isMention: parts.isMention,
	});
}

/** A customer of the service, as an SDK author: the phone where the delivery names one, else the chat. */
export function customerAuthor(details: DeliveryDetails, event: ChatEvent): Author {
	const name = details.senderName ?? event.chat_name ?? details.senderPhone ?? String(event.chat_id);
	return {
		userId: details.senderPhone ?? `chat:${event.chat_id}`,
		userName: name,
		fullName: name,
		isBot: false,
		isMe: false,
	};
}

/** A delivered message (`message:received:new` from a customer, `message:sent:new` from a teammate) as an SDK message. */
export function deliveredMessage(
	event: ChatEvent,
	author: Author,
	download: (file: EventAttachment) => Promise<Uint8Array>,
	isMention: boolean,
): Message {
	const details = deliveryDetails(event);
	const sentAt = parseRecordTime(details.timestamp);
	return toMessage({
		id: String(event.message_uid),
		threadId: encodeThreadId(event.chat_id as number | string),
		text: event.text ?? '',
		author,
		dateSent: sentAt === null ? new Date() : new Date(sentAt),
		raw: event,
		attachments: eventAttachments(event).map((file) => toAttachment(file, download)),
		isMention,
	});
}

/**
 * A message of the core's conversation (roles customer / workspace / teammate, oldest first) as an SDK message: the
 * workspace's messages, sent through the API, are the bot's own.
 */
export function conversationMessage(entry: ConversationMessage, threadId: string, userName: string): Message {
	const name = entry.sender_name ?? entry.sender_phone ?? entry.role;
	const author: Author =
		entry.role === 'workspace'
			? { userId: 'self', userName, fullName: userName, isBot: true, isMe: true }
			: {
					userId: entry.role === 'teammate' ? `teammate:${name}` : (entry.sender_phone ?? `customer:${name}`),
					userName: name,
					fullName: name,
					isBot: false,
					isMe: false,
				};
	const described = entry.attachment;
	return toMessage({
		id: entry.message_uid,
		threadId,
		text: entry.text,
		author,
		dateSent: entry.timestamp ? new Date(entry.timestamp) : new Date(0),
		raw: entry,
		// Described, never downloaded: the conversation names a file without its bytes.
		attachments: described ? [{ type: attachmentType(described.type ?? undefined), name: described.filename ?? undefined }] : [],
	});
}

/** The text and attachment of one send, from what a bot posts; an empty post is refused before any request. */
export function toSend(message: AdapterPostableMessage): { text: string; attachment?: SendAttachment } {
	let body: string;
	let files: Array<{ data: Buffer | Blob | ArrayBuffer; filename: string; mimeType?: string }> = [];
	let links: Attachment[] = [];
	if (typeof message === 'string') body = message;
	else if ('raw' in message) body = message.raw;
	else if ('markdown' in message) body = markdownToPlainText(message.markdown);
	else if ('ast' in message) body = markdownToPlainText(stringifyMarkdown(message.ast));
	else if ('card' in message) body = message.fallbackText ?? cardText(message.card);
	else body = cardText(message);
	if (typeof message === 'object' && 'files' in message && Array.isArray(message.files)) files = message.files;
	if (typeof message === 'object' && 'attachments' in message && Array.isArray(message.attachments)) links = message.attachments;
	const count = files.length + links.length;
	if (count > 1) {
		throw new ChatMessagingError(`message: the service sends one file per message, got ${count}: post them one by one`, {
			kind: 'input',
			field: 'files',
		});
	}
	const trimmed = (body ?? '').trim();
	if (!trimmed && !count) throw new ChatMessagingError('message: is empty (give text, or a file)', { kind: 'input', field: 'message' });
	return { text: trimmed, attachment: files[0] ? fileAttachment(files[0]) : links[0] ? linkAttachment(links[0]) : undefined };
}

function fileAttachment(file: { data: Buffer | Blob | ArrayBuffer; filename: string; mimeType?: string }): SendAttachment {
	if (file.data instanceof Blob) {
		throw new ChatMessagingError('files: give the bytes as a Buffer or an ArrayBuffer', { kind: 'input', field: 'files' });
	}
	const data =
		file.data instanceof ArrayBuffer
			? new Uint8Array(file.data)
			: new Uint8Array(file.data.buffer, file.data.byteOffset, file.data.byteLength);
	return { binary: { data, filename: file.filename, mimeType: file.mimeType } };
}

function linkAttachment(attachment: Attachment): SendAttachment {
	if (attachment.data instanceof Buffer)
		return { binary: { data: new Uint8Array(attachment.data), filename: attachment.name ?? 'file', mimeType: attachment.mimeType } };
	if (!attachment.url) throw new ChatMessagingError('attachments: give a public url or the data', { kind: 'input', field: 'attachments' });
	return { url: attachment.url, filename: attachment.name, contentType: attachment.mimeType };
}

function cardText(card: CardElement): string {
	const lines: Array<string | undefined> = [card.title];
	for (const child of card.children ?? []) lines.push(cardChildToFallbackText(child) ?? undefined);
	return lines.filter(Boolean).join('\n');
}
