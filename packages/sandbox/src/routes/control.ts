import { ApiError, INVALID_PHONE } from '../errors';
import type { ChatRecord, MessageRecord } from '../model';
import { sanitizePhoneForSending } from '../phone';
import { idParam, route, type RequestContext, type Route } from '../router';
import { controlQuotaBody, controlStatusBody, incomingBody, parseWith, teammateMessageBody } from '../schemas';

/** The control API under /_sandbox/: drives what only the outside world could do on the live service. */

/** Simulates an inbound message from a contact (or a group member). */
function incoming(ctx: RequestContext) {
	const body = parseWith(incomingBody, ctx.body);
	const { ws, runtime } = ctx;
	let chat: ChatRecord | undefined;
	let created = false;
	if (body.chat_id !== undefined) {
		chat = runtime.directory.chat(ws, body.chat_id);
	} else {
		let phone: string | null = null;
		if (body.jid !== undefined) {
			chat = ws.findChatByJid(body.jid);
			if (!chat) {
				const [id, server] = body.jid.split('@');
				if (server !== 'c.us') throw ApiError.notFound('Chat');
				phone = sanitizePhoneForSending(`+${id ?? ''}`);
				if (!phone) throw ApiError.field(['jid'], INVALID_PHONE);
			}
		} else {
			phone = sanitizePhoneForSending(body.phone ?? '');
			if (!phone) throw ApiError.field(['phone'], INVALID_PHONE);
		}
		if (!chat && phone) {
			const candidates = ws.directChatsWithPhone(phone);
			const accountsByRecency = [...ws.data.accounts].sort(
				(a, b) => (b.status === 'connected' ? 1 : 0) - (a.status === 'connected' ? 1 : 0) || b.connectedOn - a.connectedOn,
			);
			const [receiving] = accountsByRecency;
			chat = candidates.find((c) => c.accountId === receiving?.id) ?? candidates[0];
			if (!chat) {
				if (!receiving) throw ApiError.coded('not_supported', 'The workspace has no chat-app account to receive on');
				chat = runtime.createDirectChat(ws, phone, receiving.id, body.name ? ws.uniqueName(body.name) : undefined, body.payload);
				created = true;
			}
		}
	}
	if (!chat) throw ApiError.notFound('Chat');
	const file = body.file_uid === undefined ? undefined : ws.data.files.find((f) => f.uid === body.file_uid);
	if (body.file_uid !== undefined && !file) throw ApiError.field(['file_uid'], 'file_uid must be a file of this workspace');
	const account = ws.data.accounts.find((a) => a.id === chat.accountId);
	const sender = chat.isGroup && chat.groupMembers ? (chat.groupMembers[1] ?? chat.groupMembers[0]) : undefined;
	const now = Date.now();
	const message: MessageRecord = {
		uid: ws.nextUid('message'),
		chatId: chat.id,
		createdAt: now,
		fromMe: false,
		senderPhone: sender?.phone ?? chat.phone,
		senderName: body.name ?? sender?.name ?? chat.name,
		recipientPhone: account?.phone ?? null,
		recipientName: account?.accountName ?? null,
		status: 'delivered',
		history: [{ status: 'delivered', at: now }],
		origin: 'Chat app',
		messageType: file ? (file.mimetype.startsWith('image/') ? 'image' : 'document') : 'text',
		text: body.text,
		fileUid: file?.uid ?? null,
		attachmentFilename: file?.filename ?? null,
		replyTo: null,
		reactions: [],
		credits: 0,
	};
	ws.addMessage(message);
	// A new inbound message reopens the chat, marks it unread and flags it unattended until someone answers.
	chat.read = false;
	chat.closed = false;
	chat.unattended = true;
	runtime.events.emit(ws, 'message:received:new', { kind: 'message', message }, { copies: body.duplicate ? 2 : 1, payload: body.payload });
	return { chat_id: chat.id, chat_created: created, message: runtime.renderer.message(ws, message, ctx.baseUrl) };
}

/**
 * Simulates a teammate answering in the web app: an outbound message (`from_me` true, origin `Web app`,
 * status `sent`, no credit) that answers the chat (no longer unattended) and emits `message:sent:new`.
 */
function teammateMessage(ctx: RequestContext) {
	const body = parseWith(teammateMessageBody, ctx.body);
	const { ws, runtime } = ctx;
	const chat = runtime.directory.chat(ws, body.chat_id);
	const teammate = body.email === undefined ? ws.owner : ws.activeTeammateByEmail(body.email);
	if (!teammate) throw ApiError.field(['email'], 'email must be an active teammate of this workspace');
	const account = ws.accountOf(chat);
	const now = Date.now();
	const message: MessageRecord = {
		uid: ws.nextUid('message'),
		chatId: chat.id,
		createdAt: now,
		fromMe: true,
		senderPhone: account.phone,
		senderName: teammate.displayName,
		recipientPhone: chat.phone,
		recipientName: chat.name,
		status: 'sent',
		history: [
			{ status: 'queued', at: now },
			{ status: 'sent', at: now },
		],
		origin: 'Web app',
		messageType: 'text',
		text: body.text,
		fileUid: null,
		attachmentFilename: null,
		replyTo: null,
		reactions: [],
		credits: 0,
	};
	ws.addMessage(message);
	chat.unattended = false;
	runtime.events.emit(ws, 'message:sent:new', { kind: 'message', message });
	return { chat_id: chat.id, message: runtime.renderer.message(ws, message, ctx.baseUrl) };
}

function driveStatus(ctx: RequestContext) {
	const message = ctx.runtime.directory.message(ctx.ws, ctx.params.message_uid ?? '');
	const { status } = parseWith(controlStatusBody, ctx.body);
	ctx.runtime.messaging.drive(ctx.ws, message, status);
	return ctx.runtime.renderer.message(ctx.ws, message, ctx.baseUrl);
}

function setAccountStatus(status: 'connected' | 'disconnected') {
	return (ctx: RequestContext) => {
		const id = ctx.params.account_id ?? '';
		const account = ctx.runtime.directory.owned(ctx.ws, (w) => w.data.accounts.find((a) => a.id === id), 'Chat-app account');
		if (account.status !== status) {
			account.status = status;
			// Connecting makes it the most recently connected account (the default sender).
			if (status === 'connected') account.connectedOn = Date.now();
		}
		return ctx.runtime.renderer.account(ctx.ws, account);
	};
}

function reset(ctx: RequestContext) {
	const fresh = ctx.runtime.reset(ctx.ws);
	return { reset: true, chats: fresh.data.chats.length };
}

function deliveries(ctx: RequestContext) {
	const { webhook_id, event_type } = ctx.query;
	return {
		deliveries: ctx.ws.data.deliveries.filter(
			(d) => (webhook_id === undefined || String(d.webhook_id) === webhook_id) && (event_type === undefined || d.event_type === event_type),
		),
	};
}

function clearDeliveries(ctx: RequestContext) {
	const count = ctx.ws.data.deliveries.length;
	ctx.ws.data.deliveries = [];
	return { cleared: count };
}

function notes(ctx: RequestContext) {
	const chatId = ctx.query.chat_id;
	const list = ctx.ws.data.notes.filter((n) => chatId === undefined || String(n.chatId) === chatId);
	return { notes: list.map((n) => ctx.runtime.renderer.note(ctx.ws, n)) };
}

function queue(ctx: RequestContext) {
	return { queued: [...ctx.ws.data.queue], quota: { total: ctx.ws.data.quota.total, used: ctx.ws.data.quota.used } };
}

/** Public API requests since start and how many of them the rate limit refused (429). */
function traffic(ctx: RequestContext) {
	return { api_calls: ctx.ws.data.apiCalls, rate_limited: ctx.ws.rateLimited };
}

function setQuota(ctx: RequestContext) {
	const body = parseWith(controlQuotaBody, ctx.body);
	if (body.total !== undefined) ctx.ws.data.quota.total = body.total;
	if (body.used !== undefined) ctx.ws.data.quota.used = body.used;
	return { total: ctx.ws.data.quota.total, used: ctx.ws.data.quota.used };
}

/** Webhook subscriptions, readable even when --fault-rate disturbs the public API. */
function webhooks(ctx: RequestContext) {
	return { webhooks: ctx.ws.data.webhooks.map((h) => ctx.runtime.renderer.webhook(h)) };
}

function labels(ctx: RequestContext) {
	return { labels: [...ctx.ws.data.labels] };
}

/** The internal record of a chat (internal field names), for debugging. */
function getChatRaw(ctx: RequestContext) {
	const chat = ctx.runtime.directory.chat(ctx.ws, idParam(ctx, 'chat_id'));
	return { ...chat };
}

export const controlRoutes: Route[] = [
	route('POST', '/_sandbox/incoming', incoming, 'control'),
	route('POST', '/_sandbox/teammate-message', teammateMessage, 'control'),
	route('POST', '/_sandbox/messages/:message_uid/status', driveStatus, 'control'),
	route('POST', '/_sandbox/accounts/:account_id/disconnect', setAccountStatus('disconnected'), 'control'),
	route('POST', '/_sandbox/accounts/:account_id/connect', setAccountStatus('connected'), 'control'),
	route('POST', '/_sandbox/reset', reset, 'control'),
	route('GET', '/_sandbox/deliveries', deliveries, 'control'),
	route('DELETE', '/_sandbox/deliveries', clearDeliveries, 'control'),
	route('GET', '/_sandbox/notes', notes, 'control'),
	route('GET', '/_sandbox/queue', queue, 'control'),
	route('POST', '/_sandbox/quota', setQuota, 'control'),
	route('GET', '/_sandbox/traffic', traffic, 'control'),
	route('GET', '/_sandbox/labels', labels, 'control'),
	route('GET', '/_sandbox/webhooks', webhooks, 'control'),
	route('GET', '/_sandbox/chats/:chat_id/raw', getChatRaw, 'control'),
];
