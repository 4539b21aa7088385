import { ApiError } from '../errors';
import type { ChatRecord } from '../model';
import { phoneFilter } from '../phone';
import { idParam, route, type RequestContext, type Route } from '../router';
import { chatListQuery, chatPatchBody, labelsBody, noteBody, parseWith } from '../schemas';
import { INVALID_PHONE } from '../errors';
import { pageOf } from '../pages';

export const CHAT_PAGE_SIZE = 50;

function* matchingChats(chats: Iterable<ChatRecord>, filters: ((chat: ChatRecord) => boolean)[]): Generator<ChatRecord> {
	for (const chat of chats) if (filters.every((f) => f(chat))) yield chat;
}

function listChats(ctx: RequestContext) {
	const q = parseWith(chatListQuery, ctx.query);
	const { ws } = ctx;
	const filters: ((chat: ChatRecord) => boolean)[] = [];
	if (q.label?.length) {
		const wanted = q.label.map((l) => l.toLowerCase());
		filters.push((c) => c.labels.some((l) => wanted.includes(l.toLowerCase())));
	}
	const accountIds = q.chatapp_account_id;
	if (accountIds?.length) filters.push((c) => accountIds.includes(c.accountId));
	if (q.group !== undefined) filters.push((c) => c.isGroup === q.group);
	if (q.responsible?.length) {
		const wanted = q.responsible.map((e) => e.toLowerCase());
		filters.push((c) => c.responsibleEmail !== null && wanted.includes(c.responsibleEmail.toLowerCase()));
	}
	if (q.name !== undefined) {
		// Split on commas only: "Anna Schmidt" stays one exact substring.
		const terms = q.name
			.split(',')
			.map((t) => t.trim().toLowerCase())
			.filter((t) => t.length > 0);
		if (terms.length > 0) filters.push((c) => terms.some((t) => c.name.toLowerCase().includes(t)));
	}
	if (q.phone !== undefined && q.phone.trim() !== '') {
		const matches = phoneFilter(q.phone);
		if (!matches) throw ApiError.field(['phone'], INVALID_PHONE);
		filters.push((c) => !c.isGroup && c.phone !== null && matches(c.phone));
	}
	if (q.read !== undefined) filters.push((c) => c.read === q.read);
	if (q.closed !== undefined) filters.push((c) => c.closed === q.closed);
	if (q.ai_autoresponse_enabled !== undefined) filters.push((c) => c.aiAutoresponse === q.ai_autoresponse_enabled);
	const { created_after: createdAfter, created_before: createdBefore } = q;
	if (createdAfter !== undefined) filters.push((c) => c.createdAt > createdAfter);
	if (createdBefore !== undefined) filters.push((c) => c.createdAt < createdBefore);

	// The chats are kept in list order: a page walks them only as far as it needs, and sorts nothing.
	const ordered = ws.chatsInOrder();
	const matching = filters.length === 0 ? ordered : matchingChats(ordered, filters);
	const { items, hasMorePages } = pageOf(matching, q.page ?? 1, CHAT_PAGE_SIZE, ctx.runtime.options.emptyList404);
	return { has_more_pages: hasMorePages, chats: items.map((c) => ctx.runtime.renderer.chat(ws, c)) };
}

function chatOf(ctx: RequestContext): ChatRecord {
	return ctx.runtime.directory.chat(ctx.ws, idParam(ctx, 'chat_id'));
}

function getChat(ctx: RequestContext) {
	return ctx.runtime.renderer.chat(ctx.ws, chatOf(ctx));
}

function patchChat(ctx: RequestContext) {
	const chat = chatOf(ctx);
	const body = parseWith(chatPatchBody, ctx.body);
	const { ws } = ctx;
	// Validate everything before changing anything, so a rejected PATCH leaves the chat untouched.
	let responsible: string | null | undefined;
	if (body.responsible !== undefined) {
		if (body.responsible.trim() === '') responsible = null;
		else {
			const mate = ws.activeTeammateByEmail(body.responsible);
			if (!mate) throw ApiError.coded('member_not_found', `No team member with email ${body.responsible}`);
			responsible = mate.email;
		}
	}
	if (body.name !== undefined) {
		const clash = ws.findChatByName(body.name);
		if (clash && clash.id !== chat.id) throw ApiError.field(['name'], 'A chat with this name already exists in the workspace');
	}
	if (responsible !== undefined) chat.responsibleEmail = responsible;
	if (body.name !== undefined) ws.renameChat(chat, body.name);
	if (body.closed !== undefined) chat.closed = body.closed;
	if (body.read !== undefined) {
		chat.read = body.read;
		// Reading the chat reads its inbound messages.
		if (body.read)
			for (const m of ws.messagesOf(chat.id)) if (!m.fromMe && m.status === 'delivered') ctx.runtime.messaging.advance(m, 'read');
	}
	if (body.ai_autoresponse_enabled !== undefined) chat.aiAutoresponse = body.ai_autoresponse_enabled;
	return ctx.runtime.renderer.chat(ws, chat);
}

function getLabels(ctx: RequestContext) {
	return { labels: [...chatOf(ctx).labels] };
}

function setLabels(mode: 'add' | 'replace') {
	return (ctx: RequestContext) => {
		const chat = chatOf(ctx);
		const { labels } = parseWith(labelsBody, ctx.body);
		const unique = [...new Set(labels)];
		ctx.ws.registerLabels(unique);
		chat.labels = mode === 'replace' ? unique : [...new Set([...chat.labels, ...unique])];
		return { labels: [...chat.labels] };
	};
}

function addNote(ctx: RequestContext) {
	const chat = chatOf(ctx);
	const { text } = parseWith(noteBody, ctx.body);
	const note = { id: ctx.ws.nextId('note'), chatId: chat.id, text, authorEmail: ctx.ws.owner.email, createdAt: Date.now() };
	ctx.ws.data.notes.push(note);
	return ctx.runtime.renderer.note(ctx.ws, note);
}

export const chatRoutes: Route[] = [
	route('GET', '/chats', listChats),
	route('GET', '/chats/:chat_id', getChat),
	route('PATCH', '/chats/:chat_id', patchChat),
	route('GET', '/chats/:chat_id/labels', getLabels),
	route('PUT', '/chats/:chat_id/labels', setLabels('add')),
	route('POST', '/chats/:chat_id/labels', setLabels('replace')),
	route('POST', '/chats/:chat_id/notes', addNote),
];
