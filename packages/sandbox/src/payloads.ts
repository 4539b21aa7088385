import type { ChatRecord, EventType, MessageRecord } from './model';
import type { WebhookPayload } from './options';
import type { Renderer } from './render';
import type { Workspace } from './workspace';

/** What an event is about; the body is built from it, in the chosen shape, when the event is emitted. */
export type WebhookEvent = { kind: 'chat'; chat: ChatRecord } | { kind: 'message'; message: MessageRecord };

/** Builds webhook bodies in either shape: the spec's `{event_type, data}` or the live service's unwrapped one. */
export class PayloadBuilder {
	constructor(private readonly renderer: Renderer) {}

	/**
	 * `spec`: `{event_type, data}` with `event_id` inside `data` (same on a redelivery).
	 * `live`: `{event_type, chat, chatapp_account, message?}` exactly as the service notes list it (no event id:
	 * the live service has none; a receiver de-duplicates on `message.message_uid`).
	 */
	body(
		ws: Workspace,
		eventType: EventType,
		event: WebhookEvent,
		shape: WebhookPayload,
		eventId: string,
		baseUrl: string,
	): Record<string, unknown> {
		if (shape === 'live') return { event_type: eventType, ...this.live(ws, event, baseUrl) };
		if (shape === 'spec-exact') return { event_type: eventType, data: this.specExactData(ws, event) };
		const data = event.kind === 'chat' ? this.specChatData(ws, event.chat) : this.specMessageData(ws, event.message);
		return { event_type: eventType, data: { event_id: eventId, ...data } };
	}

	/** `data` of a message event: the spec's fields (chat_id, chat_name, text, message_uid, unattended_customer) and more. */
	specMessageData(ws: Workspace, message: MessageRecord): Record<string, unknown> {
		const chat = ws.chatOf(message);
		return {
			chat_id: chat.id,
			chat_name: chat.name,
			text: message.text,
			message_uid: message.uid,
			unattended_customer: chat.unattended,
			from_me: message.fromMe,
			phone: chat.phone,
			jid: chat.jid,
			is_group: chat.isGroup,
			chatapp_account_id: chat.accountId,
			sender_name: message.senderName,
			sender_phone: message.senderPhone,
			timestamp: this.renderer.message(ws, message, '').timestamp,
			has_attachment: message.fileUid !== null,
			attachment_filename: message.attachmentFilename,
			origin: message.origin,
		};
	}

	/**
	 * Only what the spec names: `chat_id`, `chat_name`, `text` (absent when the message has none) and
	 * `message_uid`, and `unattended_customer`. No event id, no attachment hint: a receiver that needs more
	 * reads the message.
	 */
	specExactData(ws: Workspace, event: WebhookEvent): Record<string, unknown> {
		const chat = event.kind === 'chat' ? event.chat : ws.chatOf(event.message);
		const data: Record<string, unknown> = { chat_id: chat.id, chat_name: chat.name };
		if (event.kind === 'message') {
			if (event.message.text !== null && event.message.text !== '') data.text = event.message.text;
			data.message_uid = event.message.uid;
		}
		data.unattended_customer = chat.unattended;
		return data;
	}

	/** `data` of chat:created: the chat record plus chat_id / chat_name / unattended_customer. */
	specChatData(ws: Workspace, chat: ChatRecord): Record<string, unknown> {
		return { ...this.renderer.chat(ws, chat), chat_id: chat.id, chat_name: chat.name, unattended_customer: chat.unattended };
	}

	/** The live service's unwrapped objects (chat:created has no `message`). */
	live(ws: Workspace, event: WebhookEvent, baseUrl: string): Record<string, unknown> {
		const chat = event.kind === 'chat' ? event.chat : ws.chatOf(event.message);
		const account = ws.data.accounts.find((a) => a.id === chat.accountId);
		const rendered = this.renderer.chat(ws, chat);
		const out: Record<string, unknown> = {
			chat: {
				chat_id: chat.id,
				full_name: chat.name,
				chat_url: rendered.chat_url,
				is_group: chat.isGroup,
				phone: chat.phone,
				responsible_name: rendered.responsible_name,
				responsible_email: chat.responsibleEmail,
			},
			chatapp_account: {
				full_name: account?.ownerName ?? null,
				email: account?.ownerEmail ?? null,
				phone: account?.phone ?? null,
			},
		};
		if (event.kind === 'message') out.message = this.liveMessage(ws, event.message, baseUrl);
		return out;
	}

	private liveMessage(ws: Workspace, message: MessageRecord, baseUrl: string): Record<string, unknown> {
		const file = message.fileUid === null ? undefined : ws.data.files.find((f) => f.uid === message.fileUid);
		return {
			text: message.text,
			direction: message.fromMe ? 'outgoing' : 'incoming',
			origin: message.origin,
			timestamp: this.renderer.message(ws, message, '').timestamp,
			message_uid: message.uid,
			sender: { full_name: message.senderName, phone: message.senderPhone },
			recipient: { full_name: message.recipientName, phone: message.recipientPhone },
			reply_to_uid: message.replyTo,
			attachments: file
				? [
						{
							temporary_download_url: this.renderer.downloadUrl(baseUrl, file.uid),
							filename: message.attachmentFilename ?? file.filename,
							size: file.size,
							mimetype: file.mimetype,
						},
					]
				: [],
		};
	}
}
