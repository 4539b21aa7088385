/**
 * One turn per burst with the webhook trigger: the trigger starts one execution per message, and two
 * operations let only the burst's last one answer it, with the whole burst as one item.
 *
 * - Wait for Customer to Finish Typing: the execution waits for a quiet spell in two parts (wake.ts): n8n's own
 *   waiting holds it (stored in n8n's database, resumed after a restart and by any main instance in queue mode),
 *   and the process that put it to wait calls its resume URL when the quiet time is up, so it goes on at once
 *   instead of on n8n's next look at its waiting executions (once a minute). Nodes saved before 2.2 keep the
 *   timed wait alone.
 * - Get Burst to Answer: reads the chat once and asks the core which burst this execution answers
 *   (`burstToAnswer`): none when a newer message of the customer has arrived (its own execution answers),
 *   else the customer's messages since the last message sent, as one item.
 *
 * Two operations because n8n runs no node code when a timed wait ends: it passes the waiting node's input
 * items on. The decision therefore happens in the node after the wait; the state it decides on is the
 * service's, so executions on different workers agree.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { agentInputOf, burstToAnswer, downloadBurstAttachments, inputError } from '@chat-messaging/core';
import { toNodeError } from '../../../../shared/errors';
import { attachmentsBinary } from '../../../../shared/files';
import { createExecutor, n8nTiming } from '../../../../shared/transport';
import { toolDescriptionParameter } from '../../agents';
import { FALLBACK_AFTER_SECONDS, resumeWhenQuiet, TRACKED_WAIT_SECONDS } from './wake';

export const BURST_RESOURCE = 'message';
export const WAIT_FOR_QUIET = 'waitForCustomerToFinishTyping';
export const GET_BURST = 'getBurstToAnswer';

/** The quiet time of nodes saved before version 2.2 (n8n keeps a default out of a saved workflow). */
const QUIET_SECONDS_BEFORE_2_2 = 30;
/**
 * New nodes' quiet time: the lines of one burst mostly come a few seconds apart, and a customer waits this long
 * plus the model's answer, about as long as a person takes to start typing back.
 */
export const DEFAULT_QUIET_SECONDS = 5;
/** The version whose Quiet Time starts at DEFAULT_QUIET_SECONDS, and whose wait ends as soon as the quiet time is up. */
export const QUIET_DEFAULT_VERSION = 2.2;

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

/** When the execution goes on after the quiet time, by node version (waitForQuiet). */
const GOES_ON = `The execution goes on right after it (n8n calls its own resume URL, so it must reach its webhook URL); after a restart of n8n during the wait, ${FALLBACK_AFTER_SECONDS} s later (from ${TRACKED_WAIT_SECONDS} s on, n8n's own timed wait ends it on time).`;
const GOES_ON_BEFORE_2_2 = `The execution goes on when n8n next looks at its waiting executions, up to about a minute after it (on time from ${TRACKED_WAIT_SECONDS} s on); version 2.2 of this node goes on right after it.`;

export const burstProperties: INodeProperties[] = [
	{
		displayName:
			'Put this right after the Chat Messaging Trigger and follow it with <b>Get Burst to Answer</b>: each message of a burst starts an execution; only the last one goes on, with the whole burst, after the quiet time.',
		name: 'burstWaitNotice',
		type: 'notice',
		default: '',
		displayOptions: show(WAIT_FOR_QUIET),
	},
	...[
		{ fallback: QUIET_SECONDS_BEFORE_2_2, version: [{ _cnd: { lt: QUIET_DEFAULT_VERSION } }], after: GOES_ON_BEFORE_2_2 },
		{ fallback: DEFAULT_QUIET_SECONDS, version: [{ _cnd: { gte: QUIET_DEFAULT_VERSION } }], after: GOES_ON },
	].map(({ fallback, version, after }): INodeProperties => ({
		displayName: 'Quiet Time (Seconds)',
		name: 'burstQuietSeconds',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: fallback,
		description: `How long the customer must have been quiet before the burst is answered. Each second is a second more the customer waits for the answer; a shorter time answers a slow typist's lines in two turns (two model calls, two replies). ${after}`,
		displayOptions: { show: { resource: [BURST_RESOURCE], operation: [WAIT_FOR_QUIET], '@version': version } },
	})),
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
	{
		displayName: 'Download Attachments',
		name: 'burstDownloadAttachments',
		type: 'boolean',
		default: false,
		description:
			"Whether to put the files of the burst's messages (a voice note to transcribe, a photo) into the item's binary data as attachment_0, attachment_1, …, oldest first; their links last about 15 minutes",
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

/**
 * Waits once for every input item (they share the execution) and passes them on when the execution resumes: when
 * the quiet time is up (wake.ts), or, if that call never came (n8n restarted meanwhile), when n8n's own timed wait ends.
 */
async function waitForQuiet(context: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const seconds = Number(context.getNodeParameter('burstQuietSeconds', 0));
	if (!Number.isFinite(seconds) || seconds <= 0) {
		throw toNodeError(context.getNode(), inputError('Quiet Time (Seconds)', `must be more than 0, got ${seconds}`));
	}
	const quietUntil = n8nTiming.now() + seconds * 1000;
	// Nodes saved before 2.2 keep n8n's timed wait alone, as they were saved with: the resume call needs n8n to reach
	// its own webhook URL, which a setup that worked before may not allow.
	if (seconds >= TRACKED_WAIT_SECONDS || context.getNode().typeVersion < QUIET_DEFAULT_VERSION) {
		// n8n's own timed wait: on time from a minute on, else at n8n's next look at its waiting executions.
		await context.putExecutionToWait(new Date(quietUntil));
	} else {
		await context.putExecutionToWait(new Date(quietUntil + FALLBACK_AFTER_SECONDS * 1000));
		resumeWhenQuiet(context, quietUntil);
	}
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
			const binary =
				context.getNodeParameter('burstDownloadAttachments', index, false) === true
					? await attachmentsBinary(context.helpers, await downloadBurstAttachments(executor, turn))
					: undefined;
			out.push({
				...(binary ? { binary } : {}),
				json: {
					chat_id: turn.chat_id,
					message_uid: turn.message_uid,
					text: turn.text,
					message_uids: turn.messages.map((message) => message.message_uid),
					attachments: turn.attachments.map(({ message_uid, filename, message_type }) => ({
						message_uid,
						filename: filename ?? null,
						message_type: message_type ?? null,
					})),
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
