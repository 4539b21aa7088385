/**
 * How a failed call reaches Node-RED: `done(err)` hands the error to Catch nodes, which get a copy
 * of the input msg with `msg.error = {message, source, code?, stack?, cause?}` — Node-RED copies only
 * those members of the Error (Flow.handleError). So `code` carries the error code, `cause` the details,
 * and the details also go onto the msg itself before `done(err)`: `msg.error_code`, `msg.http_status`
 * and `msg.chatMessagingError` (the error's plain data, which never holds the token).
 */
import { ChatMessagingError } from '@chat-messaging/core';
import type { NodeMessage } from 'node-red';

export interface NodeError extends Error {
	/** Copied by Node-RED to `msg.error.code` in Catch nodes: the service's error_code, else the failure kind. */
	code: string;
	error_code?: string;
	http_status?: number;
	details: Record<string, unknown>;
}

/** Any failure as a ChatMessagingError (evaluation errors of a property become input errors of that field). */
export function asChatMessagingError(error: unknown, field?: string, label?: string): ChatMessagingError {
	if (error instanceof ChatMessagingError) return error;
	// JSONata throws plain objects with a message, not Errors.
	const described = error as { message?: unknown } | null;
	const message = typeof described?.message === 'string' ? described.message : String(error);
	return new ChatMessagingError(field ? `${label ?? field}: ${message}` : message, { kind: 'input', field });
}

export function toNodeError(error: ChatMessagingError): NodeError {
	const nodeError = new Error(error.message) as NodeError;
	nodeError.name = 'ChatMessagingError';
	nodeError.code = error.errorCode ?? error.networkCode ?? error.kind;
	if (error.errorCode !== undefined) nodeError.error_code = error.errorCode;
	if (error.httpStatus !== undefined) nodeError.http_status = error.httpStatus;
	nodeError.details = error.toJSON();
	// Node-RED 4.1+ copies an Error's own `cause` to `msg.error.cause`: Catch nodes see every detail there too.
	nodeError.cause = nodeError.details;
	// Catch nodes get `msg.error.message = err.toString()`: make that the service's message alone, not "Name: message".
	Object.defineProperty(nodeError, 'toString', { value: () => error.message, enumerable: false });
	return nodeError;
}

/** Puts the error's details where a Catch node (which receives a copy of this msg) can read them. */
export function annotateMessage(msg: NodeMessage, error: ChatMessagingError): void {
	msg.error_code = error.errorCode ?? error.networkCode ?? error.kind;
	if (error.httpStatus !== undefined) msg.http_status = error.httpStatus;
	else delete msg.http_status;
	msg.chatMessagingError = error.toJSON();
}

/** Short status-bar text for an error. */
export function errorStatusText(error: ChatMessagingError): string {
	const code = error.errorCode ?? error.networkCode ?? (error.kind === 'input' ? `invalid ${error.field ?? 'input'}` : error.kind);
	return error.httpStatus ? `${error.httpStatus} ${code}` : code;
}
