/**
 * `chat-messaging`: runs any catalogue operation. Every field is a typedInput stored as
 * `fields[<wire name>] = {value, type}` (a msg property is one of its types). Nothing is read from the
 * msg unless the user chose it: with the node option `payloadFields` on, a field left empty is filled
 * from `msg.payload[<wire name>]`, except the target ids of a destructive operation. The result
 * replaces msg.payload (other msg properties are kept).
 */
import {
	DEFAULT_WAIT_TIMEOUT_S,
	findOperation,
	inputError,
	internalError,
	isBlank,
	LIST_DEFAULTS,
	operationId,
	WAIT_TARGETS,
	type Attachment,
	type BinaryInput,
	type DownloadedFile,
	type FieldDescriptor,
	type OperationDescriptor,
	type WaitTarget,
} from '../api';
import { resolveConfig } from './config';
import { annotateMessage, asChatMessagingError, errorStatusText, toNodeError } from './errors';
import type { NodeAPI, NodeDefinition, NodeInstance, NodeMessage } from './types';

export const ACTION_TYPE = 'chat-messaging';

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

/** Whether an empty field may be filled from msg.payload: never the target id of a destructive operation. */
const fillableFromPayload = (op: OperationDescriptor, field: FieldDescriptor): boolean => !(op.destructive && field.in === 'path');

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
		if (/^https?:\/\/\S+$/i.test(url)) return { url, filename: name, contentType: guessMimeType(name) };
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

	let op: OperationDescriptor | undefined;
	try {
		op = findOperation(opId);
	} catch {
		node.status({ fill: 'red', shape: 'ring', text: `unknown operation ${opId}` });
	}

	node.on('input', async (msg, send, done) => {
		try {
			if (!op) throw inputError('operation', `unknown operation "${opId}": choose a resource and an operation`);
			if (waitFor && !(WAIT_TARGETS as readonly string[]).includes(waitFor))
				throw inputError('waitFor', `must be sent, delivered or read, got "${waitFor}"`);
			const executor = resolveConfig(RED, definition.config).getExecutor();
			const input = await collectInput(RED, node, msg, op, fields, fillFromPayload);
			node.status({ fill: 'blue', shape: 'dot', text: 'requesting' });

			let result: unknown;
			if (op.sendsMessage) {
				let attachmentValue: unknown;
				try {
					attachmentValue = await evaluateTyped(RED, node, msg, attachmentSetting);
				} catch (error) {
					throw asChatMessagingError(error, 'attachment');
				}
				result = await executor.sendAndWait(operationId(op), input, {
					attachment: toAttachment(attachmentValue, attachmentName),
					waitFor: waitFor ? (waitFor as WaitTarget) : undefined,
					timeoutMs: waitTimeoutMs,
					onWaiting: (target) => node.status({ fill: 'blue', shape: 'ring', text: `waiting for ${target}` }),
				});
			} else {
				result = await executor.run(op, input, op.pagination ? { returnAll, limit } : {});
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
		}
	});
}
