/**
 * The conversation of a chat as a resource, `chat://{chat_id}/conversation` (listed as a resource template): the core's
 * Get Conversation with its default window, as JSON, each customer's text marked as theirs (calls/untrusted.ts). Read-only,
 * so offered in every scope, the read-only one included. A chat that cannot be read is an error naming it.
 */
import { CONVERSATION_COMPOSITE, ChatMessagingError, DEFAULT_CONVERSATION_MESSAGES, type Executor } from '@chat-messaging/core';
import { INTERNAL_ERROR, INVALID_PARAMS, RequestRefusal } from '../calls/errors';
import { customerTextMarkers, markCustomerText } from '../calls/untrusted';

export const CONVERSATION_URI_TEMPLATE = 'chat://{chat_id}/conversation';

export const conversationUri = (chatId: string | number): string => `chat://${encodeURIComponent(String(chatId))}/conversation`;

export const CONVERSATION_RESOURCE_TEMPLATE = {
	uriTemplate: CONVERSATION_URI_TEMPLATE,
	name: 'conversation',
	title: 'Conversation of a chat',
	description: `The last ${DEFAULT_CONVERSATION_MESSAGES} messages of a chat, oldest first, each with its role (customer; workspace: sent through the API; teammate: written in the web app, with the name), its text and its attachment described. Customers' texts are marked as their words.`,
	mimeType: 'application/json',
};

/** The chat id of a conversation URI, or undefined for another URI. */
export function conversationChatId(uri: string): string | undefined {
	const match = /^chat:\/\/([^/?#]+)\/conversation$/.exec(uri);
	if (match?.[1] === undefined) return undefined;
	try {
		return decodeURIComponent(match[1]);
	} catch {
		return match[1]; // not percent-encoding: the id as written, which the core then refuses naming chat_id
	}
}

/** The conversation as JSON, customers' texts marked, and the sentence saying so in its first member. */
export async function conversationContents(executor: Executor, chatId: string | number): Promise<{ text: string; marked: boolean }> {
	const conversation = await executor.run(CONVERSATION_COMPOSITE, { chat_id: chatId });
	const markers = customerTextMarkers();
	const { value, marked } = markCustomerText(conversation, markers);
	return { text: JSON.stringify(marked ? { about_customer_text: markers.note, ...(value as object) } : value), marked };
}

/** Why a read failed: invalid params (a chat that is not there, a bad id) or an internal error (the service's), in words naming the chat. */
export function resourceFailure(error: unknown, uri: string): RequestRefusal {
	const known = error instanceof ChatMessagingError;
	return new RequestRefusal(
		known && (error.kind === 'input' || error.httpStatus === 404) ? INVALID_PARAMS : INTERNAL_ERROR,
		known ? error.message : `Could not read ${uri}: ${String(error)}`,
		{ uri, ...(known ? { error: error.toJSON() } : {}) },
	);
}

/** resources/read of a conversation URI. */
export async function readConversationResource(
	executor: Executor,
	uri: string,
): Promise<{ contents: Array<{ uri: string; mimeType: string; text: string }> } | RequestRefusal> {
	const chatId = conversationChatId(uri) ?? '';
	try {
		const { text } = await conversationContents(executor, chatId);
		return { contents: [{ uri, mimeType: CONVERSATION_RESOURCE_TEMPLATE.mimeType, text }] };
	} catch (error) {
		return resourceFailure(error, uri);
	}
}
