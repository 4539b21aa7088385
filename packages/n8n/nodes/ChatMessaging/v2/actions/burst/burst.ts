/**
 * One turn per burst with the webhook trigger: the trigger starts one execution per message, and two
 * operations let only the burst's last one answer it, with the whole burst as one item.
 *
 * - Wait for Customer to Finish Typing: n8n puts the execution to wait (its own waiting: stored in n8n's
 *   database, resumed after a restart and by any main instance in queue mode) for a quiet spell.
 * - Get Burst to Answer: reads the chat once and asks the core which burst this execution answers
 *   (`burstToAnswer`): none when a newer message of the customer has arrived (its own execution answers),
 *   else the customer's messages since the last message sent, as one item.
 *
 * Two operations because n8n runs no node code when a timed wait ends: it passes the waiting node's input
 * items on. The decision therefore happens in the node after the wait; the state it decides on is the
 * service's, so executions on different workers agree.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { agentInputOf, burstToAnswer, inputError } from '@chat-messaging/core';
import { toNodeError } from '../../../../shared/errors';
import { createExecutor, n8nTiming } from '../../../../shared/transport';
import { toolDescriptionParameter } from '../../agents';

export const BURST_RESOURCE = 'message';
export const WAIT_FOR_QUIET = 'waitForCustomerToFinishTyping';
export const GET_BURST = 'getBurstToAnswer';

/** Long enough for a customer typing a second line; n8n resumes short waits on its next minute tick. */
export const DEFAULT_QUIET_SECONDS = 30;

/** The two operations, as the operation list shows them. */
export const BURST_OPERATIONS: ReadonlyArray<{ name: string; operation: string; action: string; description: string }> = [
	{
		name: 'Wait for Customer to Finish Typing',
		operation: WAIT_FOR_QUIET,
		action: 'Wait for the customer to finish typing',
		description:
			'Pause the execution for a quiet spell after the message that started it (n8n keeps the wait across restarts); follow with Get Burst to Answer',
	},
	{
		name: 'Get Burst to Answer',
		operation: GET_BURST,
		action: 'Get the burst to answer',
		description:
			"After Wait for Customer to Finish Typing: the customer's messages since the last reply as one item, or no item when a newer message came (its own execution answers)",
	},
];

const show = (operation: string) => ({ show: { resource: [BURST_RESOURCE], operation: [operation] } });

export const burstProperties: INodeProperties[] = [
	{
		displayName:
			'Put this right after the Chat Messaging Trigger and follow it with <b>Get Burst to Answer</b>: each message of a burst starts an execution; only the last one goes on, with the whole burst. n8n resumes waits shorter than about a minute on its next minute tick.',
		name: 'burstWaitNotice',
		type: 'notice',
		default: '',
		displayOptions: show(WAIT_FOR_QUIET),
	},
	{
		displayName: 'Quiet Time (Seconds)',
		name: 'burstQuietSeconds',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: DEFAULT_QUIET_SECONDS,
		description: 'How long the execution waits after the message that started it before Get Burst to Answer looks at the chat',
		displayOptions: show(WAIT_FOR_QUIET),
	},
	{
		displayName: 'Chat ID',
		name: 'burstChatId',
		type: 'string',
		required: true,
		default: '={{ $json.chat_id }}',
		description: "The chat of the message that started this execution (the Chat Messaging Trigger's chat_id)",
		displayOptions: show(GET_BURST),
	},
	{
		displayName: 'Message UID',
		name: 'burstMessageUid',
		type: 'string',
		required: true,
		default: '={{ $json.message_uid }}',
		description: "The message that started this execution (the Chat Messaging Trigger's message_uid)",
		displayOptions: show(GET_BURST),
	},
	// As a tool (n8n's AI Agent), each operation says what it does and that it belongs in a workflow's path.
	...BURST_OPERATIONS.map((op) =>
		toolDescriptionParameter(`${op.description}. A step of a workflow started by the Chat Messaging Trigger, not a lookup`, {
			resource: [BURST_RESOURCE],
			operation: [op.operation],
		}),
	),
];

/** Waits once for every input item (they share the execution) and passes them on when n8n resumes it. */
async function waitForQuiet(context: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const seconds = Number(context.getNodeParameter('burstQuietSeconds', 0, DEFAULT_QUIET_SECONDS));
	if (!Number.isFinite(seconds) || seconds <= 0) {
		throw toNodeError(context.getNode(), inputError('Quiet Time (Seconds)', `must be more than 0, got ${seconds}`));
	}
	await context.putExecutionToWait(new Date(n8nTiming.now() + seconds * 1000));
	return [context.getInputData()];
}

/** One request per item: the burst it answers, or nothing when a later execution answers it. */
async function getBurst(context: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const out: INodeExecutionData[] = [];
	const items = context.getInputData();
	const executor = await createExecutor(context);
	for (let index = 0; index < items.length; index++) {
		try {
			const chatId = String(context.getNodeParameter('burstChatId', index, '') ?? '').trim();
			const turn = await burstToAnswer(executor, {
				chat_id: /^\d+$/.test(chatId) ? Number(chatId) : chatId,
				message_uid: context.getNodeParameter('burstMessageUid', index, ''),
			});
			if (!turn.answers) continue;
			out.push({
				json: {
					chat_id: turn.chat_id,
					message_uid: turn.message_uid,
					text: turn.text,
					message_uids: turn.messages.map((message) => message.message_uid),
					messages: turn.messages as unknown as IDataObject[],
					...agentInputOf(turn),
				},
				pairedItem: { item: index },
			});
		} catch (error) {
			if (!context.continueOnFail()) throw toNodeError(context.getNode(), error, index);
			out.push({ json: { error: (error as Error).message }, pairedItem: { item: index } });
		}
	}
	return [out];
}

/** The operation's run, or undefined for an operation that is not one of these two. */
export async function executeBurst(context: IExecuteFunctions, operation: string): Promise<INodeExecutionData[][] | undefined> {
	if (operation === WAIT_FOR_QUIET) return await waitForQuiet(context);
	if (operation === GET_BURST) return await getBurst(context);
	return undefined;
}
