/**
 * Input validation and coercion: turns the caller's flat input (keyed by wire name) into the parts
 * of an HTTP request, or throws an input error naming the field, before anything is sent.
 */
import { ChatMessagingError, inputError } from './errors';
import { FIELD_KINDS, isHttpUrl, matchesKind, receiverUrlProblem, TRI_STATE_ANY } from '../catalogue/fields';
import type { BinaryInput, FieldDescriptor, OperationDescriptor } from '../catalogue/types';
import { toUtcText, wallTimeToUtc } from './timeZone';

/**
 * RFC 3339 / ISO 8601 (`T`, `t` or a space between date and time; seconds and fractions optional), the
 * spec's own `YYYY-MM-DD HH:MM:SS ±ZZZZ` (so a record's timestamp can be fed back), or a date alone.
 * Groups: year, month, day, hour, minute, second, fraction, zone.
 */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)? ?([Zz]|[+-]\d{2}:?\d{2})?)?$/;

/** Rules that depend on where the input comes from. */
export interface ValidationContext {
	/**
	 * IANA zone for date-times written without one (n8n's date picker gives local wall time in the
	 * workflow's zone) and for a date alone (its midnight there). Without it wall times are refused (the
	 * service would read them in its own zone) and a date alone is midnight UTC.
	 */
	timeZone?: string;
	/**
	 * The service's base URL, for the receiver-URL rule: a service on this machine (the sandbox) posts to
	 * any https address and to plain http on this machine, the public one only to public HTTPS. Without it the
	 * service is taken to be public.
	 */
	serviceUrl?: string;
}

export interface PreparedRequest {
	/** Path with its placeholders filled and encoded. */
	path: string;
	query: Record<string, string>;
	/** JSON body members, when the operation has body fields or a fixed body. */
	body?: Record<string, unknown>;
	/** Multipart parts, when the operation uploads bytes. */
	multipart?: Record<string, string | BinaryInput>;
}

/** An input error naming the field by its label, with its wire name in `.field`. */
const fieldError = (field: FieldDescriptor, message: string): ChatMessagingError => inputError(field.name, message, field.displayName);

/** Not given: undefined, null or an empty string. */
export const isBlank = (value: unknown): boolean => value === undefined || value === null || value === '';

/** A JSON object (not an array, not null). */
export const isRecord = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);

function describe(value: unknown): string {
	if (typeof value === 'string') return `"${value.length > 60 ? `${value.slice(0, 57)}...` : value}"`;
	if (value instanceof Uint8Array) return `${value.constructor.name}(${value.length})`;
	try {
		return JSON.stringify(value) ?? String(value);
	} catch {
		return String(value);
	}
}

function asText(field: FieldDescriptor, value: unknown): string {
	if (typeof value === 'string') return value;
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	throw fieldError(field, `must be a string, got ${describe(value)}`);
}

/** The trimmed text of a value of a kind with a pattern (phone, JID, email …), checked by its kind's rule. */
function asPatternText(field: FieldDescriptor, value: unknown): string {
	const text = asText(field, value).trim();
	const rule = FIELD_KINDS[field.kind];
	if (!matchesKind(field.kind, text)) throw fieldError(field, `${rule.message}, got ${describe(value)}`);
	return text;
}

/** The service's size limits (service notes): images, audio and video 16 MB; documents 100 MB. */
const MB = 1024 * 1024;
const MEDIA_LIMIT = 16 * MB;
const DOCUMENT_LIMIT = 100 * MB;

function asBinary(field: FieldDescriptor, value: unknown): BinaryInput {
	const record = value as Partial<BinaryInput> | null;
	if (!record || typeof record !== 'object' || !(record.data instanceof Uint8Array)) {
		throw fieldError(field, FIELD_KINDS.binary.message);
	}
	if (!record.filename) throw fieldError(field, 'needs a file name');
	const media = /^(image|audio|video)\//i.test(record.mimeType ?? '');
	const limit = media ? MEDIA_LIMIT : DOCUMENT_LIMIT;
	if (record.data.length > limit) {
		throw fieldError(
			field,
			`is ${(record.data.length / MB).toFixed(1)} MB; the service takes ${media ? 'images, audio and video' : 'documents'} up to ${limit / MB} MB`,
		);
	}
	return { data: record.data, filename: record.filename, mimeType: record.mimeType };
}

/**
 * A strict date-time (see DATE_TIME), a JS Date, or a wall time in `context.timeZone`; sent as
 * RFC 3339 UTC. Years outside 1970-9999 and impossible dates ("2026-02-30") are refused.
 */
function asDateTime(field: FieldDescriptor, value: unknown, context: ValidationContext): string {
	const expected = FIELD_KINDS.dateTime.message;
	if (value instanceof Date) {
		if (Number.isNaN(value.getTime())) throw fieldError(field, `${expected}, got an invalid Date`);
		value = value.toISOString();
	}
	const text = asText(field, value).trim();
	const match = DATE_TIME.exec(text);
	if (!match) throw fieldError(field, `${expected}, got ${describe(value)}`);
	const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', zone] = match;
	if (+year < 1970 || +year > 9999) throw fieldError(field, `must be in the years 1970 to 9999, got ${describe(value)}`);
	const wall = Date.UTC(+year, +month - 1, +day, +hour, +minute, +second, Math.floor(Number(`0.${fraction || '0'}`) * 1000));
	const date = new Date(wall);
	const exact =
		date.getUTCFullYear() === +year &&
		date.getUTCMonth() === +month - 1 &&
		date.getUTCDate() === +day &&
		+hour < 24 &&
		+minute < 60 &&
		+second < 60;
	if (!exact) throw fieldError(field, `is not a real date and time: ${describe(value)}`);
	if (zone === undefined) {
		// A date alone is midnight where the user is: in the platform's zone (the workflow's, the
		// configuration node's); only without one (the client) in UTC.
		if (match[4] === undefined && !context.timeZone) return toUtcText(wall);
		// A wall time without a zone means something only in the platform's zone.
		if (!context.timeZone) throw fieldError(field, `${expected} (add Z or an offset such as +01:00), got ${describe(value)}`);
		return toUtcText(wallTimeToUtc(wall, context.timeZone));
	}
	if (zone === 'Z' || zone === 'z') return toUtcText(wall);
	const [sign, zoneHours, zoneMinutes] = [zone[0], zone.slice(1, 3), zone.slice(-2)]; // ±HH:MM or ±HHMM
	if (+zoneHours > 23 || +zoneMinutes > 59) throw fieldError(field, `has an impossible time-zone offset: ${describe(value)}`);
	const offset = (sign === '-' ? -1 : 1) * (+zoneHours * 60 + +zoneMinutes) * 60_000;
	return toUtcText(wall - offset);
}

/** Coerces one given (non-blank) value to what the wire takes, or throws naming the field. */
export function coerceField(field: FieldDescriptor, value: unknown, context: ValidationContext = {}): unknown {
	switch (field.kind) {
		case 'string':
		case 'text': {
			const text = asText(field, value);
			if (field.pattern && !field.pattern.test(text.trim()))
				throw fieldError(field, `${field.patternMessage ?? 'has the wrong form'}, got ${describe(value)}`);
			return field.pattern ? text.trim() : text;
		}
		case 'integer': {
			const number = typeof value === 'string' && matchesKind('integer', value.trim()) ? Number(value.trim()) : value;
			if (typeof number !== 'number' || !Number.isInteger(number))
				throw fieldError(field, `${FIELD_KINDS.integer.message}, got ${describe(value)}`);
			// Beyond 2^53 a number is no longer exact: "9007199254740993" would go out as another id.
			if (!Number.isSafeInteger(number)) throw fieldError(field, `is too large to be exact, got ${describe(value)}`);
			if (field.min !== undefined && number < field.min) throw fieldError(field, `must be at least ${field.min}, got ${number}`);
			if (field.max !== undefined && number > field.max) throw fieldError(field, `must be at most ${field.max}, got ${number}`);
			return number;
		}
		case 'boolean':
			if (typeof value === 'boolean') return value;
			if (value === 'true' || value === 'false') return value === 'true';
			throw fieldError(field, `${FIELD_KINDS.boolean.message}, got ${describe(value)}`);
		case 'dateTime':
			return asDateTime(field, value, context);
		case 'phone':
		case 'phoneFilter':
		case 'jid':
		case 'wid':
		case 'email':
			return asPatternText(field, value);
		case 'url': {
			const text = asText(field, value).trim();
			if (!isHttpUrl(text)) throw fieldError(field, `${FIELD_KINDS.url.message}, got ${describe(value)}`);
			return text;
		}
		case 'receiverUrl': {
			const text = asText(field, value).trim();
			const problem = receiverUrlProblem(text, context.serviceUrl);
			if (problem) throw fieldError(field, `${FIELD_KINDS.receiverUrl.message}: ${describe(text)} ${problem}`);
			return text;
		}
		case 'options': {
			const text = asText(field, value).trim().toLowerCase();
			const option = field.options?.find((candidate) => candidate.value.toLowerCase() === text);
			if (!option) throw fieldError(field, `must be one of ${field.options?.map((o) => o.value).join(', ')}, got ${describe(value)}`);
			return option.value;
		}
		case 'stringList': {
			const items = typeof value === 'string' ? value.split(',') : value;
			if (!Array.isArray(items)) throw fieldError(field, `${FIELD_KINDS.stringList.message}, got ${describe(value)}`);
			const list = items.map((item, index) => {
				if (typeof item !== 'string' && typeof item !== 'number')
					throw inputError(`${field.name}[${index}]`, `must be a string, got ${describe(item)}`, `${field.displayName} [${index}]`);
				return String(item).trim();
			});
			return list.filter((item) => item !== '');
		}
		case 'binary':
			return asBinary(field, value);
	}
}

/** Fills `{name}` placeholders of a path, encoding each value. */
function fillPath(path: string, values: Record<string, unknown>): string {
	return path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(values[name])));
}

/**
 * Validates `input` against the operation's fields and builds the request parts. Unknown input keys
 * are ignored, so a whole msg.payload or item JSON can be passed; blank optional values are "not given".
 */
export function prepareRequest(op: OperationDescriptor, input: Record<string, unknown>, context: ValidationContext = {}): PreparedRequest {
	const pathValues: Record<string, unknown> = {};
	const query: Record<string, string> = {};
	const body: Record<string, unknown> = { ...op.fixedBody };
	const multipart: Record<string, string | BinaryInput> = {};

	for (const field of op.fields) {
		let value = input[field.name];
		if (typeof value === 'string' && value !== '' && value.trim() === '') {
			// Whitespace alone is no value; where an empty string means something (unassign), it must be said so.
			if (field.allowEmpty) throw fieldError(field, 'is only whitespace: give a value, or an empty string to clear it');
			value = '';
		}
		// A tri-state filter's "Any" is no filter at all.
		if (field.triState && typeof value === 'string' && value.trim().toLowerCase() === TRI_STATE_ANY) value = undefined;
		const keepEmpty = value === '' && field.allowEmpty;
		if (isBlank(value) && !keepEmpty) {
			if (field.sendDefault && field.default !== undefined) value = field.default;
			else if (field.required) throw fieldError(field, field.requiredMessage ?? 'is required');
			else continue;
		}
		// An allowed empty string stays empty ("" unassigns); an empty list stays an empty list.
		const coerced = value === '' && field.allowEmpty && field.kind !== 'stringList' ? '' : coerceField(field, value, context);
		if (field.kind === 'stringList' && field.required && !field.allowEmpty && (coerced as string[]).length === 0) {
			throw fieldError(field, field.requiredMessage ?? 'needs at least one value');
		}
		switch (field.in) {
			case 'path': {
				const segment = typeof coerced === 'string' ? coerced.trim() : coerced;
				// "." and ".." would be resolved away by URL rules: PUT /messages/../reactions goes out as PUT /reactions.
				if (segment === '.' || segment === '..') throw fieldError(field, `is not a valid ${field.displayName}, got ${describe(coerced)}`);
				pathValues[field.name] = segment;
				break;
			}
			case 'query':
				if (Array.isArray(coerced)) {
					if (coerced.length) query[field.name] = coerced.join(',');
				} else query[field.name] = String(coerced);
				break;
			case 'body':
				body[field.name] = coerced;
				break;
			case 'multipart':
				multipart[field.name] = typeof coerced === 'object' ? (coerced as BinaryInput) : String(coerced);
				break;
		}
	}

	if (op.requireOneOf && !op.requireOneOf.some((name) => !isBlank(body[name]))) {
		const labels = op.requireOneOf.map((name) => op.fields.find((field) => field.name === name)?.displayName ?? name);
		throw inputError(op.requireOneOf.join(' or '), `give at least one of ${labels.join(', ')}`, labels.join(' or '));
	}

	if (op.requiresChange && !op.fields.some((field) => field.in === 'body' && field.name in body)) {
		const names = op.fields.filter((field) => field.in === 'body').map((field) => field.displayName);
		throw new ChatMessagingError(
			`${op.action} (${op.resource}:${op.operation}) needs at least one change: ${names.slice(0, -1).join(', ')} or ${names.at(-1)}`,
			{ kind: 'input', operation: `${op.resource}:${op.operation}` },
		);
	}

	const usesBody = op.fields.some((f) => f.in === 'body') || op.fixedBody !== undefined;
	const usesMultipart = op.fields.some((f) => f.in === 'multipart');
	return {
		path: fillPath(op.path, pathValues),
		query,
		body: usesBody ? body : undefined,
		multipart: usesMultipart ? multipart : undefined,
	};
}
