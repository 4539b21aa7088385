/** The adapter's reads: a chat's history a page at a time, one message by its uid, the chat itself. */
import {
	MAX_CONVERSATION_MESSAGES,
	conversationMessageOf,
	inputError,
	type Conversation,
	type ConversationMessage,
	type Executor,
} from '@chat-messaging/core';
import type { FetchOptions, FetchResult, Message, ThreadInfo } from 'chat';

import { checkMessageId, conversationMessage, decodeThreadId } from './messages';

/** The default page of a history read. */
const DEFAULT_FETCH_LIMIT = 50;

/** The conversation as the core reads it (its window bounds one read to the latest 500 messages). */
function readConversation(executor: Executor, chatId: number, lastMessages: number): Promise<Conversation> {
	return executor.run('message:getConversation', {
		chat_id: chatId,
		lastMessages: Math.min(lastMessages, MAX_CONVERSATION_MESSAGES),
	}) as Promise<Conversation>;
}

/**
 * A page of the chat's conversation, oldest first. Backward (the default): the latest `limit`, the cursor leading
 * to older ones; forward: from the oldest of the latest 500 on.
 */
export async function fetchMessagesPage(
	executor: Executor,
	threadId: string,
	options: FetchOptions,
	userName: string,
): Promise<FetchResult<unknown>> {
	const { chatId } = decodeThreadId(threadId);
	const limit = options.limit ?? DEFAULT_FETCH_LIMIT;
	if (!Number.isInteger(limit) || limit < 1) throw inputError('limit', `must be a whole number of at least 1, got ${limit}`);
	const start = options.cursor === undefined ? 0 : Number(options.cursor);
	if (!Number.isInteger(start) || start < 0)
		throw inputError('cursor', `is not one this adapter gave, got ${JSON.stringify(options.cursor)}`);
	const toMessage = (entry: ConversationMessage) => conversationMessage(entry, threadId, userName);
	if (options.direction === 'forward') {
		const { messages } = await readConversation(executor, chatId, MAX_CONVERSATION_MESSAGES);
		const page = messages.slice(start, start + limit);
		return { messages: page.map(toMessage), nextCursor: start + limit < messages.length ? String(start + limit) : undefined };
	}
	// One more than the page, to know whether older messages follow.
	const { messages } = await readConversation(executor, chatId, start + limit + 1);
	const end = Math.max(0, messages.length - start);
	const page = messages.slice(Math.max(0, end - limit), end);
	const more = messages.length > start + limit && start + limit < MAX_CONVERSATION_MESSAGES;
	return { messages: page.map(toMessage), nextCursor: more ? String(start + limit) : undefined };
}

/** One message of the chat by its uid, as the conversation shows it; null when it belongs to another chat. */
export async function fetchOneMessage(executor: Executor, threadId: string, messageId: string, userName: string): Promise<Message | null> {
	const { chatId } = decodeThreadId(threadId);
	const record = (await executor.run('message:get', { message_uid: checkMessageId(messageId) })) as Record<string, unknown>;
	if (record.chat_id !== undefined && String(record.chat_id) !== String(chatId)) return null;
	return conversationMessage(conversationMessageOf(record), threadId, userName);
}

/** The chat: its name, whether it is a group, and a group's members by name. */
export async function readThread(executor: Executor, threadId: string): Promise<ThreadInfo> {
	const { chatId } = decodeThreadId(threadId);
	const conversation = await readConversation(executor, chatId, 1);
	return {
		id: threadId,
		channelId: threadId,
		channelName: conversation.chat_name ?? undefined,
		isDM: !conversation.is_group,
		metadata: { chatId: conversation.chat_id, isGroup: conversation.is_group, members: conversation.members },
	};
}
