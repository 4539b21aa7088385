import { createHmac, timingSafeEqual } from 'crypto';
import { formatSpecTimestamp, isoUtc } from './time';
import type { AccountRecord, ChatRecord, FileRecord, MessageRecord, NoteRecord, TeammateRecord, WebhookRecord } from './model';
import type { Workspace } from './workspace';

/** Maps internal records to the API's JSON shapes (spec field names and timestamp formats). */

export const WEB_APP_URL = 'https://app.chat-messaging.example';
/** Signed download links stay valid this long (the live service says about 15 minutes). */
export const DOWNLOAD_LINK_TTL_MS = 15 * 60_000;

export class Renderer {
	constructor(private readonly signingKey: string) {}

	signature(uid: string, expires: number): string {
		return createHmac('sha256', this.signingKey).update(`${uid}:${expires}`).digest('hex').slice(0, 32);
	}

	/** Whether a link's signature is the one this process made for that file and expiry (compared in constant time). */
	signatureMatches(uid: string, expires: number, given: string): boolean {
		const expected = Buffer.from(this.signature(uid, expires));
		const actual = Buffer.from(given);
		return actual.length === expected.length && timingSafeEqual(actual, expected);
	}

	downloadUrl(baseUrl: string, uid: string): string {
		const expires = Date.now() + DOWNLOAD_LINK_TTL_MS;
		return `${baseUrl}/_sandbox/download/${uid}?expires=${expires}&signature=${this.signature(uid, expires)}`;
	}

	chat(ws: Workspace, chat: ChatRecord): Record<string, unknown> {
		const ts = (ms: number) => formatSpecTimestamp(ms, ws.data.offsetMinutes);
		const responsible = chat.responsibleEmail ? ws.data.teammates.find((t) => t.email === chat.responsibleEmail) : undefined;
		const out: Record<string, unknown> = {
			id: chat.id,
			name: chat.name,
			phone: chat.phone,
			jid: chat.jid,
			is_group: chat.isGroup,
			closed: chat.closed,
			read: chat.read,
			labels: [...chat.labels],
			ai_autoresponse_enabled: chat.aiAutoresponse,
			responsible_email: chat.responsibleEmail,
			responsible_name: responsible?.displayName ?? null,
			chatapp_account_id: chat.accountId,
			chat_url: `${WEB_APP_URL}/chats/${chat.id}`,
			created_timestamp: ts(chat.createdAt),
			last_message_uid: chat.lastMessageUid,
			last_message_timestamp: chat.lastMessageAt === null ? null : ts(chat.lastMessageAt),
			unattended: chat.unattended,
			photo: `${WEB_APP_URL}/photos/${chat.jid.replace(/[^\w.-]/g, '_')}.jpg`,
			is_allowed_to_message: ws.isAllowedToMessage(chat),
		};
		if (chat.groupMembers) {
			out.group_members = chat.groupMembers.map((member) => ({
				name: member.name,
				phone: member.phone,
				role: member.role,
				chat_id: ws.directChatsWithPhone(member.phone)[0]?.id ?? null,
			}));
		}
		return out;
	}

	reactionCounts(message: MessageRecord): Record<string, number> {
		const counts: Record<string, number> = {};
		for (const r of message.reactions) counts[r.reaction] = (counts[r.reaction] ?? 0) + 1;
		return counts;
	}

	reactions(message: MessageRecord): Record<string, unknown> {
		return {
			reactions: this.reactionCounts(message),
			users: message.reactions.map((r) => ({ name: r.name, phone: r.phone, reaction: r.reaction, current: r.current })),
			total: message.reactions.length,
		};
	}

	message(ws: Workspace, message: MessageRecord, baseUrl: string): Record<string, unknown> {
		return {
			uid: message.uid,
			chat_id: message.chatId,
			timestamp: formatSpecTimestamp(message.createdAt, ws.data.offsetMinutes),
			sender_phone: message.senderPhone,
			sender_name: message.senderName,
			recipient_phone: message.recipientPhone,
			recipient_name: message.recipientName,
			from_me: message.fromMe,
			status: message.status,
			origin: message.origin,
			has_attachment: message.fileUid !== null,
			message_type: message.messageType,
			text: message.text,
			attachment_url: message.fileUid ? this.downloadUrl(baseUrl, message.fileUid) : null,
			attachment_filename: message.attachmentFilename,
			reply_to: message.replyTo,
			reactions: this.reactionCounts(message),
		};
	}

	statusHistory(message: MessageRecord): { status: string; timestamp: string }[] {
		return message.history.map((entry) => ({ status: entry.status, timestamp: isoUtc(entry.at) }));
	}

	note(ws: Workspace, note: NoteRecord): Record<string, unknown> {
		return {
			id: note.id,
			chat_id: note.chatId,
			text: note.text,
			author_email: note.authorEmail,
			created_timestamp: formatSpecTimestamp(note.createdAt, ws.data.offsetMinutes),
		};
	}

	file(ws: Workspace, file: FileRecord, baseUrl: string): Record<string, unknown> {
		return {
			uid: file.uid,
			filename: file.filename,
			size: file.size,
			mimetype: file.mimetype,
			uploaded_by_email: file.uploadedByEmail,
			uploaded_at: formatSpecTimestamp(file.uploadedAt, ws.data.offsetMinutes),
			temporary_download_url: this.downloadUrl(baseUrl, file.uid),
		};
	}

	account(ws: Workspace, account: AccountRecord): Record<string, unknown> {
		return {
			id: account.id,
			phone: account.phone,
			connected_on: formatSpecTimestamp(account.connectedOn, ws.data.offsetMinutes),
			status: account.status,
			owner_name: account.ownerName,
			owner_email: account.ownerEmail,
			account_name: account.accountName,
		};
	}

	teammate(ws: Workspace, mate: TeammateRecord): Record<string, unknown> {
		return {
			user_id: mate.userId,
			display_name: mate.displayName,
			email: mate.email,
			status: mate.status,
			created_at: formatSpecTimestamp(mate.createdAt, ws.data.offsetMinutes),
			role: mate.role,
			team_title: mate.teamTitle,
			chatapp_accounts: [...mate.accountIds],
		};
	}

	webhook(hook: WebhookRecord): Record<string, unknown> {
		return { id: hook.id, event_type: hook.eventType, url: hook.url, enabled: hook.enabled, errors_counter: hook.errorsCounter };
	}

	workspace(ws: Workspace): Record<string, unknown> {
		const d = ws.data;
		const ts = (ms: number) => formatSpecTimestamp(ms, d.offsetMinutes);
		const active = d.teammates.filter((t) => t.status === 'active').length;
		return {
			workspace_id: d.workspaceId,
			display_name: d.displayName,
			plan: d.plan,
			messaging_quota: {
				total: d.quota.total,
				used: d.quota.used,
				period_start: ts(d.quota.periodStart),
				period_end: ts(d.quota.periodEnd),
			},
			api_calls_quota: { total: null, used: d.apiCalls },
			seats: { total: 10, used: active },
			non_recurring_quota: { remaining_balance: 0, last_updated_at: ts(d.quota.periodStart) },
		};
	}
}
