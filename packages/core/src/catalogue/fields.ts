/**
 * Builders for the fields that recur across resources, so each resource file reads like the spec's
 * table rather than repeating the same records.
 */
import type { FieldDescriptor, FieldKind, FieldLocation, FieldOption } from './types';

type FieldExtras = Partial<Omit<FieldDescriptor, 'name' | 'displayName' | 'kind' | 'in' | 'description'>>;

export function field(
	location: FieldLocation,
	name: string,
	displayName: string,
	kind: FieldKind,
	description: string,
	extras: FieldExtras = {},
): FieldDescriptor {
	return { name, displayName, kind, in: location, description, ...extras };
}

/** A record's id in the path: required; numeric ids are positive (the wire takes safe integers only). */
export const pathId = (name: string, displayName: string, kind: FieldKind, description: string): FieldDescriptor =>
	field('path', name, displayName, kind, description, { required: true, ...(kind === 'integer' ? { min: 1 } : {}) });

export const chatId: FieldDescriptor = {
	...pathId('chat_id', 'Chat ID', 'integer', 'ID of the chat (the ID field of its chat record)'),
	picker: 'chat',
};
export const messageUid = pathId('message_uid', 'Message UID', 'string', 'UID of the message, as returned when it was sent');
export const fileUid: FieldDescriptor = { ...pathId('uid', 'File UID', 'string', 'UID of the file'), picker: 'file' };
export const webhookId: FieldDescriptor = {
	...pathId('id', 'Webhook ID', 'integer', 'Identifier of the webhook subscription'),
	picker: 'webhook',
};

/** The value of a tri-state filter's "Any" choice: no filter is sent. */
export const TRI_STATE_ANY = 'any';

/** A boolean query filter offered as Any / `whenTrue` / `whenFalse`. */
export const triStateFilter = (
	name: string,
	displayName: string,
	description: string,
	whenTrue: string,
	whenFalse: string,
): FieldDescriptor => field('query', name, displayName, 'boolean', description, { triState: { true: whenTrue, false: whenFalse } });

/**
 * What one kind of field accepts, stated once for every surface: validation checks `pattern` and
 * reports `message`, both editors show `hint` and check `pattern`, the OpenAPI document states
 * `schema` (and `pattern`), and the client's typings give a value the type `clientType`.
 */
export interface FieldKindRule {
	/** What a value's trimmed text must match; editors compile `pattern.source` with `pattern.flags`. */
	pattern?: RegExp;
	/**
	 * The rule in words, shown beside the field before anything runs (n8n's hint, Node-RED's help and
	 * editor check). `{timeZone}` stands for where a date alone is read: the platform says which zone.
	 */
	hint?: string;
	/** The validation error after the field's label when a value breaks the rule (followed by the value given). */
	message: string;
	/** The OpenAPI type and format of a value. */
	schema: { type: 'string' | 'integer' | 'boolean' | 'array'; format?: string };
	/** The TypeScript type of a value in the client's typings (`options` lists its values instead). */
	clientType: string;
}

/** The phone rule: international format, optional `+`, country code (no leading 0), digits only, E.164 length. */
const PHONE_RULE = 'International format with country code, digits only, "+" optional, no spaces, dashes or brackets: +14155550123';

export const FIELD_KINDS: Readonly<Record<FieldKind, FieldKindRule>> = {
	string: { message: 'must be a string', schema: { type: 'string' }, clientType: 'string' },
	text: { message: 'must be a string', schema: { type: 'string' }, clientType: 'string' },
	integer: {
		pattern: /^-?\d+$/,
		hint: 'A whole number',
		message: 'must be a whole number',
		schema: { type: 'integer' },
		clientType: 'number | string',
	},
	boolean: {
		hint: 'True or false',
		message: 'must be true or false',
		schema: { type: 'boolean' },
		clientType: "boolean | 'true' | 'false'",
	},
	dateTime: {
		hint: 'A date-time with a time zone, e.g. 2026-01-31T09:00:00Z, or a date such as 2026-01-31: a date alone means midnight in {timeZone}',
		message: 'must be a date-time with a time zone such as 2026-01-31T09:00:00Z or 2026-01-31 10:00:00 +0100, or a date such as 2026-01-31',
		schema: { type: 'string', format: 'date-time' },
		clientType: 'string | Date',
	},
	phone: {
		pattern: /^\+?[1-9]\d{6,14}$/,
		hint: PHONE_RULE,
		// The service's own words for this error (spec: `Invalid phone number format`), then the rule.
		message: `Invalid phone number format: ${PHONE_RULE.replace(/^I/, 'i')}`,
		schema: { type: 'string' },
		clientType: 'string',
	},
	phoneFilter: {
		pattern: /^\+?\d{1,15}$/,
		hint: 'Digits with an optional leading +, no spaces, dashes or brackets (part of a number is enough)',
		message: 'must be digits with an optional leading + (no spaces, dashes or brackets)',
		schema: { type: 'string' },
		clientType: 'string',
	},
	jid: {
		pattern: /^[^\s@]+@[^\s@]+$/,
		hint: 'Number or group ID, "@", server: 14155550123@c.us',
		message: 'must look like <id>@<server>, e.g. 14155550123@c.us',
		schema: { type: 'string' },
		clientType: 'string',
	},
	wid: {
		pattern: /^[^\s@]+@[^\s@]+$/,
		hint: 'Account ID as listed under Chat-App Accounts: 14155550123@c.us',
		message: 'must look like <id>@<server>, e.g. 14155550123@c.us',
		schema: { type: 'string' },
		clientType: 'string',
	},
	email: {
		pattern: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
		hint: 'An email address: name@email.com',
		message: 'must be an email address',
		schema: { type: 'string', format: 'email' },
		clientType: 'string',
	},
	url: {
		pattern: /^https?:\/\/[^\s/?#]+[^\s]*$/i,
		hint: 'An http(s) URL: https://example.com/file.pdf',
		message: 'must be an http(s) URL',
		schema: { type: 'string', format: 'uri' },
		clientType: 'string',
	},
	receiverUrl: {
		// The shape an editor can check (any https address, plain http on this machine for the sandbox); whether
		// the service can post there needs the service's address too (receiverUrlProblem).
		pattern: /^(https:\/\/[^/?#\s]+|http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?([/?#]|$))/,
		hint: 'A public HTTPS address the service can post to (the local sandbox also posts to plain http on 127.0.0.1, localhost or [::1])',
		message: 'must be a public HTTPS address the service can post to',
		schema: { type: 'string', format: 'uri' },
		clientType: 'string',
	},
	options: { message: 'must be one of the listed values', schema: { type: 'string' }, clientType: 'string' },
	stringList: {
		hint: 'Several values separated by commas',
		message: 'must be a list of strings or a comma-separated string',
		schema: { type: 'array' },
		clientType: 'string | string[]',
	},
	binary: {
		message: 'must be file bytes with a file name ({data, filename, mimeType})',
		schema: { type: 'string', format: 'binary' },
		clientType: 'BinaryInput',
	},
};

/** Whether a text matches its kind's pattern (a kind without one takes any text). */
export const matchesKind = (kind: FieldKind, text: string): boolean => FIELD_KINDS[kind].pattern?.test(text) ?? true;

/** Whether a text is an http(s) URL by the `url` kind's rule (and one the platform can parse). */
export function isHttpUrl(text: string): boolean {
	if (!matchesKind('url', text)) return false;
	try {
		new URL(text);
		return true;
	} catch {
		return false;
	}
}

export const page: FieldDescriptor = field(
	'query',
	'page',
	'Page',
	'integer',
	'Page number, starting at 1. Leave empty to let the node page through the results',
	{
		min: 1,
	},
);

export const labelsBody = (description: string): FieldDescriptor =>
	field('body', 'labels', 'Labels', 'stringList', description, { required: true, placeholder: 'vip, follow-up', picker: 'label' });

export const EVENT_TYPES: readonly FieldOption[] = [
	{ value: 'message:received:new', name: 'Message Received', description: 'A new incoming message' },
	{ value: 'message:sent:new', name: 'Message Sent', description: 'A message was sent successfully' },
	{ value: 'chat:created', name: 'Chat Created', description: 'A new chat was created' },
];

/** Body fields every send operation shares after its addressing field. */
export const messageText = field(
	'body',
	'text',
	'Text',
	'text',
	'Message text; line breaks and emojis are allowed. A message needs text, an attachment, or both',
);
export const messageFileUid = field(
	'body',
	'file_uid',
	'File UID',
	'string',
	'UID of a previously uploaded file to attach (costs 2 credits instead of 1)',
	{ picker: 'file' },
);
export const messageLabel = field('body', 'label', 'Label', 'string', 'Label applied to the chat automatically when sending', {
	picker: 'label',
});
export const messageReplyTo = field('body', 'reply_to', 'Reply To', 'string', 'UID of the message this one replies to');

/** Hosts only this machine or its private network can reach: loopback, private and link-local ranges, single-label names. */
export function isPrivateHost(hostname: string): boolean {
	const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
	if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal')) return true;
	if (host.includes(':'))
		return host === '::1' || host === '::' || /^f[cd]/.test(host) || /^fe[89ab]/.test(host) || host.startsWith('::ffff:127.');
	const octets = host.split('.').map(Number);
	if (octets.length === 4 && octets.every((octet) => Number.isInteger(octet) && octet >= 0 && octet <= 255)) {
		const [a, b] = octets;
		return (
			a === 0 ||
			a === 10 ||
			a === 127 ||
			(a === 169 && b === 254) ||
			(a === 172 && b >= 16 && b <= 31) ||
			(a === 192 && b === 168) ||
			(a === 100 && b >= 64 && b <= 127)
		);
	}
	return !host.includes('.');
}

/**
 * The receiver-URL rule, for every place that gives the service an address to post events to (the
 * n8n trigger, the Node-RED event node, Webhook Create / Update): why the service could not post to
 * `receiverUrl`, or undefined when it can. The service posts only to public HTTPS addresses (spec,
 * delivery rule 1). A service on this machine or its network (the sandbox) also reaches private HTTPS
 * addresses, and plain http on this machine only (the kind's pattern, which the API document states too).
 * Without a service address the service is taken to be the public one.
 */
export function receiverUrlProblem(receiverUrl: string, serviceBaseUrl?: string): string | undefined {
	if (!isHttpUrl(receiverUrl)) return 'is not an http(s) URL';
	const receiver = new URL(receiverUrl);
	if (serviceBaseUrl && isHttpUrl(serviceBaseUrl) && isPrivateHost(new URL(serviceBaseUrl).hostname)) {
		return matchesKind('receiverUrl', receiverUrl)
			? undefined
			: 'is plain http away from this machine (http only on 127.0.0.1, localhost or [::1])';
	}
	if (receiver.protocol !== 'https:') return 'is not HTTPS';
	if (isPrivateHost(receiver.hostname)) return 'is on this machine or a private network';
	return undefined;
}

/**
 * The format rule to show beside a field: its own, else the rule of its kind for kinds whose widget
 * does not already say it (a number box, a switch, a list of choices). `timeZone` names where a date
 * alone is read on this platform ("the workflow's time zone").
 */
export function fieldHint(field: FieldDescriptor, timeZone: string): string | undefined {
	if (field.hint) return field.hint;
	if (['integer', 'boolean', 'options'].includes(field.kind)) return undefined;
	return FIELD_KINDS[field.kind].hint?.replace('{timeZone}', timeZone);
}
