import { ApiError } from './errors';
import { hexId } from './random';
import type { AccountRecord, ChatRecord, MessageRecord, TeammateRecord, WorkspaceData } from './model';
import { ID_SPAN } from './model';

/** One workspace: its data plus lookup indexes. All mutation goes through here or through the records it hands out. */
export class Workspace {
	readonly chatById = new Map<number, ChatRecord>();
	readonly messageByUid = new Map<string, MessageRecord>();

	constructor(
		readonly data: WorkspaceData,
		private readonly seed: number,
	) {
		for (const chat of data.chats) this.chatById.set(chat.id, chat);
		for (const message of data.messages) this.messageByUid.set(message.uid, message);
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

	addChat(chat: ChatRecord): void {
		this.data.chats.push(chat);
		this.chatById.set(chat.id, chat);
	}

	addMessage(message: MessageRecord): void {
		this.data.messages.push(message);
		this.messageByUid.set(message.uid, message);
		const chat = this.chatById.get(message.chatId);
		if (chat && (chat.lastMessageAt === null || message.createdAt >= chat.lastMessageAt)) {
			chat.lastMessageAt = message.createdAt;
			chat.lastMessageUid = message.uid;
		}
	}

	messagesOf(chatId: number): MessageRecord[] {
		return this.data.messages.filter((m) => m.chatId === chatId);
	}

	findChatByName(name: string): ChatRecord | undefined {
		const wanted = name.trim().toLowerCase();
		return this.data.chats.find((c) => c.name.toLowerCase() === wanted);
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
