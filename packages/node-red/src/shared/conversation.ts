/**
 * Get Conversation, the catalogue's composite `message:getConversation` (packages/core/src/catalogue/conversation.ts),
 * in the shape the action node lists operations: its chat and window as fields, run through the core's handler.
 */
import { CONVERSATION_COMPOSITE, operationId } from '@chat-messaging/core';
import type { OperationDescriptor } from '@chat-messaging/core';

export const CONVERSATION_DESCRIPTOR: OperationDescriptor = {
	resource: CONVERSATION_COMPOSITE.resource,
	operation: CONVERSATION_COMPOSITE.operation,
	name: CONVERSATION_COMPOSITE.name,
	action: CONVERSATION_COMPOSITE.action,
	description: CONVERSATION_COMPOSITE.description,
	// What it reads: the chat, then the pages of its messages the window needs.
	method: 'GET',
	path: '/chats/{chat_id}/messages',
	effect: CONVERSATION_COMPOSITE.effect,
	fields: [...CONVERSATION_COMPOSITE.fields.map((entry) => entry.field), ...CONVERSATION_COMPOSITE.options],
};

/** The editor's descriptor of a composite offered as an operation of its own, by id. */
export const editorComposite = (id: string): OperationDescriptor | undefined =>
	id === operationId(CONVERSATION_DESCRIPTOR) ? CONVERSATION_DESCRIPTOR : undefined;
