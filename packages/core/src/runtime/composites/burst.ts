/**
 * The burst a turn answers: customers write in bursts ("hi" / "my order" / "#1234"), and a responder started
 * once per message (a webhook trigger) should answer once per burst. Each run started by a customer's message
 * waits until the customer has been quiet, then asks this function, with one read of the chat:
 *
 * - a newer message of the customer has arrived since the one the run started from: this run does not answer
 *   (the run of that newer message will);
 * - otherwise the run answers the burst: the customer's messages since the last message sent to the chat,
 *   oldest first.
 *
 * The state is the service's (the chat's messages), so runs on different processes or machines agree, and a
 * run resumed after a restart decides as it would have before.
 */
import type { ConversationMessage } from '../../catalogue/conversation';
import { ChatMessagingError, inputError } from '../errors';
import type { Executor } from '../executor';
import { isBlank } from '../validation';
import { conversationMessageOf, conversationRole } from './conversation';

/** What the run started by `message_uid` does. */
export interface BurstTurn {
	chat_id: number | string;
	/** The message the run started from. */
	message_uid: string;
	/** False when a newer message of the customer arrived: a later run answers, this one stops. */
	answers: boolean;
	/** The burst, oldest first, as the conversation's messages (empty when the run does not answer). */
	messages: ConversationMessage[];
	/** The burst's texts, one per line: what the agent is asked. */
	text: string;
}

const isCustomers = (message: Record<string, unknown>): boolean => conversationRole(message) === 'customer';

/** A message sent into the chat (the workspace's or a teammate's) ends a burst; one that failed never reached the customer. */
const endsBurst = (message: Record<string, unknown>): boolean => !isCustomers(message) && message.status !== 'failed';

/** How a message of the burst reads in the prompt: its text, a file described (never its bytes). */
const promptLine = (message: ConversationMessage): string =>
	[message.text, message.attachment ? `[attachment: ${message.attachment.filename ?? 'a file'}]` : ''].filter(Boolean).join(' ');

/**
 * The burst the run started by the customer's message `message_uid` in chat `chat_id` answers, or that it
 * answers none. One request: the first page of the chat's messages (newest first, 50 of them): a burst
 * longer than a page is answered from its newest 50 messages.
 */
export async function burstToAnswer(executor: Executor, input: { chat_id: unknown; message_uid: unknown }): Promise<BurstTurn> {
	if (isBlank(input.chat_id)) throw inputError('Chat ID', 'is required: the chat of the message that started this run');
	if (isBlank(input.message_uid)) throw inputError('Message UID', 'is required: the message that started this run');
	const chatId = input.chat_id as number | string;
	const messageUid = String(input.message_uid).trim();
	const { items, more } = await executor.listPage('message:getAll', { chat_id: chatId }, 1);
	const at = items.findIndex((message) => String(message.uid ?? message.message_uid ?? '') === messageUid);
	const stop = (): BurstTurn => ({ chat_id: chatId, message_uid: messageUid, answers: false, messages: [], text: '' });
	if (at < 0) {
		// Past the first page: newer messages have come since (a later run answers); on a page that holds the
		// whole chat, the message is not the chat's at all.
		if (more) return stop();
		throw new ChatMessagingError(`Message ${messageUid} is not in chat ${chatId}: the burst it started cannot be read`, {
			kind: 'input',
		});
	}
	if (items.slice(0, at).some(isCustomers)) return stop();
	const burst: ConversationMessage[] = [];
	for (const message of items.slice(at)) {
		if (endsBurst(message)) break;
		if (isCustomers(message)) burst.unshift(conversationMessageOf(message));
	}
	return {
		chat_id: chatId,
		message_uid: messageUid,
		answers: true,
		messages: burst,
		text: burst.map(promptLine).filter(Boolean).join('\n'),
	};
}
