/**
 * How a wait in webhook mode watches for the reply: a temporary subscription points at the execution's
 * resume URL, whose query says which chat and which sent message the reply answers and when the wait
 * ends; it is removed when the reply comes, or by a later run once expired (n8n runs no node code on a
 * time-out). And the item the reply becomes, in either mode.
 */
import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { deleteSubscriptions, type ChatEvent, type Executor, type ReplyWatch } from '@chat-messaging/core';

/** Query parameters of the temporary subscription URL: what the webhook needs to recognise the reply. */
export const CHAT_PARAMETER = 'cm_chat';
export const AFTER_PARAMETER = 'cm_after';
/** Epoch seconds after which the subscription is stale and any later run removes it. */
const UNTIL_PARAMETER = 'cm_until';

/** The item the reply becomes: the sent message's ids, and the reply as the triggers output events. */
export function replyItem(watch: ReplyWatch, reply: ChatEvent | undefined, sent: IDataObject = {}): INodeExecutionData {
	return {
		json: {
			...sent,
			chat_id: watch.chat_id,
			message_uid: watch.message_uid,
			replied: reply !== undefined,
			reply: (reply ?? null) as unknown as IDataObject,
		},
		pairedItem: { item: 0 },
	};
}

/** Whether a subscription URL is a temporary one of this operation on this n8n whose time has passed. */
export function isExpiredReplySubscription(url: string, resumeOrigin: string, nowMs: number): boolean {
	try {
		const parsed = new URL(url);
		const until = Number(parsed.searchParams.get(UNTIL_PARAMETER));
		return parsed.origin === resumeOrigin && parsed.searchParams.has(CHAT_PARAMETER) && Number.isFinite(until) && until * 1000 < nowMs;
	} catch {
		return false;
	}
}

/** The execution's resume URL for this node, with what the webhook needs to recognise the reply. */
export function replySubscriptionUrl(context: IExecuteFunctions, watch: ReplyWatch, deadline: number): URL {
	const resumeUrl = String(context.getWorkflowDataProxy(0).$execution.resumeUrl ?? '');
	let url: URL;
	try {
		url = new URL(resumeUrl);
	} catch {
		throw new NodeOperationError(context.getNode(), `n8n gave no usable resume URL for this execution ("${resumeUrl}")`);
	}
	url.pathname = `${url.pathname.replace(/\/+$/, '')}/${encodeURIComponent(context.getNode().id)}`;
	url.searchParams.set(CHAT_PARAMETER, String(watch.chat_id));
	url.searchParams.set(AFTER_PARAMETER, watch.message_uid);
	url.searchParams.set(UNTIL_PARAMETER, String(Math.ceil(deadline / 1000)));
	return url;
}

/** Whether a subscription URL is the temporary one of this wait: the one naming the sent message (unique per send). */
export function isReplySubscriptionOf(subscriptionUrl: string, sentMessageUid: string): boolean {
	try {
		const url = new URL(subscriptionUrl);
		return url.searchParams.get(AFTER_PARAMETER) === sentMessageUid && url.searchParams.has(CHAT_PARAMETER);
	} catch {
		return false;
	}
}

/** Deletes the temporary subscription of this wait. */
export async function removeOwnSubscriptions(executor: Executor, sentMessageUid: string): Promise<void> {
	await deleteSubscriptions(executor, [], (url) => isReplySubscriptionOf(url, sentMessageUid));
}
