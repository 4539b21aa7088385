/**
 * Get Conversation's one handler (catalogue/conversation.ts), and the conversation in the OpenAI chat-messages
 * shape. Reads the chat and, newest first, as many pages of its messages as the window needs: a window within
 * one page costs two requests (the chat and the page, asked at once), each further page one more. A chat that
 * cannot be read fails naming the chat, never as an empty conversation (an agent must not answer blind).
 */
import { findOperation } from '../../catalogue/endpoints';
import {
	CONVERSATION_COMPOSITE,
	conversationInputs,
	DEFAULT_CONVERSATION_MESSAGES,
	MAX_CONVERSATION_MESSAGES,
	type ChatModelMessage,
	type Conversation,
	type ConversationMember,
	type ConversationMessage,
	type ConversationRole,
} from '../../catalogue/conversation';
import type { FieldDescriptor } from '../../catalogue/types';
import { ChatMessagingError, inputError, isNotFound } from '../errors';
import { API_ORIGIN } from '../events/eventFilter';
import type { Executor } from '../executor';
import { registerComposite } from '../operations/registry';
import { parseRecordTime } from '../events/delivery';
import { isBlank, isRecord } from '../validation';

/** Get Conversation's input, read and checked before the first request. */
interface ConversationPlan {
	chat_id: number | string;
	/** The most messages the window holds. */
	count: number;
	/** Epoch ms: only messages from then on; undefined for any time. */
	since?: number;
	/** Messages left out by uid. */
	exclude: ReadonlySet<string>;
	/** This message and every later one are left out. */
	excludeFrom?: string;
}

function wholeNumber(option: FieldDescriptor, value: unknown, fallback: number): number {
	const amount = isBlank(value) ? fallback : Number(value);
	const max = option.max ?? Number.MAX_SAFE_INTEGER;
	if (!Number.isInteger(amount) || amount < (option.min ?? 0) || amount > max)
		throw inputError(option.name, `must be a whole number from ${option.min ?? 0} to ${max}, got ${String(value)}`, option.displayName);
	return amount;
}

function uidList(option: FieldDescriptor, value: unknown): string[] {
	if (isBlank(value)) return [];
	const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : undefined;
	if (!items || items.some((item) => typeof item !== 'string'))
		throw inputError(option.name, 'must be message uids: a list, or one comma-separated text', option.displayName);
	return (items as string[]).map((item) => item.trim()).filter(Boolean);
}

/**
 * The window of Get Conversation checked: the most messages (0 for no count limit) and the minutes (0 for any
 * time), or an input error naming the option. Platforms that keep the window as a setting check it with this.
 */
export function conversationWindow(input: { lastMessages?: unknown; lastMinutes?: unknown }): { count: number; minutes: number } {
	const { lastMessages, lastMinutes } = conversationInputs;
	const count = wholeNumber(lastMessages, input.lastMessages, DEFAULT_CONVERSATION_MESSAGES);
	const minutes = wholeNumber(lastMinutes, input.lastMinutes, 0);
	if (count === 0 && minutes === 0)
		throw inputError(
			lastMessages.name,
			`0 (no count limit) needs ${lastMinutes.displayName} above 0: a window needs a count or a time`,
			lastMessages.displayName,
		);
	return { count, minutes };
}

/** Every input of Get Conversation checked (the chat id as chat:get checks it); `now` places the time window. */
function planConversation(executor: Executor, input: Record<string, unknown>, now: number): ConversationPlan {
	const { excludeMessageUids, excludeFromMessageUid } = conversationInputs;
	executor.prepare(findOperation('chat:get'), { chat_id: input.chat_id });
	const { count, minutes } = conversationWindow(input);
	const from = input.excludeFromMessageUid;
	if (!isBlank(from) && typeof from !== 'string')
		throw inputError(excludeFromMessageUid.name, 'must be a message uid', excludeFromMessageUid.displayName);
	return {
		chat_id: input.chat_id as number | string,
		count: count || MAX_CONVERSATION_MESSAGES,
		since: minutes ? now - minutes * 60_000 : undefined,
		exclude: new Set(uidList(excludeMessageUids, input.excludeMessageUids)),
		excludeFrom: typeof from === 'string' && from.trim() ? from.trim() : undefined,
	};
}

/** Whether the service says the message was sent through the API (`origin` "Public API", however spelt). */
function sentThroughApi(origin: unknown): boolean {
	const spelt = (text: string) => text.toLowerCase().replace(/[^a-z]/g, '');
	return typeof origin === 'string' && [spelt(API_ORIGIN), 'api'].includes(spelt(origin));
}

/**
 * The role of a message record: inbound is the customer's; outbound through the API is this workspace's;
 * any other outbound (the web app, a phone) is a teammate's. An outbound message without an origin counts as
 * a teammate's: when unsure, a person wrote it.
 */
export function conversationRole(record: Record<string, unknown>): ConversationRole {
	const fromMe = record.from_me === true || record.from_me === 'true';
	if (!fromMe) return 'customer';
	return sentThroughApi(record.origin) ? 'workspace' : 'teammate';
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? value : null);

/** A message record as a message of the conversation: its attachment described, never its link. */
export function conversationMessageOf(record: Record<string, unknown>): ConversationMessage {
	const at = parseRecordTime(record.timestamp);
	const hasFile = record.has_attachment === true || !isBlank(record.attachment_filename) || !isBlank(record.attachment_url);
	return {
		message_uid: String(record.uid ?? record.message_uid ?? ''),
		role: conversationRole(record),
		sender_name: text(record.sender_name),
		sender_phone: text(record.sender_phone),
		text: typeof record.text === 'string' ? record.text : '',
		attachment: hasFile ? { filename: text(record.attachment_filename), type: text(record.message_type) } : null,
		timestamp: at === null ? null : new Date(at).toISOString(),
	};
}

function membersOf(chat: Record<string, unknown>): ConversationMember[] {
	if (!Array.isArray(chat.group_members)) return [];
	return chat.group_members.filter(isRecord).map((member) => ({ name: text(member.name), phone: text(member.phone) }));
}

/** A failure to read the chat, naming it (the service's reason kept, the token never in it). */
function unreadable(chatId: number | string, error: unknown): unknown {
	if (!(error instanceof ChatMessagingError) || (error.kind === 'input' && error.field !== 'chat_id')) return error;
	return error.with(`Cannot read the conversation of chat ${String(chatId)}: ${error.message}`, { field: 'chat_id' });
}

/**
 * Get Conversation: the chat, and its messages newest first until the window is full (the count reached, a
 * message older than the time window, or the list's end), returned oldest first.
 */
export async function runGetConversation(executor: Executor, input: Record<string, unknown>): Promise<Conversation> {
	const plan = planConversation(executor, input, executor.timing.now());
	const query: Record<string, unknown> = { chat_id: plan.chat_id };
	// The service filters by time too; a second earlier, as its rounding may cut the boundary's own second.
	if (plan.since !== undefined) query.after = new Date(Math.floor(plan.since / 1000) * 1000 - 1000).toISOString();
	try {
		const [chat, first] = await Promise.all([
			executor.run('chat:get', { chat_id: plan.chat_id }),
			executor.listPage('message:getAll', query, 1),
		]);
		const newestFirst: ConversationMessage[] = [];
		let beforeFrom = plan.excludeFrom !== undefined;
		let page = first;
		for (let number = 1; ;) {
			let full = false;
			for (const record of page.items) {
				const at = parseRecordTime(record.timestamp);
				if (plan.since !== undefined && at !== null && at < plan.since) {
					full = true; // newest first: every later record is older still
					break;
				}
				const uid = String(record.uid ?? '');
				if (beforeFrom) {
					beforeFrom = uid !== plan.excludeFrom;
					continue;
				}
				// A failed send never reached the customer; a record without a time cannot be placed in a time window.
				if (plan.exclude.has(uid) || record.status === 'failed' || (plan.since !== undefined && at === null)) continue;
				newestFirst.push(conversationMessageOf(record));
				if (newestFirst.length >= plan.count) {
					full = true;
					break;
				}
			}
			if (full || !page.more) break;
			page = await executor.listPage('message:getAll', query, ++number);
		}
		if (beforeFrom) await confirmExcludeFrom(executor, plan);
		const record = isRecord(chat) ? chat : {};
		return {
			// The chat's own id (a number), however it was asked for (a resource URI gives text).
			chat_id: typeof record.id === 'number' || typeof record.id === 'string' ? record.id : plan.chat_id,
			chat_name: text(record.name),
			is_group: record.is_group === true,
			members: record.is_group === true ? membersOf(record) : [],
			messages: newestFirst.reverse(),
		};
	} catch (error) {
		throw unreadable(plan.chat_id, error);
	}
}

/**
 * Exclude From was not met in the window: right when that message is older than the window (all of the window
 * comes after it, so nothing is left), an input error otherwise (not a message of this chat).
 */
async function confirmExcludeFrom(executor: Executor, plan: ConversationPlan): Promise<void> {
	const option = conversationInputs.excludeFromMessageUid;
	let message: unknown;
	try {
		message = await executor.run('message:get', { message_uid: plan.excludeFrom });
	} catch (error) {
		if (!isNotFound(error)) throw error;
	}
	const ofChat = isRecord(message) && String(message.chat_id) === String(plan.chat_id);
	const at = isRecord(message) ? parseRecordTime(message.timestamp) : null;
	if (ofChat && (plan.since === undefined || at === null || at < plan.since)) return;
	throw inputError(option.name, `"${plan.excludeFrom}" is not a message of chat ${String(plan.chat_id)}`, option.displayName);
}

/** How a message reads to a model: a group member or a teammate named, an attachment described. */
function modelContent(message: ConversationMessage, group: boolean): string {
	const file = message.attachment
		? `[attachment: ${message.attachment.filename ?? 'a file'}${message.attachment.type ? ` (${message.attachment.type})` : ''}]`
		: '';
	const body = [message.text, file].filter(Boolean).join('\n');
	const who = message.sender_name ?? message.sender_phone;
	if (message.role === 'teammate') return `${who ?? 'A teammate'} (teammate): ${body}`;
	if (message.role === 'customer' && group) return `${who ?? 'A member'}: ${body}`;
	return body;
}

/**
 * The conversation in the OpenAI chat-messages shape (what n8n's and Node-RED's OpenAI nodes take): the
 * customer's messages as `user`, this workspace's and its teammates' as `assistant`, oldest first.
 */
export function conversationChatMessages(conversation: Pick<Conversation, 'is_group' | 'messages'>): ChatModelMessage[] {
	return conversation.messages.map((message) => ({
		role: message.role === 'customer' ? 'user' : 'assistant',
		content: modelContent(message, conversation.is_group),
	}));
}

/**
 * The messages an event's turn answers, which its conversation leaves out (they are the turn's prompt): a burst's
 * every uid (`message_uids`, runtime/events/bursts.ts), or the event's own message.
 */
function turnMessageUids(event: { message_uid?: unknown; message_uids?: unknown }): string[] {
	if (Array.isArray(event.message_uids)) return event.message_uids.filter((uid): uid is string => typeof uid === 'string' && uid !== '');
	return typeof event.message_uid === 'string' && event.message_uid ? [event.message_uid] : [];
}

/** Get Conversation's input for the turn an event starts: its chat, the window, the turn's own messages left out. */
export function conversationInputFor(
	event: { chat_id?: unknown; message_uid?: unknown; message_uids?: unknown },
	window: { lastMessages?: unknown; lastMinutes?: unknown } = {},
): Record<string, unknown> {
	return { chat_id: event.chat_id, ...window, excludeMessageUids: turnMessageUids(event) };
}

/** Registers Get Conversation's handler on its descriptor, for Executor.run (registerCompositeHandlers calls it). */
export function registerConversationHandler(): void {
	registerComposite<Executor>(CONVERSATION_COMPOSITE, async (executor, input) => ({ ...(await runGetConversation(executor, input)) }));
}
