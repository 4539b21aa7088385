import { ApiError, INVALID_PHONE } from '../errors';
import type { ChatRecord, MessageRecord } from '../model';
import type { OutgoingContent } from '../messaging';
import { sanitizePhoneForSending } from '../phone';
import { idParam, route, type RequestContext, type Route } from '../router';
import { messageListQuery, parseWith, reactionBody, sendToChatBody, sendToChatNameBody, sendToJidBody, sendToPhoneBody } from '../schemas';
import { pageOf } from '../pages';

export const MESSAGE_PAGE_SIZE = 50;

/** The send response: the uid to track, the chat it went to, and the initial status. */
function accepted(message: MessageRecord) {
	return { message_uid: message.uid, chat_id: message.chatId, status: message.status };
}

function sendInto(ctx: RequestContext, chat: ChatRecord, content: OutgoingContent) {
	const cost = ctx.runtime.messaging.check(ctx.ws, chat, content);
	return accepted(ctx.runtime.messaging.enqueue(ctx.ws, chat, content, cost));
}

/** Sending to a phone: finds the one-to-one chat on the sending account, or creates it (emits chat:created). */
function sendToPhone(ctx: RequestContext, phone: string, content: OutgoingContent, accountId?: string, chatName?: string) {
	const { ws, runtime } = ctx;
	const account = runtime.messaging.sendingAccount(ws, accountId);
	const existing = ws.directChatsWithPhone(phone).find((c) => c.accountId === account.id);
	if (existing) return sendInto(ctx, existing, content);
	if (chatName !== undefined && ws.findChatByName(chatName)) {
		throw ApiError.field(['chat_name'], 'A chat with this name already exists in the workspace');
	}
	const cost = runtime.messaging.check(ws, null, content);
	const chat = runtime.createDirectChat(ws, phone, account.id, chatName);
	return accepted(runtime.messaging.enqueue(ws, chat, content, cost));
}

function postMessage(ctx: RequestContext) {
	const body = parseWith(sendToPhoneBody, ctx.body);
	const phone = sanitizePhoneForSending(body.phone);
	if (!phone) throw ApiError.field(['phone'], INVALID_PHONE);
	return sendToPhone(ctx, phone, { text: body.text, fileUid: body.file_uid, label: body.label }, body.chatapp_account_id, body.chat_name);
}

function postChatMessage(ctx: RequestContext) {
	const chat = ctx.runtime.directory.chat(ctx.ws, idParam(ctx, 'chat_id'));
	const body = parseWith(sendToChatBody, ctx.body);
	return sendInto(ctx, chat, { text: body.text, fileUid: body.file_uid, replyTo: body.reply_to, label: body.label });
}

function postToChatName(ctx: RequestContext) {
	const body = parseWith(sendToChatNameBody, ctx.body);
	const chat = ctx.ws.findChatByName(body.chat_name);
	if (!chat) throw ApiError.notFound('Chat');
	return sendInto(ctx, chat, { text: body.text, fileUid: body.file_uid });
}

function postToJid(ctx: RequestContext) {
	const body = parseWith(sendToJidBody, ctx.body);
	const content = { text: body.text, fileUid: body.file_uid, replyTo: body.reply_to };
	const chat = ctx.ws.findChatByJid(body.jid);
	if (chat) return sendInto(ctx, chat, content);
	// A contact JID of a number never messaged before works like a phone send.
	const [id, server] = body.jid.split('@') as [string, string];
	if (server === 'c.us' || server === 's.whatsapp.net') {
		const phone = sanitizePhoneForSending(`+${id}`);
		if (!phone) throw ApiError.field(['jid'], INVALID_PHONE);
		if (body.reply_to !== undefined) throw ApiError.field(['reply_to'], 'reply_to must be a message of this chat');
		return sendToPhone(ctx, phone, content);
	}
	throw ApiError.notFound('Chat');
}

function messageOf(ctx: RequestContext): MessageRecord {
	return ctx.runtime.directory.message(ctx.ws, ctx.params.message_uid ?? '');
}

function getMessage(ctx: RequestContext) {
	return ctx.runtime.renderer.message(ctx.ws, messageOf(ctx), ctx.baseUrl);
}

function getStatusHistory(ctx: RequestContext) {
	return ctx.runtime.renderer.statusHistory(messageOf(ctx));
}

function listChatMessages(ctx: RequestContext) {
	const chat = ctx.runtime.directory.chat(ctx.ws, idParam(ctx, 'chat_id'));
	const q = parseWith(messageListQuery, ctx.query);
	// Chronological (stable for equal timestamps), then reversed: newest first.
	let messages = ctx.ws
		.messagesOf(chat.id)
		.map((m, i) => ({ m, i }))
		.sort((a, b) => a.m.createdAt - b.m.createdAt || a.i - b.i)
		.map(({ m }) => m);
	if (q.after_message !== undefined) {
		const index = messages.findIndex((m) => m.uid === q.after_message);
		if (index < 0) throw ApiError.field(['after_message'], 'after_message must be a message of this chat');
		messages = messages.slice(index + 1);
	}
	if (q.from_me !== undefined) messages = messages.filter((m) => m.fromMe === q.from_me);
	const { after, before } = q;
	if (after !== undefined) messages = messages.filter((m) => m.createdAt > after);
	if (before !== undefined) messages = messages.filter((m) => m.createdAt < before);
	messages.reverse();
	const { items: slice, hasMorePages: hasMore } = pageOf(messages, q.page ?? 1, MESSAGE_PAGE_SIZE, ctx.runtime.options.emptyList404);
	return {
		has_more_pages: hasMore,
		messages: slice.map((m) => ctx.runtime.renderer.message(ctx.ws, m, ctx.baseUrl)),
	};
}

function getReactions(ctx: RequestContext) {
	return ctx.runtime.renderer.reactions(messageOf(ctx));
}

/** Sets (or with "" clears) the reaction of the workspace user the API acts as. */
function putReaction(ctx: RequestContext) {
	const message = messageOf(ctx);
	const { reaction } = parseWith(reactionBody, ctx.body);
	message.reactions = message.reactions.filter((r) => !r.current);
	if (reaction !== '') {
		const account = ctx.ws.data.accounts.find((a) => a.id === ctx.ws.chatOf(message).accountId);
		message.reactions.push({ name: ctx.ws.owner.displayName, phone: account?.phone ?? '', reaction, current: true });
	}
	return ctx.runtime.renderer.reactions(message);
}

export const messageRoutes: Route[] = [
	route('POST', '/messages', postMessage),
	route('POST', '/chats/:chat_id/messages', postChatMessage),
	route('GET', '/chats/:chat_id/messages', listChatMessages),
	route('POST', '/messages/to_chat_name', postToChatName),
	route('POST', '/messages/to_jid', postToJid),
	route('GET', '/messages/:message_uid', getMessage),
	route('GET', '/messages/:message_uid/status_history', getStatusHistory),
	route('GET', '/messages/:message_uid/reactions', getReactions),
	route('PUT', '/messages/:message_uid/reactions', putReaction),
	route('PATCH', '/messages/:message_uid/reactions', putReaction),
];
