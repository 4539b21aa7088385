/**
 * `chat-messaging`: runs any catalogue operation. Every field is a typedInput stored as
 * `fields[<wire name>] = {value, type}` (a msg property is one of its types). Nothing is read from the
 * msg unless the user chose it: with the node option `payloadFields` on, a field left empty is filled
 * from `msg.payload[<wire name>]`, except the target ids of an operation that changes or removes something. The result
 * replaces msg.payload (other msg properties are kept).
 */
import {
	changesTarget,
	DEFAULT_SEND_TO,
	DEFAULT_WAIT_TIMEOUT_S,
	findOperation,
	inputError,
	internalError,
	isBlank,
	isHttpUrl,
	LIST_DEFAULTS,
	operationId,
	OUTPUT_WHEN_UNSET,
	outputChoiceProblem,
	recordShape,
	REPLY_TIMEOUT_OF_FLOWS_SAVED_WITHOUT_IT_S,
	replyPollInterval,
	SEND_AND_WAIT_FOR_REPLY_COMPOSITE,
	SEND_COMPOSITE,
	SEND_TARGETS,
	sendOperation,
	shapeOutput,
	type Attachment,
	type BinaryInput,
	type DownloadedFile,
	type Executor,
	type FieldDescriptor,
	type OperationDescriptor,
	type OutputChoice,
	type ReplyWaitResult,
	type Timing,
} from '@chat-messaging/core';
import { CONFIG_TYPE, resolveConfig } from './config';
import { annotateMessage, asChatMessagingError, errorStatusText, toNodeError } from './errors';
import { realTiming } from './transport';
import type { NodeAPI, NodeDefinition, NodeInstance, NodeMessage, SendFunction } from './types';

export const ACTION_TYPE = 'chat-messaging';

/** Messages one action node works on at once: enough to keep the paced request queue full at any latency here. */
const MESSAGES_IN_FLIGHT = 16;

export interface TypedValue {
	value?: unknown;
	type?: string;
}

const MIME_BY_EXTENSION: Record<string, string> = {
	png: 'image/png',
	jpg: 'image/jpeg',
	jpeg: 'image/jpeg',
	gif: 'image/gif',
	webp: 'image/webp',
	pdf: 'application/pdf',
	txt: 'text/plain',
	csv: 'text/csv',
	mp3: 'audio/mpeg',
	ogg: 'audio/ogg',
	mp4: 'video/mp4',
};

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
	!!value && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Uint8Array);

function guessMimeType(filename: string | undefined): string | undefined {
	const extension = filename?.split('.').pop()?.toLowerCase();
	return extension ? MIME_BY_EXTENSION[extension] : undefined;
}

/** A Buffer, a Uint8Array, or a Buffer that went through JSON (`{type: 'Buffer', data: [...]}`). */
function asBytes(value: unknown): Uint8Array | undefined {
	if (value instanceof Uint8Array) return value;
	if (isPlainObject(value) && value.type === 'Buffer' && Array.isArray(value.data)) return Uint8Array.from(value.data as number[]);
	return undefined;
}

/** Resolves one typedInput against the msg; an empty setting means "not given" (undefined). */
export function evaluateTyped(RED: NodeAPI, node: NodeInstance, msg: NodeMessage, typed: TypedValue | undefined): Promise<unknown> {
	const type = typed?.type || 'str';
	const value = typed?.value ?? '';
	if (value === '' && type !== 'date') return Promise.resolve(undefined);
	return new Promise((resolve, reject) => {
		try {
			RED.util.evaluateNodeProperty(value, type, node, msg, (error, result) => (error ? reject(error) : resolve(result)));
		} catch (error) {
			reject(error);
		}
	});
}

/**
 * Whether an empty field may be filled from msg.payload: never the id of what an operation changes or removes
 * (its effect in the catalogue), so a record piped in cannot aim an update, a rename or a delete elsewhere.
 */
const fillableFromPayload = (op: OperationDescriptor, field: FieldDescriptor): boolean => !(changesTarget(op) && field.in === 'path');

/** Reads the operation's fields (typedInputs, then msg.payload for empty ones if asked to) into the executor's flat input. */
async function collectInput(
	RED: NodeAPI,
	node: NodeInstance,
	msg: NodeMessage,
	op: OperationDescriptor,
	fields: Record<string, TypedValue>,
	fillFromPayload: boolean,
): Promise<Record<string, unknown>> {
	const input: Record<string, unknown> = {};
	const payload = fillFromPayload && isPlainObject(msg.payload) ? msg.payload : undefined;
	for (const field of op.fields) {
		let value: unknown;
		const typed = fields[field.name];
		const configured = typed && !(typed.value === '' || typed.value === undefined || typed.value === null);
		if (configured) {
			try {
				value = await evaluateTyped(RED, node, msg, typed);
			} catch (error) {
				throw asChatMessagingError(error, field.name, field.displayName);
			}
		} else if (payload && field.name in payload && fillableFromPayload(op, field)) {
			value = payload[field.name];
		}
		if (value !== undefined) input[field.name] = value;
	}
	for (const field of op.fields) {
		if (field.kind === 'binary' && !isBlank(input[field.name])) input[field.name] = toBinaryInput(field, input[field.name], input);
	}
	return input;
}

/** Bytes given alone take their name and type from the operation's filename / content_type fields. */
function toBinaryInput(field: FieldDescriptor, value: unknown, input: Record<string, unknown>): unknown {
	const bytes = asBytes(value);
	if (bytes) {
		const filename = typeof input.filename === 'string' && input.filename ? input.filename : 'file';
		const mimeType = typeof input.content_type === 'string' && input.content_type ? input.content_type : guessMimeType(filename);
		return { data: bytes, filename, mimeType } satisfies BinaryInput;
	}
	if (isPlainObject(value)) {
		const data = asBytes(value.data);
		if (!data) throw inputError(field.name, 'must be a Buffer or {data: Buffer, filename, mimeType}', field.displayName);
		const filename = String(value.filename ?? input.filename ?? 'file');
		return {
			data,
			filename,
			mimeType: (value.mimeType ?? value.contentType ?? input.content_type ?? guessMimeType(filename)) as string | undefined,
		};
	}
	return value; // the executor names the field in its error
}

/** The send's attachment: bytes (Buffer or {data, filename, mimeType}) or a public URL the service downloads. */
export function toAttachment(value: unknown, attachmentName: string): Attachment | undefined {
	if (isBlank(value)) return undefined;
	const name = attachmentName.trim() || undefined;
	const bytes = asBytes(value);
	if (bytes) {
		const filename = name ?? 'attachment';
		return { binary: { data: bytes, filename, mimeType: guessMimeType(filename) } };
	}
	if (isPlainObject(value) && value.data !== undefined) {
		const data = asBytes(value.data);
		if (!data) throw inputError('attachment', 'data must be a Buffer');
		const filename = String(value.filename ?? name ?? 'attachment');
		return { binary: { data, filename, mimeType: (value.mimeType ?? value.contentType ?? guessMimeType(filename)) as string | undefined } };
	}
	if (typeof value === 'string') {
		const url = value.trim();
		if (isHttpUrl(url)) return { url, filename: name, contentType: guessMimeType(name) };
	}
	throw inputError('attachment', 'must be a Buffer, {data, filename, mimeType} or an http(s) URL');
}

function summarize(op: OperationDescriptor, result: unknown): string {
	if (Array.isArray(result)) return `${result.length} item${result.length === 1 ? '' : 's'}`;
	if (isPlainObject(result)) {
		if (result.data instanceof Uint8Array) return `${result.data.length} bytes`;
		if (typeof result.message_uid === 'string')
			return isPlainObject(result.message) ? `${String(result.message.status)} ${result.message_uid}` : `queued ${result.message_uid}`;
		if (result.id !== undefined) return `${op.name.toLowerCase()} ${String(result.id)}`;
		if (result.uid !== undefined) return `${op.name.toLowerCase()} ${String(result.uid)}`;
	}
	return op.name.toLowerCase();
}

/** One msg per item, with `parts` so a Join node can put the list back together. */
function splitMessages(RED: NodeAPI, msg: NodeMessage, items: unknown[]): NodeMessage[] {
	const id = RED.util.generateId();
	return items.map((item, index) => {
		const out = RED.util.cloneMessage(msg);
		out.payload = item;
		const parts: Record<string, unknown> = { id, index, count: items.length, type: 'array', len: 1 };
		if (msg.parts !== undefined) parts.parts = msg.parts;
		out.parts = parts;
		return out;
	});
}

/**
 * Send and wait for reply, the core's composite `message:sendAndWaitForReply` (the send this node's
 * settings describe, then the wait): the send's result leaves on output 1 as soon as it is known; then
 * the customer's next message in that chat leaves on output 2 (msg.payload the reply as an event,
 * msg.sent the send's result), or, after the time-out, msg.payload {timedOut, waitedMs, chat_id,
 * message_uid} on output 3.
 */
async function sendAndAwaitReply(
	RED: NodeAPI,
	node: NodeInstance,
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
 * The reply time-out of a node, in seconds. New nodes start at the core's default (an hour, as in
 * n8n); a node saved without the property (before it started at an hour, or written by hand) keeps
 * the 300 s such flows always had.
 */
export function replyTimeoutOf(definition: NodeDefinition): number {
	const fallback = REPLY_TIMEOUT_OF_FLOWS_SAVED_WITHOUT_IT_S;
	return Math.max(1, Number(definition.replyTimeout ?? fallback) || fallback);
}

/**
 * The Output choice of a node (Simplified / Raw / Selected Fields, for operations that return records).
 * A node saved before the choice existed holds no `output` and keeps the whole records it always gave
 * (the core's OUTPUT_WHEN_UNSET); new nodes start at the core's DEFAULT_OUTPUT (the editor's default).
 */
export function outputChoiceOf(definition: NodeDefinition): OutputChoice {
	const mode =
		definition.output === undefined || definition.output === null || definition.output === '' ? OUTPUT_WHEN_UNSET : definition.output;
	return { mode: String(mode), fields: String(definition.outputFields ?? '') };
}

/** The choice's problem as an input error naming the node property at fault, or nothing. */
function outputChoiceError(choice: OutputChoice) {
	const problem = outputChoiceProblem(choice);
	if (!problem) return undefined;
	return problem.part === 'mode' ? inputError('output', problem.message, 'Output') : inputError('outputFields', problem.message, 'Fields');
}

export function registerActionNode(RED: NodeAPI): void {
	RED.nodes.registerType(ACTION_TYPE, function (this: NodeInstance, definition: NodeDefinition) {
		RED.nodes.createNode(this, definition);
		setUpActionNode(RED, this, definition);
	});
}

function setUpActionNode(RED: NodeAPI, node: NodeInstance, definition: NodeDefinition): void {
	const opId = `${String(definition.resource ?? '')}:${String(definition.operation ?? '')}`;
	const fields = (isPlainObject(definition.fields) ? definition.fields : {}) as Record<string, TypedValue>;
	const outputMode = definition.outputMode === 'split' ? 'split' : 'array';
	// Off unless the user turned it on (flows saved before the option existed included).
	const fillFromPayload = definition.payloadFields === true || definition.payloadFields === 'true';
	// The editor stores both; a flow written by hand without them gets the catalogue's defaults, as n8n does.
	const returnAll =
		definition.returnAll === undefined ? LIST_DEFAULTS.returnAll : definition.returnAll === true || definition.returnAll === 'true';
	const limit = Number(definition.limit ?? LIST_DEFAULTS.limit);
	const attachmentSetting = (isPlainObject(definition.attachment) ? definition.attachment : undefined) as TypedValue | undefined;
	const attachmentName = String(definition.attachmentName ?? '');
	const waitFor = String(definition.waitFor ?? '');
	const waitTimeoutMs = Math.max(1, Number(definition.waitTimeout ?? DEFAULT_WAIT_TIMEOUT_S) || DEFAULT_WAIT_TIMEOUT_S) * 1000;
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
	node.on('close', (_removed, done) => {
		closing = true;
		for (const wake of [...wakeUps]) wake();
		done();
	});

	let op: OperationDescriptor | undefined;
	let opProblem = `unknown operation "${opId}": choose a resource and an operation`;
	try {
		// "Send" (the composite, with Send To) reads the fields of the send its choice names.
		op = opId === operationId(SEND_COMPOSITE) ? sendOperation(String(definition.sendTo ?? DEFAULT_SEND_TO)) : findOperation(opId);
	} catch {
		if (opId === operationId(SEND_COMPOSITE)) {
			opProblem = `unknown Send To "${String(definition.sendTo)}": use one of ${SEND_TARGETS.map((target) => target.value).join(', ')}`;
			node.status({ fill: 'red', shape: 'ring', text: `unknown Send To ${String(definition.sendTo)}` });
		} else node.status({ fill: 'red', shape: 'ring', text: `unknown operation ${opId}` });
	}
	// Said at deploy, not at the first message: a configuration deployed without its token cannot work.
	const config = typeof definition.config === 'string' && definition.config ? RED.nodes.getNode(definition.config) : null;
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

	node.on('input', async (msg, send, done) => {
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
	});
}
