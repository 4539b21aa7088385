import { ApiError, NO_CONNECTED_ACCOUNT, QUOTA_EXCEEDED } from './errors';
import type { AccountRecord, ChatRecord, MessageRecord, MessageStatus } from './model';
import type { SandboxServices } from './services';
import type { WebhookDispatcher } from './webhooks';
import type { Workspace } from './workspace';

export interface OutgoingContent {
	text?: string | undefined;
	fileUid?: string | undefined;
	replyTo?: string | undefined;
	label?: string | undefined;
}

const ORDER: Record<MessageStatus, number> = { queued: 0, sent: 1, delivered: 2, read: 3, failed: 9 };

/**
 * Outbound messages: credits, the per-workspace paced sending queue, and the status life cycle
 * queued → sent → delivered → read (or failed, which restores the credits).
 */
export class Messaging {
	/** Workspaces whose queue has a send scheduled (one timer per workspace at most). */
	private readonly pumping = new Set<Workspace>();
	private readonly nextSendAt = new Map<Workspace, number>();

	constructor(
		private readonly services: SandboxServices,
		private readonly events: WebhookDispatcher,
	) {}

	/** The account a phone send goes out from: the requested one, else the most recently connected one. */
	sendingAccount(ws: Workspace, requestedId?: string): AccountRecord {
		if (requestedId !== undefined) {
			const account = ws.data.accounts.find((a) => a.id === requestedId);
			if (!account) throw ApiError.field(['chatapp_account_id'], 'Unknown chatapp_account_id');
			if (account.status !== 'connected') throw ApiError.coded('not_supported', `Chat-app account ${account.id} is disconnected`);
			return account;
		}
		const [latest] = ws.connectedAccounts().sort((a, b) => b.connectedOn - a.connectedOn);
		if (!latest) throw ApiError.coded('not_supported', NO_CONNECTED_ACCOUNT);
		return latest;
	}

	/** Checks everything a send into `chat` needs, without side effects; returns the credit cost. */
	check(ws: Workspace, chat: ChatRecord | null, content: OutgoingContent): number {
		if (content.fileUid !== undefined && !ws.data.files.some((f) => f.uid === content.fileUid)) {
			throw ApiError.field(['file_uid'], 'Unknown file_uid');
		}
		if (chat) {
			if (!ws.isAllowedToMessage(chat)) {
				const why = chat.jid.endsWith('@broadcast')
					? 'it is a broadcast list'
					: chat.jid.endsWith('@newsletter')
						? 'it is a channel'
						: 'its chat-app account is disconnected';
				throw ApiError.coded('not_supported', `Sending to this chat is not allowed: ${why}`);
			}
			if (content.replyTo !== undefined) {
				const original = ws.messageByUid.get(content.replyTo);
				if (!original || original.chatId !== chat.id) throw ApiError.field(['reply_to'], 'reply_to must be a message of this chat');
			}
		}
		const cost = content.fileUid !== undefined ? 2 : 1;
		if (ws.data.quota.used + cost > ws.data.quota.total) throw ApiError.coded('quota_exceeded', QUOTA_EXCEEDED);
		return cost;
	}

	/** Queues a message into `chat` (already checked) and starts the queue. */
	enqueue(ws: Workspace, chat: ChatRecord, content: OutgoingContent, cost: number): MessageRecord {
		const now = Date.now();
		const account = ws.accountOf(chat);
		const file = content.fileUid ? ws.data.files.find((f) => f.uid === content.fileUid) : undefined;
		const message: MessageRecord = {
			uid: ws.nextUid('message'),
			chatId: chat.id,
			createdAt: now,
			fromMe: true,
			senderPhone: account.phone,
			senderName: ws.owner.displayName,
			recipientPhone: chat.phone,
			recipientName: chat.name,
			status: 'queued',
			history: [{ status: 'queued', at: now }],
			origin: 'Public API',
			messageType: file ? fileMessageType(file.mimetype) : 'text',
			text: content.text !== undefined && content.text.length > 0 ? content.text : null,
			fileUid: file?.uid ?? null,
			attachmentFilename: file?.filename ?? null,
			replyTo: content.replyTo ?? null,
			reactions: [],
			credits: cost,
		};
		ws.data.quota.used += cost;
		if (content.label !== undefined) {
			ws.registerLabels([content.label]);
			if (!chat.labels.includes(content.label)) chat.labels.push(content.label);
		}
		ws.addMessage(message);
		ws.data.queue.push(message.uid);
		this.pump(ws);
		return message;
	}

	/** Schedules the next send of the workspace queue, keeping the paced gap between two sends. */
	pump(ws: Workspace): void {
		if (this.pumping.has(ws) || ws.data.queue.length === 0) return;
		this.pumping.add(ws);
		const wait = Math.max(0, (this.nextSendAt.get(ws) ?? 0) - Date.now());
		this.services.scheduler.after(wait, () => {
			this.pumping.delete(ws);
			if (!this.services.isCurrent(ws)) return;
			const uid = ws.data.queue.shift();
			if (uid !== undefined) this.sendNow(ws, uid);
			this.nextSendAt.set(ws, Date.now() + this.jitteredPace());
			this.pump(ws);
		});
	}

	/** About `paceMs`, ±25 %, as the spec's "random delay of about 2 seconds". */
	private jitteredPace(): number {
		const pace = this.services.options.paceMs;
		return pace <= 0 ? 0 : Math.round(pace * (0.75 + this.services.rng.next() * 0.5));
	}

	private sendNow(ws: Workspace, uid: string): void {
		const message = ws.messageByUid.get(uid);
		if (!message || message.status !== 'queued') return;
		const chat = ws.chatById.get(message.chatId);
		if (!chat || !ws.isAllowedToMessage(chat)) {
			this.fail(ws, message);
			return;
		}
		this.advance(message, 'sent');
		// Answering the customer handles the chat: the not-attended flag clears.
		chat.unattended = false;
		this.events.emit(ws, 'message:sent:new', { kind: 'message', message });
		const { deliveredAfterMs, readAfterMs } = this.services.options;
		if (deliveredAfterMs > 0) this.services.scheduler.after(deliveredAfterMs, () => this.advanceIfCurrent(ws, uid, 'delivered'));
		if (readAfterMs > 0)
			this.services.scheduler.after(Math.max(readAfterMs, deliveredAfterMs), () => this.advanceIfCurrent(ws, uid, 'read'));
		this.services.changed();
	}

	private advanceIfCurrent(ws: Workspace, uid: string, status: MessageStatus): void {
		if (!this.services.isCurrent(ws)) return;
		const message = ws.messageByUid.get(uid);
		if (message) this.advance(message, status);
	}

	/** Moves a message forward only (a late timer never moves `read` back to `delivered`); read implies delivered. */
	advance(message: MessageRecord, status: MessageStatus): boolean {
		if (message.status === 'failed' || ORDER[status] <= ORDER[message.status]) return false;
		const now = Date.now();
		if (status === 'read' && ORDER[message.status] < ORDER.delivered) message.history.push({ status: 'delivered', at: now });
		message.status = status;
		message.history.push({ status, at: now });
		this.services.changed();
		return true;
	}

	/** A failed message gives its credits back. Only queued or sent messages can fail. */
	fail(ws: Workspace, message: MessageRecord): boolean {
		if (message.status !== 'queued' && message.status !== 'sent') return false;
		ws.data.queue = ws.data.queue.filter((uid) => uid !== message.uid);
		message.status = 'failed';
		message.history.push({ status: 'failed', at: Date.now() });
		ws.data.quota.used = Math.max(0, ws.data.quota.used - message.credits);
		message.credits = 0;
		this.services.changed();
		return true;
	}

	/** Control API: drive a status. delivered/read need the message to be sent first (it is sent now if queued). */
	drive(ws: Workspace, message: MessageRecord, status: 'delivered' | 'read' | 'failed'): void {
		if (status === 'failed') {
			if (!this.fail(ws, message)) throw ApiError.coded('not_supported', `A ${message.status} message cannot fail`);
			return;
		}
		if (!message.fromMe) throw ApiError.coded('not_supported', 'Only outbound messages have a delivery status to drive');
		if (message.status === 'failed') throw ApiError.coded('not_supported', 'A failed message cannot move on');
		if (message.status === 'queued') {
			ws.data.queue = ws.data.queue.filter((uid) => uid !== message.uid);
			this.sendNow(ws, message.uid);
		}
		this.advance(message, status);
	}

	forget(ws: Workspace): void {
		this.pumping.delete(ws);
		this.nextSendAt.delete(ws);
	}
}

export function fileMessageType(mimetype: string): string {
	if (mimetype.startsWith('image/')) return 'image';
	if (mimetype.startsWith('audio/')) return mimetype.includes('ogg') ? 'voice' : 'audio';
	if (mimetype.startsWith('video/')) return 'video';
	return 'document';
}
