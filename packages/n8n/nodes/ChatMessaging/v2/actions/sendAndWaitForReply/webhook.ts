/** The reply's way back in webhook mode: the subscription's deliveries reach the node's waiting webhook. */
import type { IDataObject, IWebhookDescription, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { ChatMessagingError, replyInDelivery, type ReplyWatch } from '@chat-messaging/core';
import { createExecutor } from '../../../../shared/transport';
import { AFTER_PARAMETER, CHAT_PARAMETER, removeOwnSubscriptions, replyItem } from './replyWatch';

/** The waiting webhook n8n routes the execution's resume URL to (as in n8n's own send-and-wait nodes). */
export const sendAndWaitForReplyWebhooks: IWebhookDescription[] = [
	{
		name: 'default',
		httpMethod: 'POST',
		responseMode: 'onReceived',
		// The answer is webhook()'s own (n8n would otherwise answer the text "firstEntryJson"); Send and Wait
		// for Response's form answers through this webhook too, with its page.
		responseData: '',
		path: '={{ $nodeId }}',
		restartWebhook: true,
		isFullPath: true,
	},
];

/**
 * A delivery at the resume URL: the reply resumes the execution (after the temporary subscription
 * is removed); anything else is acknowledged and leaves the execution waiting.
 */
export async function sendAndWaitForReplyWebhook(context: IWebhookFunctions): Promise<IWebhookResponseData> {
	const query = context.getQueryData() as IDataObject;
	const chatId = String(query[CHAT_PARAMETER] ?? '');
	const after = String(query[AFTER_PARAMETER] ?? '');
	if (!chatId || !after) return { webhookResponse: { status: 'ok', ignored: 'not a reply subscription of this node' } };
	const watch: ReplyWatch = { chat_id: /^\d+$/.test(chatId) ? Number(chatId) : chatId, message_uid: after };
	const reply = replyInDelivery(context.getBodyData(), watch);
	if (!reply) return { webhookResponse: { status: 'ok', ignored: 'not a reply in the watched chat' } };
	try {
		const executor = await createExecutor(context);
		await removeOwnSubscriptions(executor, after);
	} catch (error) {
		// The reply still resumes the execution; a subscription left behind is removed once expired.
		const reason = error instanceof ChatMessagingError ? error.message : String(error);
		context.logger.warn(`Chat Messaging: could not remove the temporary reply subscription: ${reason}`);
	}
	return { workflowData: [[replyItem(watch, reply)]] };
}
