/** The adapter's sends: a message (a reply quoting one) into a chat, and a stream gathered into one message. */
import type { Executor } from '@chat-messaging/core';
import type { AdapterPostableMessage, RawMessage, StreamChunk } from 'chat';

import { checkMessageId, decodeThreadId, toSend } from './messages';

/** The message sent into the thread's chat, quoting `replyTo` when given. */
export async function sendToThread(
	executor: Executor,
	threadId: string,
	message: AdapterPostableMessage,
	replyTo?: string,
): Promise<RawMessage<unknown>> {
	const { chatId } = decodeThreadId(threadId);
	const { text, attachment } = toSend(message);
	const input: Record<string, unknown> = { chat_id: chatId };
	if (text) input.text = text;
	if (replyTo) input.reply_to = checkMessageId(replyTo);
	const sent = await executor.sendMessage('message:sendToChat', input, attachment);
	return { id: String(sent.message_uid), threadId, raw: sent };
}

/** A stream's text, gathered: the service cannot edit a sent message, so it goes as one when the stream ends. */
export async function gathered(textStream: AsyncIterable<string | StreamChunk>): Promise<string> {
	let text = '';
	for await (const chunk of textStream) {
		if (typeof chunk === 'string') text += chunk;
		else if (chunk.type === 'markdown_text') text += chunk.text;
	}
	return text;
}
