/**
 * Version 2's one router, as n8n's Airtable v2 node routes: the wait operations send one message and
 * wait once per execution, each from its folder; every other operation runs item by item, Send from
 * send/, Get Conversation from getConversation/ and every operation of the catalogue generically from catalogue/. A request at the node's
 * waiting webhook goes to the wait operation the node runs.
 */
import type { IExecuteFunctions, INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { SEND_AND_WAIT_COMPOSITE, SEND_AND_WAIT_FOR_REPLY_COMPOSITE, SEND_COMPOSITE, type Executor } from '@chat-messaging/core';
import { runItems, type OutputItem } from '../../shared/items';
import { BURST_RESOURCE, executeBurst, WAIT_FOR_QUIET } from './burst/burst';
import { wakeWebhook } from './burst/wake';
import { executeCatalogueOperation } from './catalogue/execute';
import { isConversation } from './getConversation/description';
import { executeGetConversation } from './getConversation/execute';
import { executeSend } from './send/execute';
import { SEND_AND_WAIT } from './sendAndWait/description';
import { executeSendAndWait } from './sendAndWait/execute';
import { sendAndWaitWebhookAnswer } from './sendAndWait/webhook';
import { SEND_AND_WAIT_FOR_REPLY } from './sendAndWaitForReply/description';
import { executeSendAndWaitForReply } from './sendAndWaitForReply/execute';
import { sendAndWaitForReplyWebhook } from './sendAndWaitForReply/webhook';

/** One item of an operation run item by item; every parameter is read and checked before the first request. */
async function runItem(context: IExecuteFunctions, executor: Executor, itemIndex: number): Promise<OutputItem[]> {
	const resource = context.getNodeParameter('resource', itemIndex) as string;
	const operation = context.getNodeParameter('operation', itemIndex) as string;
	if (resource === SEND_COMPOSITE.resource && operation === SEND_COMPOSITE.operation)
		return await executeSend(context, executor, itemIndex);
	if (isConversation(resource, operation)) return await executeGetConversation(context, executor, itemIndex);
	return await executeCatalogueOperation(context, executor, itemIndex, { resource, operation });
}

export async function router(context: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = context.getNodeParameter('resource', 0);
	const operation = context.getNodeParameter('operation', 0);
	if (resource === SEND_AND_WAIT_FOR_REPLY_COMPOSITE.resource && operation === SEND_AND_WAIT_FOR_REPLY)
		return await executeSendAndWaitForReply(context);
	if (resource === SEND_AND_WAIT_COMPOSITE.resource && operation === SEND_AND_WAIT) return await executeSendAndWait(context);
	// The burst's two operations read the item's chat and messages once per execution (burst/burst.ts).
	const burst = resource === BURST_RESOURCE ? await executeBurst(context, String(operation)) : undefined;
	if (burst) return burst;
	return await runItems(context, runItem);
}

/**
 * Send and Wait for Response's links (GET opens a page, POST answers it), Wait for Customer to Finish Typing's call
 * when the quiet time is up, else Send and Wait for Reply's deliveries.
 */
export async function webhookRouter(context: IWebhookFunctions): Promise<IWebhookResponseData> {
	const operation = context.getNodeParameter('operation', '');
	if (operation === SEND_AND_WAIT) return sendAndWaitWebhookAnswer(context);
	if (operation === WAIT_FOR_QUIET) return wakeWebhook(context);
	return await sendAndWaitForReplyWebhook(context);
}
