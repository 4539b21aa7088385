import { ApiError } from './errors';
import { hexId } from './random';
import type { AccountRecord, ChatRecord, MessageRecord, TeammateRecord, WorkspaceData } from './model';
import { ID_SPAN } from './model';

/** List order of chats: latest message first, chats without messages last; ties by name ascending, then id. */
export function compareChats(a: ChatRecord, b: ChatRecord): number {
	const at = a.lastMessageAt ?? Number.NEGATIVE_INFINITY;
	const bt = b.lastMessageAt ?? Number.NEGATIVE_INFINITY;
	if (at !== bt) return bt - at;
	const an = a.name.toLowerCase();
	const bn = b.name.toLowerCase();
	return an < bn ? -1 : an > bn ? 1 : a.id - b.id;
}

/** First index whose chat sorts at or after `chat` (the order is strict: ids break every tie). */
function lowerBound(order: readonly ChatRecord[], chat: ChatRecord): number {
	let low = 0;
	let high = order.length;
	while (low < high) {
		const mid = (low + high) >>> 1;
		const probe = order[mid];
		if (probe !== undefined && compareChats(probe, chat) < 0) low = mid + 1;
		else high = mid;
	}
	return low;
}

/**
 * One workspace: its data plus lookup indexes, kept up to date as it changes, so a request costs about the same in a
 * workspace of 100 000 chats as in one of 1 000 (no request filters or sorts every chat or message). All mutation of
 * what the indexes cover (chats, names, latest messages) goes through here.
 */
export class Workspace {
	/** Public API requests refused with 429 since start (not persisted): benchmarks check clients stay under the rate. */
	rateLimited = 0;
	readonly chatById = new Map<number, ChatRecord>();
	readonly messageByUid = new Map<string, MessageRecord>();
	/** Chats in list order. */
	private readonly order: ChatRecord[];
	private readonly chatByName = new Map<string, ChatRecord>();
	private readonly chatByJid = new Map<string, ChatRecord>();
	/** One-to-one chats per phone, oldest first (one per chat-app account at most). */
	private readonly chatsByPhone = new Map<string, ChatRecord[]>();
	private readonly messagesByChat = new Map<number, MessageRecord[]>();

	constructor(
		readonly data: WorkspaceData,
		private readonly seed: number,
	) {
		for (const chat of data.chats) this.index(chat);
		this.order = [...data.chats].sort(compareChats);
		for (const message of data.messages) this.indexMessage(message);
	}

	get token(): string {
		return this.data.token;
	}

	nextId(kind: 'chat' | 'note' | 'webhook' | 'user'): number {
		this.data.counters[kind] += 1;
		return this.data.number * ID_SPAN + this.data.counters[kind];
	}

	nextUid(kind: 'message' | 'file' | 'event'): string {
		this.data.counters[kind] += 1;
		const base = `${this.seed}:${this.data.number}:${this.data.generation}:${kind}:${this.data.counters[kind]}`;
		return kind === 'message' ? hexId(base, 20) : `${kind === 'file' ? 'f' : 'evt'}_${hexId(base, 16).toLowerCase()}`;
	}

	private index(chat: ChatRecord): void {
		this.chatById.set(chat.id, chat);
		const name = chat.name.toLowerCase();
		if (!this.chatByName.has(name)) this.chatByName.set(name, chat);
		if (!this.chatByJid.has(chat.jid)) this.chatByJid.set(chat.jid, chat);
		if (!chat.isGroup && chat.phone !== null) this.chatsByPhone.set(chat.phone, [...(this.chatsByPhone.get(chat.phone) ?? []), chat]);
	}

	private indexMessage(message: MessageRecord): void {
		this.messageByUid.set(message.uid, message);
		const list = this.messagesByChat.get(message.chatId);
		if (list) list.push(message);
		else this.messagesByChat.set(message.chatId, [message]);
	}

	/** Changes what a chat sorts by, keeping the list order: out of the order, change, back in at its new place. */
	private reorder(chat: ChatRecord, change: () => void): void {
		const at = lowerBound(this.order, chat);
		if (this.order[at] !== chat) throw new Error(`sandbox invariant: chat ${chat.id} is missing from the list order`);
		this.order.splice(at, 1);
		change();
		this.order.splice(lowerBound(this.order, chat), 0, chat);
	}

	addChat(chat: ChatRecord): void {
		this.data.chats.push(chat);
		this.index(chat);
		this.order.splice(lowerBound(this.order, chat), 0, chat);
	}

	addMessage(message: MessageRecord): void {
		this.data.messages.push(message);
		this.indexMessage(message);
		const chat = this.chatById.get(message.chatId);
		if (chat && (chat.lastMessageAt === null || message.createdAt >= chat.lastMessageAt)) {
			this.reorder(chat, () => {
				chat.lastMessageAt = message.createdAt;
				chat.lastMessageUid = message.uid;
			});
		}
	}

	/** Renames a chat (uniqueness is the caller's check). */
	renameChat(chat: ChatRecord, name: string): void {
		const old = chat.name.toLowerCase();
		if (this.chatByName.get(old) === chat) this.chatByName.delete(old);
		this.reorder(chat, () => {
			chat.name = name;
		});
		this.chatByName.set(name.toLowerCase(), chat);
	}

	/** Every chat in list order (latest message first, then name). Callers must not change the array. */
	chatsInOrder(): readonly ChatRecord[] {
		return this.order;
	}

	/** The chat's messages in the order they were stored. */
	messagesOf(chatId: number): readonly MessageRecord[] {
		return this.messagesByChat.get(chatId) ?? [];
	}

	findChatByName(name: string): ChatRecord | undefined {
		return this.chatByName.get(name.trim().toLowerCase());
	}

	/** The first (oldest) chat with this JID. */
	findChatByJid(jid: string): ChatRecord | undefined {
		return this.chatByJid.get(jid);
	}

	/** One-to-one chats with this phone (`+<digits>`), oldest first. */
	directChatsWithPhone(phone: string): readonly ChatRecord[] {
		return this.chatsByPhone.get(phone) ?? [];
	}

	/** Names are unique per workspace, compared case-insensitively. Returns `base`, or `base (2)`, `base (3)`... */
	uniqueName(base: string): string {
		let candidate = base;
		for (let n = 2; this.findChatByName(candidate); n += 1) candidate = `${base} (${n})`;
		return candidate;
	}

	registerLabels(labels: string[]): void {
		for (const label of labels) if (!this.data.labels.includes(label)) this.data.labels.push(label);
	}

	connectedAccounts() {
		return this.data.accounts.filter((a) => a.status === 'connected');
	}

	isAllowedToMessage(chat: ChatRecord): boolean {
		if (chat.jid.endsWith('@broadcast') || chat.jid.endsWith('@newsletter')) return false;
		return this.data.accounts.find((a) => a.id === chat.accountId)?.status === 'connected';
	}

	activeTeammateByEmail(email: string) {
		const wanted = email.trim().toLowerCase();
		return this.data.teammates.find((t) => t.status === 'active' && t.email.toLowerCase() === wanted);
	}

	/** The workspace owner (the teammate the API acts as); the first teammate if the owner email matches none. */
	get owner(): TeammateRecord {
		const owner = this.data.teammates.find((t) => t.email === this.data.ownerEmail) ?? this.data.teammates[0];
		if (!owner) throw new Error(`sandbox invariant: workspace ${this.data.number} has no teammates`);
		return owner;
	}

	/** The chat a stored message belongs to (messages are only stored into existing chats). */
	chatOf(message: MessageRecord): ChatRecord {
		const chat = this.chatById.get(message.chatId);
		if (!chat) throw new Error(`sandbox invariant: message ${message.uid} refers to unknown chat ${message.chatId}`);
		return chat;
	}

	/** The chat-app account a chat lives on (chats are only created on existing accounts). */
	accountOf(chat: ChatRecord): AccountRecord {
		const account = this.data.accounts.find((a) => a.id === chat.accountId);
		if (!account) throw new Error(`sandbox invariant: chat ${chat.id} refers to unknown account ${chat.accountId}`);
		return account;
	}
}

/** Lookup across workspaces so another workspace's resource answers 403 instead of 404. */
export class WorkspaceDirectory {
	readonly byToken = new Map<string, Workspace>();

	list(): Workspace[] {
		return [...this.byToken.values()];
	}

	chat(ws: Workspace, id: number): ChatRecord {
		const chat = ws.chatById.get(id);
		if (chat) return chat;
		if (this.list().some((other) => other !== ws && other.chatById.has(id))) throw ApiError.accessDenied();
		throw ApiError.notFound('Chat');
	}

	message(ws: Workspace, uid: string): MessageRecord {
		const message = ws.messageByUid.get(uid);
		if (message) return message;
		if (this.list().some((other) => other !== ws && other.messageByUid.has(uid))) throw ApiError.accessDenied();
		throw ApiError.notFound('Message');
	}

	owned<T>(ws: Workspace, pick: (w: Workspace) => T | undefined, what: string): T {
		const found = pick(ws);
		if (found !== undefined) return found;
		if (this.list().some((other) => other !== ws && pick(other) !== undefined)) throw ApiError.accessDenied();
		throw ApiError.notFound(what);
	}
}
