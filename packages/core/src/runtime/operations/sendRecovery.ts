/**
 * A send whose answer was lost: look for the message it may have stored, report it when found, send
 * once more only when it is proven absent. A message is never sent twice.
 */
import type { OperationDescriptor } from '../../catalogue/types';
import { ChatMessagingError } from '../errors';
import { isBlank, isRecord } from '../validation';
import type { OperationRunner } from './runner';

export interface SendRecoveryOptions {
	/** After a send in doubt, how long to let the service finish before looking for the message. */
	settleMs: number;
	/** Off only to measure what recovery costs. */
	enabled: boolean;
}

export class SendRecovery {
	/** uids of messages this executor sent, so an older identical message is never taken for a lost one. */
	private readonly sentUids = new Set<string>();

	constructor(
		private readonly runner: OperationRunner,
		private readonly options: SendRecoveryOptions,
	) {}

	/**
	 * Sends once. When the answer is lost in a way that may hide a stored message (5xx, reset, time-out
	 * after the request was written), the chat's recent messages tell: found, it is reported sent with its
	 * uid (`recovered: true`); proven absent, it is sent once more, which is safe. Only when the service
	 * cannot tell (no way to find the chat, or several identical candidates) does "may have taken effect"
	 * remain.
	 */
	async send(op: OperationDescriptor, input: Record<string, unknown>): Promise<Record<string, unknown>> {
		const timing = this.runner.timing;
		for (let attempt = 1; ; attempt++) {
			const startedAt = timing.now();
			try {
				return this.rememberSent((await this.runner.call(op, input)) as Record<string, unknown>);
			} catch (error) {
				if (!(error instanceof ChatMessagingError) || !error.mayHaveTakenEffect || !this.options.enabled) throw error;
				// Let a request still in progress on the service finish before looking for its message.
				await timing.sleep(this.options.settleMs);
				const found = await this.findSentMessage(op, input, startedAt).catch(() => undefined);
				if (found === undefined) throw error;
				if (found.message) {
					const message = found.message;
					return this.rememberSent({
						message_uid: message.uid,
						chat_id: message.chat_id ?? found.chatId,
						status: message.status,
						recovered: true,
					});
				}
				if (attempt >= 2) throw error; // absent twice: report, do not loop
			}
		}
	}

	private rememberSent(sent: Record<string, unknown>): Record<string, unknown> {
		if (typeof sent.message_uid === 'string') {
			this.sentUids.add(sent.message_uid);
			if (this.sentUids.size > 1000) this.sentUids.delete(this.sentUids.values().next().value as string);
		}
		return sent;
	}

	/**
	 * Looks for the message a send in doubt may have stored: in the chat it went to (by chat id, exact
	 * `+phone`, exact name, or the phone of a contact JID), among the workspace's own messages since a
	 * minute before the send, the one with the same text and attachment this executor has not sent
	 * before. Undefined when the service cannot tell (a group JID: the chat list has no JID filter;
	 * several chats or candidates).
	 */
	private async findSentMessage(
		op: OperationDescriptor,
		input: Record<string, unknown>,
		startedAt: number,
	): Promise<{ chatId?: unknown; message?: Record<string, unknown> } | undefined> {
		const chats = await this.chatsOfSend(op, input);
		if (chats === undefined || chats.length > 1) return undefined;
		if (chats.length === 0) return {}; // no chat: a send would have created one, so nothing was stored
		const chatId = chats[0];
		const after = new Date(startedAt - 60_000).toISOString();
		const recent = (await this.runner.run(
			'message:getAll',
			{ chat_id: chatId, from_me: true, after },
			{ returnAll: false, limit: 100 },
		)) as unknown[];
		const text = typeof input.text === 'string' ? input.text : '';
		const withFile = !isBlank(input.file_uid);
		const candidates = recent.filter(
			(item): item is Record<string, unknown> =>
				isRecord(item) &&
				typeof item.uid === 'string' &&
				!this.sentUids.has(item.uid) &&
				item.from_me !== false &&
				String(item.text ?? '') === text &&
				(!withFile || item.has_attachment === true),
		);
		if (candidates.length > 1) return undefined;
		return { chatId, message: candidates[0] };
	}

	/** The chats a send addresses: ids, [] when none exists, undefined when the service cannot tell. */
	private async chatsOfSend(op: OperationDescriptor, input: Record<string, unknown>): Promise<unknown[] | undefined> {
		const list = async (filter: Record<string, unknown>) =>
			(await this.runner.run('chat:getAll', filter, { returnAll: false, limit: 50 })) as Array<Record<string, unknown>>;
		const account = typeof input.chatapp_account_id === 'string' && input.chatapp_account_id ? input.chatapp_account_id : undefined;
		const onAccount = (chats: Array<Record<string, unknown>>) =>
			account ? chats.filter((chat) => chat.chatapp_account_id === account) : chats;
		const byPhone = async (phone: string) =>
			onAccount((await list({ phone: `+${phone.replace(/^\+/, '')}` })).filter((chat) => chat.is_group !== true));
		if (!isBlank(input.chat_id) && op.fields.some((field) => field.name === 'chat_id')) return [Number(input.chat_id)];
		if (typeof input.phone === 'string' || typeof input.phone === 'number')
			return (await byPhone(String(input.phone).trim())).map((chat) => chat.id);
		if (typeof input.chat_name === 'string' && op.fields.some((field) => field.name === 'chat_name' && field.required)) {
			const name = input.chat_name.trim().toLowerCase();
			return (await list({ name: input.chat_name.trim() }))
				.filter((chat) => String(chat.name ?? '').toLowerCase() === name)
				.map((chat) => chat.id);
		}
		if (typeof input.jid === 'string') {
			const jid = input.jid.trim();
			const [id, server] = jid.split('@');
			if (server !== 'c.us' || !/^\d+$/.test(id ?? '')) return undefined; // a group or channel: no way to find it by JID
			return (await byPhone(id)).filter((chat) => chat.jid === jid).map((chat) => chat.id);
		}
		return undefined;
	}
}
