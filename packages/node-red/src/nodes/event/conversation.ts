/**
 * Add Conversation (off by default): each event of a chat goes out with the chat's recent conversation, read
 * from the service by the core's Get Conversation (packages/core/src/catalogue/conversation.ts), the messages the
 * event stands for (one, or a burst's) left out: they are the turn's prompt. `msg.conversation` is the core's model
 * (roles customer / workspace / teammate); `msg.chatMessages` the same in the OpenAI chat-messages shape
 * `[{role, content}]` that Node-RED's OpenAI nodes take, oldest first. A conversation that cannot be read fails the
 * message naming the chat (a Catch node gets it), never an empty history that lets an agent answer blind.
 */
import {
	CONVERSATION_COMPOSITE,
	conversationChatMessages,
	conversationInputFor,
	conversationInputs,
	conversationWindow,
	type ChatEvent,
	type ChatMessagingError,
	type Conversation,
	type Executor,
} from '@chat-messaging/core';
import type { NodeMessage } from 'node-red';

/** The node properties of the option, with what a new node starts with; a node saved before them gets these (migrations.ts). */
export const CONVERSATION_OPTIONS = [
	{
		name: 'addConversation',
		displayName: 'Add Conversation',
		type: 'boolean',
		default: false,
		description: "Add the chat's recent conversation to each message: msg.conversation, and msg.chatMessages for an OpenAI node",
	},
	{
		name: 'conversationLastMessages',
		displayName: conversationInputs.lastMessages.displayName,
		type: 'number',
		default: Number(conversationInputs.lastMessages.default),
		minValue: conversationInputs.lastMessages.min ?? 0,
		description: conversationInputs.lastMessages.description,
	},
	{
		name: 'conversationLastMinutes',
		displayName: conversationInputs.lastMinutes.displayName,
		type: 'number',
		default: Number(conversationInputs.lastMinutes.default),
		minValue: conversationInputs.lastMinutes.min ?? 0,
		description: conversationInputs.lastMinutes.description,
	},
] as const;

export interface ConversationSetting {
	on: boolean;
	/** The window, as Get Conversation takes it. */
	window: { lastMessages: unknown; lastMinutes: unknown };
}

export const CONVERSATION_OFF: ConversationSetting = { on: false, window: { lastMessages: undefined, lastMinutes: undefined } };

/** The saved option; with it on, the window is checked now (the core's rule), naming the node property. */
export function readConversationSetting(definition: Record<string, unknown>): ConversationSetting {
	const on = definition.addConversation === true || definition.addConversation === 'true';
	if (!on) return CONVERSATION_OFF;
	// Node-RED keeps numbers typed in a dialog as text.
	const number = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value);
	const window = { lastMessages: number(definition.conversationLastMessages), lastMinutes: number(definition.conversationLastMinutes) };
	try {
		conversationWindow(window);
	} catch (error) {
		// The core's rule, named by the node's property.
		const problem = error as ChatMessagingError;
		const field = problem.field === conversationInputs.lastMinutes.name ? 'conversationLastMinutes' : 'conversationLastMessages';
		throw problem.with(problem.message, { field });
	}
	return { on, window };
}

/**
 * Adds the conversation to the message of an event of a chat; false when it could not be read, after reporting it
 * (`fail` hands the message to Catch nodes). Events without a chat (a webhook's status) go out as they are.
 */
export async function withConversation(
	executor: Executor | undefined,
	event: ChatEvent,
	msg: NodeMessage,
	setting: ConversationSetting,
	fail: (text: string, msg: NodeMessage) => void,
): Promise<boolean> {
	if (!setting.on || event.chat_id === null || !executor) return true;
	try {
		const conversation = (await executor.run(CONVERSATION_COMPOSITE, conversationInputFor(event, setting.window))) as Conversation;
		msg.conversation = conversation;
		msg.chatMessages = conversationChatMessages(conversation);
		return true;
	} catch (error) {
		const text = (error as Error).message;
		msg.conversationError = text;
		fail(text, msg);
		return false;
	}
}
