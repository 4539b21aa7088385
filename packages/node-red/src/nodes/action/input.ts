/**
 * How the action node reads its input: every field a typedInput (`fields[<wire name>] = {value, type}`), evaluated
 * against the msg; an empty field filled from msg.payload only with the node option `payloadFields` on; bytes and
 * attachments in the shapes a flow hands them over.
 */
import {
	changesTarget,
	inputError,
	isBlank,
	isHttpUrl,
	type Attachment,
	type BinaryInput,
	type FieldDescriptor,
	type OperationDescriptor,
} from '@chat-messaging/core';
import { asChatMessagingError } from '../../shared/errors';
import type { Node, NodeAPI, NodeMessage } from 'node-red';

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

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
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
export function evaluateTyped(RED: NodeAPI, node: Node, msg: NodeMessage, typed: TypedValue | undefined): Promise<unknown> {
	const type = typed?.type || 'str';
	const value = typed?.value ?? '';
	if (value === '' && type !== 'date') return Promise.resolve(undefined);
	return new Promise((resolve, reject) => {
		try {
			RED.util.evaluateNodeProperty(value as string, type, node, msg, (error, result) => (error ? reject(error) : resolve(result)));
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
export async function collectInput(
	RED: NodeAPI,
	node: Node,
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
