/**
 * Send and wait for reply: the send, then the customer's next message in that chat or the time-out, on the
 * node's three outputs.
 */
import {
	REPLY_TIMEOUT_OF_FLOWS_SAVED_WITHOUT_IT_S,
	replyPollInterval,
	SEND_AND_WAIT_FOR_REPLY_COMPOSITE,
	type Executor,
	type ReplyWaitResult,
	type Timing,
} from '@chat-messaging/core';
import type { Node, NodeAPI, NodeMessage } from 'node-red';

type SendFunction = (msg: NodeMessage | Array<NodeMessage | NodeMessage[] | null>) => void;

/**
 * Send and wait for reply, the core's composite `message:sendAndWaitForReply` (the send this node's
 * settings describe, then the wait): the send's result leaves on output 1 as soon as it is known; then
 * the customer's next message in that chat leaves on output 2 (msg.payload the reply as an event,
 * msg.sent the send's result), or, after the time-out, msg.payload {timedOut, waitedMs, chat_id,
 * message_uid} on output 3.
 */
export async function sendAndAwaitReply(
	RED: NodeAPI,
	node: Node,
	msg: NodeMessage,
	send: SendFunction,
	input: Record<string, unknown>,
	options: {
		executor: Executor;
		timeoutMs: number;
		timing: Timing;
		cancelled: () => boolean;
		onWaiting: (target: string) => void;
	},
): Promise<void> {
	let sent: Record<string, unknown> = {};
	const outcome = (await options.executor.run(
		SEND_AND_WAIT_FOR_REPLY_COMPOSITE,
		{
			...input,
			replyTimeout: options.timeoutMs / 1000,
			// As this node has always looked: every tenth of the time-out, at least every 2 s and at most every 60 s.
			pollInterval: replyPollInterval(options.timeoutMs) / 1000,
		},
		{
			timing: options.timing,
			cancelled: options.cancelled,
			onWaiting: options.onWaiting,
			onSent: (answer, watch) => {
				sent = answer;
				const sentMsg = RED.util.cloneMessage(msg);
				sentMsg.payload = answer;
				send([sentMsg, null, null]);
				node.status({ fill: 'blue', shape: 'ring', text: `waiting for a reply in chat ${String(watch.chat_id)}` });
			},
		},
	)) as ReplyWaitResult;
	if (outcome.cancelled) return;
	const out = RED.util.cloneMessage(msg);
	out.sent = sent;
	if (outcome.reply) {
		out.payload = outcome.reply;
		out.topic = outcome.reply.event_type;
		node.status({ fill: 'green', shape: 'dot', text: `reply in chat ${String(outcome.chat_id)}` });
		send([null, out, null]);
	} else {
		out.payload = { timedOut: true, waitedMs: outcome.waited_ms, chat_id: outcome.chat_id, message_uid: outcome.message_uid };
		node.status({ fill: 'yellow', shape: 'ring', text: `no reply within ${Math.round(options.timeoutMs / 1000)} s` });
		send([null, null, out]);
	}
}

/**
 * The reply time-out of a node (migrated: migrations.ts fills in the 300 s of nodes saved without it), in seconds;
 * a value that is no positive number (written by hand) reads as that too.
 */
export function replyTimeoutOf(definition: Record<string, unknown>): number {
	return Math.max(1, Number(definition.replyTimeout) || REPLY_TIMEOUT_OF_FLOWS_SAVED_WITHOUT_IT_S);
}
