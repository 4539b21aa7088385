/**
 * Get Conversation's parameters: the chat (picked like every chat operation's) and the window's options, the core
 * composite's (packages/core/src/catalogue/conversation.ts).
 */
import type { INodeProperties } from 'n8n-workflow';

import { CONVERSATION_COMPOSITE, conversationInputs, findOperation } from '@chat-messaging/core';
import { fieldParameter } from '../../../shared/parameters';
import { v2FieldParameter } from '../../fields';

const SHOW = { resource: [CONVERSATION_COMPOSITE.resource], operation: [CONVERSATION_COMPOSITE.operation] };
export const OPTIONS_PARAMETER = 'conversationOptions';

export const isConversation = (resource: string, operation: string): boolean =>
	resource === CONVERSATION_COMPOSITE.resource && operation === CONVERSATION_COMPOSITE.operation;

/** The chat, then one Options collection with the window (last messages, last minutes) and what to leave out. */
export function conversationProperties(): INodeProperties[] {
	return [
		{ ...v2FieldParameter(conversationInputs.chatId, true, findOperation('chat:get')), displayOptions: { show: SHOW } },
		{
			displayName: 'Options',
			name: OPTIONS_PARAMETER,
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			displayOptions: { show: SHOW },
			options: CONVERSATION_COMPOSITE.options
				.map((option) => fieldParameter(option, false))
				.sort((a, b) => a.displayName.localeCompare(b.displayName)),
		},
	];
}
