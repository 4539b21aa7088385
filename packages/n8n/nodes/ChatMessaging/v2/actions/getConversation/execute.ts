/**
 * Get Conversation, one item at a time: the composite's input from the item's parameters; one item out, the
 * conversation as the core returns it. The core checks every input before the first request.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { CONVERSATION_COMPOSITE, conversationInputs, type Executor } from '@chat-messaging/core';
import { jsonItems, type OutputItem } from '../../../shared/items';
import { locatorValue } from '../../fields';
import { OPTIONS_PARAMETER } from './description';

export async function executeGetConversation(context: IExecuteFunctions, executor: Executor, itemIndex: number): Promise<OutputItem[]> {
	const { chatId } = conversationInputs;
	const options = context.getNodeParameter(OPTIONS_PARAMETER, itemIndex, {}) as IDataObject;
	const input: Record<string, unknown> = { chat_id: locatorValue(chatId, context.getNodeParameter(chatId.name, itemIndex, '')) };
	for (const option of CONVERSATION_COMPOSITE.options) if (options[option.name] !== undefined) input[option.name] = options[option.name];
	return jsonItems([(await executor.run(CONVERSATION_COMPOSITE, input)) as IDataObject]);
}
