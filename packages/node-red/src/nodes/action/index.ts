/**
 * `chat-messaging`: runs any catalogue operation. Every field is a typedInput stored as
 * `fields[<wire name>] = {value, type}` (a msg property is one of its types). Nothing is read from the
 * msg unless the user chose it: with the node option `payloadFields` on, a field left empty is filled
 * from `msg.payload[<wire name>]`, except the target ids of an operation that changes or removes something. The result
 * replaces msg.payload (other msg properties are kept).
 */
import {
	CONVERSATION_COMPOSITE,
	DEFAULT_WAIT_TIMEOUT_S,
	findOperation,
	inputError,
	internalError,
	operationId,
	recordShape,
	SEND_COMPOSITE,
	SEND_TARGETS,
	sendOperation,
	shapeOutput,
	type DownloadedFile,
	type OperationDescriptor,
} from '@chat-messaging/core';
import { annotateMessage, asChatMessagingError, errorStatusText, toNodeError } from '../../shared/errors';
import { realTiming } from '../../shared/transport';
import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow } from 'node-red';
import type { SavedNodeDef } from '../../shared/saved';
import { CONFIG_TYPE, resolveConfig, type ConfigNode } from '../config';
import { CONVERSATION_DESCRIPTOR, editorComposite } from '../../shared/conversation';
import { migrateAction } from './migrations';
import { collectInput, evaluateTyped, isPlainObject, toAttachment, type TypedValue } from './input';
import { outputChoiceError, outputChoiceOf, splitMessages, summarize } from './output';
import { replyTimeoutOf, sendAndAwaitReply } from './reply';

export const ACTION_TYPE = 'chat-messaging';

/** Messages one action node works on at once: enough to keep the paced request queue full at any latency here. */
const MESSAGES_IN_FLIGHT = 16;

export function registerActionNode(RED: NodeAPI): void {
	RED.nodes.registerType(ACTION_TYPE, function (this: Node, definition: SavedNodeDef) {
		RED.nodes.createNode(this, definition);
		// A node saved before some of its properties existed gets them filled in first (migrations.ts).
		setUpActionNode(RED, this, migrateAction(definition));
	});
}

function setUpActionNode(RED: NodeAPI, node: Node, definition: SavedNodeDef): void {
	const opId = `${String(definition.resource ?? '')}:${String(definition.operation ?? '')}`;
	const fields = (isPlainObject(definition.fields) ? definition.fields : {}) as Record<string, TypedValue>;
	const outputMode = definition.outputMode === 'split' ? 'split' : 'array';
	const fillFromPayload = definition.payloadFields === true || definition.payloadFields === 'true';
	const returnAll = definition.returnAll === true || definition.returnAll === 'true';
	const limit = Number(definition.limit);
	const attachmentSetting = (isPlainObject(definition.attachment) ? definition.attachment : undefined) as TypedValue | undefined;
	const attachmentName = String(definition.attachmentName ?? '');
	const waitFor = String(definition.waitFor ?? '');
	const waitTimeoutMs = Math.max(1, Number(definition.waitTimeout) || DEFAULT_WAIT_TIMEOUT_S) * 1000;
	// Send and wait for reply: output 1 the send's result at once, output 2 the reply, output 3 the time-out.
	const waitsForReply = definition.waitForReply === true || definition.waitForReply === 'true';
	const replyTimeoutMs = replyTimeoutOf(definition) * 1000;
	const outputChoice = outputChoiceOf(definition);
	let closing = false;
	/** Pauses between looks for a reply end early when the node closes (redeploy, stop). */
	const wakeUps = new Set<() => void>();
	const replyTiming = {
		...realTiming,
		sleep: (ms: number) =>
			new Promise<void>((resolve) => {
				if (closing) return resolve(); // closed during a look: no new pause
				const wake = () => {
					clearTimeout(timer);
					wakeUps.delete(wake);
					resolve();
				};
				const timer = setTimeout(wake, ms);
				wakeUps.add(wake);
			}),
	};
	node.on('close', (_removed: boolean, done: () => void) => {
		closing = true;
		for (const wake of [...wakeUps]) wake();
		done();
	});

	let op: OperationDescriptor | undefined;
	let opProblem = `unknown operation "${opId}": choose a resource and an operation`;
	try {
		// "Send" (the composite, with Send To) reads the fields of the send its choice names.
		op = opId === operationId(SEND_COMPOSITE) ? sendOperation(String(definition.sendTo)) : (editorComposite(opId) ?? findOperation(opId));
	} catch {
		if (opId === operationId(SEND_COMPOSITE)) {
			opProblem = `unknown Send To "${String(definition.sendTo)}": use one of ${SEND_TARGETS.map((target) => target.value).join(', ')}`;
			node.status({ fill: 'red', shape: 'ring', text: `unknown Send To ${String(definition.sendTo)}` });
		} else node.status({ fill: 'red', shape: 'ring', text: `unknown operation ${opId}` });
	}
	// Said at deploy, not at the first message: a configuration deployed without its token cannot work.
	const config =
		typeof definition.config === 'string' && definition.config ? (RED.nodes.getNode(definition.config) as ConfigNode | null) : null;
	if (op && config?.type === CONFIG_TYPE && !config.credentials?.token) {
		node.status({ fill: 'red', shape: 'ring', text: 'no API token in the configuration' });
	}

	// Messages arriving faster than answers come back run side by side (the config node's shared pacer keeps them under
	// the service's rate), up to MESSAGES_IN_FLIGHT; the rest wait their turn here, in arrival order.
	let inFlight = 0;
	const waiting: Array<() => void> = [];
	const turn = (): Promise<void> => {
		if (inFlight < MESSAGES_IN_FLIGHT) {
			inFlight++;
			return Promise.resolve();
		}
		return new Promise((resolve) => waiting.push(resolve));
	};
	const release = () => {
		const next = waiting.shift();
		if (next) next();
		else inFlight--;
	};

	const handleInput = async (
		msg: NodeMessageInFlow,
		send: (msg: NodeMessage | Array<NodeMessage | NodeMessage[] | null>) => void,
		done: (error?: Error) => void,
	): Promise<void> => {
		await turn();
		try {
			if (!op) throw inputError(opProblem.startsWith('unknown Send To') ? 'sendTo' : 'operation', opProblem);
			// Checked with the fields, before any request; operations that return no records have no Output choice.
			const outputProblem = recordShape(op) ? outputChoiceError(outputChoice) : undefined;
			if (outputProblem) throw outputProblem;
			const executor = resolveConfig(RED, definition.config).getExecutor();
			const input = await collectInput(RED, node, msg, op, fields, fillFromPayload);
			node.status({ fill: 'blue', shape: 'dot', text: 'requesting' });

			let result: unknown;
			if (op.sendsMessage) {
				const sendId = operationId(op);
				let attachmentValue: unknown;
				try {
					attachmentValue = await evaluateTyped(RED, node, msg, attachmentSetting);
				} catch (error) {
					throw asChatMessagingError(error, 'attachment');
				}
				// Every send, the four of flows saved with them included, is the Send composite with its Send To
				// (with Reply on, Send and Wait for Reply: the same send, then the wait).
				const sendTo = SEND_COMPOSITE.variants.options.find((variant) => variant.operation === sendId)?.value;
				const sendInput = {
					...input,
					sendTo,
					attachment: toAttachment(attachmentValue, attachmentName),
					waitForStatus: waitFor || 'none',
					waitTimeout: waitTimeoutMs / 1000,
				};
				const onWaiting = (target: string) => node.status({ fill: 'blue', shape: 'ring', text: `waiting for ${target}` });
				if (waitsForReply) {
					await sendAndAwaitReply(RED, node, msg, send, sendInput, {
						executor,
						timeoutMs: replyTimeoutMs,
						timing: replyTiming,
						cancelled: () => closing,
						onWaiting,
					});
					done();
					return;
				}
				result = await executor.run(SEND_COMPOSITE, sendInput, { onWaiting });
			} else if (op === CONVERSATION_DESCRIPTOR) {
				result = await executor.run(CONVERSATION_COMPOSITE, input);
			} else {
				result = await executor.run(op, input, op.pagination ? { returnAll, limit } : {});
				if (!op.download) result = shapeOutput(op, result, outputChoice);
			}

			node.status({ fill: 'green', shape: 'dot', text: summarize(op, result) });
			if (op.download) {
				// As Node-RED's file-in node: the bytes in msg.payload, the name beside them.
				const file = result as DownloadedFile;
				msg.payload = Buffer.from(file.data.buffer, file.data.byteOffset, file.data.byteLength);
				msg.filename = file.filename;
				msg.mimeType = file.mimeType;
				msg.file = file.file;
				send(msg);
			} else if (outputMode === 'split' && Array.isArray(result)) {
				// One output with several messages: send([[...]]) delivers them in order.
				send([splitMessages(RED, msg, result)]);
			} else {
				msg.payload = result;
				send(msg);
			}
			done();
		} catch (caught) {
			// Input problems were wrapped where they arose (with their field); anything else is the node's own failure.
			const error = internalError(caught, op ? operationId(op) : undefined);
			node.status({ fill: 'red', shape: 'ring', text: errorStatusText(error) });
			annotateMessage(msg, error);
			done(toNodeError(error));
		} finally {
			release();
		}
	};

	node.on('input', (msg, send, done) => {
		// Node-RED does not await an input listener: the message's failures are answered through done() in handleInput, and one in
		// that answering itself ends the message with it rather than as an unhandled rejection.
		handleInput(msg, send, done).catch((error: unknown) => done(error instanceof Error ? error : new Error(String(error))));
	});
}
