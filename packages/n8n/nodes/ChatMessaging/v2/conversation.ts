/**
 * Get Conversation in the action node: the chat (picked like every chat operation's) and the window's options,
 * translated into the core composite's input (packages/core/src/catalogue/conversation.ts); one item out, the
 * conversation as the core returns it.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { CONVERSATION_COMPOSITE, conversationInputs, findOperation } from '@chat-messaging/core';
import type { Executor, FieldDescriptor } from '@chat-messaging/core';
import { jsonItems, type OutputItem } from '../shared/items';
import { fieldParameter } from '../shared/parameters';
import { v2FieldParameter } from './properties';

const SHOW = { resource: [CONVERSATION_COMPOSITE.resource], operation: [CONVERSATION_COMPOSITE.operation] };
const OPTIONS_PARAMETER = 'conversationOptions';

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

/**
 * Runs Get Conversation for one item, its chat id read out of the picker (`readChat`: the node's locator rule);
 * the core checks every input before the first request.
 */
export async function getConversation(
	context: IExecuteFunctions,
	executor: Executor,
	itemIndex: number,
	readChat: (field: FieldDescriptor, raw: unknown) => unknown,
): Promise<OutputItem[]> {
	const { chatId } = conversationInputs;
	const options = context.getNodeParameter(OPTIONS_PARAMETER, itemIndex, {}) as IDataObject;
	const input: Record<string, unknown> = { chat_id: readChat(chatId, context.getNodeParameter(chatId.name, itemIndex, '')) };
	for (const option of CONVERSATION_COMPOSITE.options) if (options[option.name] !== undefined) input[option.name] = options[option.name];
	return jsonItems([(await executor.run(CONVERSATION_COMPOSITE, input)) as IDataObject]);
}
