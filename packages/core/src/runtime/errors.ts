/**
 * One error type for everything that can go wrong with a call, so both platforms map it the same
 * way: the node shows `message`, Catch nodes and "Continue On Fail" items carry the rest.
 */

export interface ValidationItem {
	/** Path of the offending field from the request root (keys and indexes). */
	fields: Array<string | number>;
	msg: string;
}

/**
 * - `input`: rejected before any request was sent (names the field).
 * - `service`: the service answered with an error status or an `{status: "error"}` body.
 * - `network`: no response arrived (refused, reset, timed out).
 * - `timeout`: waiting for a message status ran out of time.
 * - `internal`: the node's own code failed (a bug to report), not the input and not the service.
 */
export type ErrorKind = 'input' | 'service' | 'network' | 'timeout' | 'internal';

export interface ChatMessagingErrorDetails {
	kind: ErrorKind;
	httpStatus?: number;
	errorCode?: string;
	errors?: ValidationItem[];
	/** Input field at fault (input errors). */
	field?: string;
	/**
	 * The words the message names the field by, as the editors label it ("Chat ID"), kept apart so an adapter that
	 * knows the field by another name (an MCP tool's argument, chat_id) can tell the rest of the message on its own.
	 */
	label?: string;
	/** `resource:operation` that failed. */
	operation?: string;
	/** Transport error code, e.g. ECONNREFUSED (network errors). */
	networkCode?: string;
	/** Raw response body when it was not the service's JSON (an HTML error page, truncated). */
	responseText?: string;
	/** A create whose answer was lost (5xx, reset, time-out after sending): the service may have acted on it. */
	mayHaveTakenEffect?: boolean;
	/** The answer was the service's own JSON error body (`status: "error"` and a `message`), not some other page. */
	serviceBody?: boolean;
}

/** Every detail an error carries, in one list: copying, redacting and rewording an error keep them all. */
const DETAIL_KEYS = [
	'kind',
	'httpStatus',
	'errorCode',
	'errors',
	'field',
	'label',
	'operation',
	'networkCode',
	'responseText',
	'mayHaveTakenEffect',
	'serviceBody',
] as const satisfies ReadonlyArray<keyof ChatMessagingErrorDetails>;

export class ChatMessagingError extends Error {
	readonly kind!: ErrorKind;
	readonly httpStatus?: number;
	readonly errorCode?: string;
	readonly errors?: ValidationItem[];
	readonly field?: string;
	readonly label?: string;
	readonly operation?: string;
	readonly networkCode?: string;
	readonly responseText?: string;
	readonly mayHaveTakenEffect?: boolean;
	readonly serviceBody?: boolean;

	constructor(message: string, details: ChatMessagingErrorDetails) {
		super(message);
		this.name = 'ChatMessagingError';
		for (const key of DETAIL_KEYS) if (details[key] !== undefined) Object.assign(this, { [key]: details[key] });
	}

	/** Its details as given to the constructor. */
	get details(): ChatMessagingErrorDetails {
		const out: Record<string, unknown> = {};
		for (const key of DETAIL_KEYS) if (this[key] !== undefined) out[key] = this[key];
		return out as unknown as ChatMessagingErrorDetails;
	}

	/** The same error told another way: a new message, some details changed, every other detail kept. */
	with(message: string, changes: Partial<ChatMessagingErrorDetails> = {}): ChatMessagingError {
		// Another field is named by other words: the old label does not go with it.
		const label = 'field' in changes && !('label' in changes) ? { label: undefined } : {};
		return new ChatMessagingError(message, { ...this.details, ...label, ...changes });
	}

	/** Plain data for error items and msg.error: never holds request headers, so never the token. */
	toJSON(): Record<string, unknown> {
		const out: Record<string, unknown> = { message: this.message, kind: this.kind };
		for (const key of ['httpStatus', 'errorCode', 'errors', 'field', 'operation', 'networkCode', 'mayHaveTakenEffect'] as const) {
			if (this[key] !== undefined) out[key] = this[key];
		}
		return out;
	}
}

/**
 * An input error that names the field, raised before anything is sent. The message names it as the
 * editors label it ("Chat ID"), when known; `.field` keeps the wire name (`chat_id`) for code.
 */
export const inputError = (field: string, message: string, label?: string): ChatMessagingError =>
	new ChatMessagingError(`${label ?? field}: ${message}`, { kind: 'input', field, label: label ?? field });

/** What a value is, without its contents (which may be large or private). */
export function describeShape(value: unknown): string {
	if (value === null || value === undefined) return 'no data';
	if (Array.isArray(value)) return `an array of ${value.length}`;
	if (typeof value === 'object') {
		const keys = Object.keys(value);
		return keys.length ? `an object with ${keys.slice(0, 8).join(', ')}${keys.length > 8 ? ', …' : ''}` : 'an empty object';
	}
	return `a ${typeof value}`;
}

/**
 * A success answer in a shape the client does not know: an error naming what came back, never
 * read as "nothing" (for GET /webhooks that would add subscriptions on every activation).
 */
export const unexpectedResponse = (request: string, expected: string, data: unknown, operation?: string): ChatMessagingError =>
	new ChatMessagingError(`The service answered ${request} without ${expected}; it sent ${describeShape(data)}`, {
		kind: 'service',
		errorCode: 'unexpected_response',
		operation,
	});

/** Secrets shorter than this are not searched for (they would match ordinary words). */
const MIN_SECRET_LENGTH = 8;

/** The text with every secret replaced by `<redacted>`. */
export function redactText(text: string, secrets: readonly string[]): string {
	let out = text;
	for (const secret of secrets) if (secret.length >= MIN_SECRET_LENGTH) out = out.split(secret).join('<redacted>');
	return out;
}

/**
 * The error with every secret removed from what it shows (message, raw response text, validation
 * messages): a server may echo the Authorization header, and a user may paste the token into another
 * field. Applied before any error leaves the executor.
 */
export function redactError(error: unknown, secrets: readonly string[]): unknown {
	if (!secrets.some((secret) => secret.length >= MIN_SECRET_LENGTH)) return error;
	if (!(error instanceof ChatMessagingError)) {
		if (error instanceof Error) error.message = redactText(error.message, secrets);
		return error;
	}
	const clean = error.with(redactText(error.message, secrets), {
		errors: error.errors?.map((item) => ({
			fields: item.fields.map((f) => (typeof f === 'string' ? redactText(f, secrets) : f)),
			msg: redactText(String(item.msg), secrets),
		})),
		responseText: error.responseText === undefined ? undefined : redactText(error.responseText, secrets),
	});
	clean.stack = error.stack === undefined ? undefined : redactText(error.stack, secrets);
	return clean;
}

/** Anything thrown that is not a ChatMessagingError: the node's own failure, reported as such. */
export function internalError(error: unknown, operation?: string): ChatMessagingError {
	if (error instanceof ChatMessagingError) return error;
	const message = error instanceof Error ? error.message : String(error);
	return new ChatMessagingError(`Internal error in the Chat Messaging node (please report it): ${message}`, {
		kind: 'internal',
		operation,
	});
}

/**
 * A service 404 told by the ids the request named — `chat_id 42: not found (Chat not found)` rather than the bare
 * "Chat not found" — since which of the records a workflow or an agent named is missing is what it acts on. Only
 * the service's own "not found" answer (an `error_code` such as `member_not_found` is about something else) and
 * only ids the path held; every detail is kept, only the message says more.
 */
export function notFoundNamingIds(
	error: ChatMessagingError,
	ids: ReadonlyArray<readonly [name: string, value: string]>,
): ChatMessagingError {
	if (error.httpStatus !== 404 || !error.serviceBody || error.errorCode || !ids.length) return error;
	return error.with(`${ids.map(([name, value]) => `${name} ${value}`).join(', ')}: not found (${error.message})`);
}

/** Whether the service answered 404: the resource does not exist (any more). */
export const isNotFound = (error: unknown): boolean => error instanceof ChatMessagingError && error.httpStatus === 404;

/**
 * What a transport throws when no response arrived. `requestSent: false` promises the service
 * cannot have seen the request (connection refused, DNS failure), which makes even a send safe to retry.
 */
export class TransportFailure extends Error {
	constructor(
		message: string,
		readonly code: string,
		readonly requestSent: boolean,
	) {
		super(message);
		this.name = 'TransportFailure';
	}
}

/** Error codes that prove the request never left this machine. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ERR_INVALID_URL']);

/**
 * Classifies an error thrown by an HTTP library (axios, n8n's helper, Node's fetch) by its `code` (fetch puts it
 * in `cause`; its time-out is a TimeoutError without one): the one rule every transport uses to tell whether a
 * failed request may have reached the service.
 */
export function toTransportFailure(error: unknown): TransportFailure {
	if (error instanceof TransportFailure) return error;
	const record = (error ?? {}) as { code?: unknown; message?: unknown; name?: unknown; cause?: { code?: unknown } };
	// A DOMException's numeric `code` (23 for a time-out) is not a network code.
	const own = typeof record.code === 'string' ? record.code : undefined;
	const code = String(own ?? record.cause?.code ?? (record.name === 'TimeoutError' ? 'ETIMEDOUT' : 'ENETWORK'));
	const message = typeof record.message === 'string' ? record.message : String(error);
	return new TransportFailure(message, code, !NOT_SENT_CODES.has(code));
}

const STATUS_TEXT: Record<number, string> = {
	400: 'Bad request',
	401: 'Unauthorized: the API token is missing or invalid',
	403: 'Access denied',
	404: 'Not found',
	429: 'Too many requests',
	500: 'Internal server error',
	502: 'Bad gateway',
	503: 'Service unavailable',
	504: 'Gateway time-out',
};

/** Turns an error response (JSON error body or any other page) into a ChatMessagingError. */
export function serviceError(status: number, body: unknown, operation?: string): ChatMessagingError {
	if (body && typeof body === 'object' && !Array.isArray(body)) {
		const record = body as { status?: unknown; message?: unknown; error_code?: unknown; errors?: unknown };
		const errors = Array.isArray(record.errors) ? (record.errors as ValidationItem[]) : undefined;
		const base = typeof record.message === 'string' && record.message ? record.message : (STATUS_TEXT[status] ?? `HTTP ${status}`);
		const detail = errors?.length ? ` (${errors.map((item) => `${(item.fields ?? []).join('.')}: ${item.msg}`).join('; ')})` : '';
		return new ChatMessagingError(base + detail, {
			kind: 'service',
			httpStatus: status,
			errorCode: typeof record.error_code === 'string' ? record.error_code : undefined,
			errors,
			operation,
			serviceBody: record.status === 'error' && typeof record.message === 'string',
		});
	}
	const text = typeof body === 'string' ? body.slice(0, 500) : undefined;
	return new ChatMessagingError(`${STATUS_TEXT[status] ?? `HTTP ${status}`} (HTTP ${status}, response was not JSON)`, {
		kind: 'service',
		httpStatus: status,
		operation,
		responseText: text,
	});
}
