import { z } from 'zod';
import { ApiError, type ValidationItem } from './errors';
import { EVENT_TYPES, TEAM_ROLES } from './model';
import { WEBHOOK_PAYLOADS } from './options';
import { parseDateTime } from './time';

/**
 * Request schemas. Bodies are strict: an unknown body field is a validation error, so a client that misspells a
 * field (e.g. `responsible_email` in a PATCH) learns it at once instead of silently getting nothing done. Unknown
 * query parameters are ignored, as on every other path (an OpenAPI document cannot close a query, so a stricter
 * sandbox would refuse what the API's description allows). A string member, when given, holds something: blank
 * text is refused, except where an empty string means something (`responsible: ""` unassigns, `reaction: ""` clears).
 */

export function toValidationItems(error: z.ZodError): ValidationItem[] {
	const items: ValidationItem[] = [];
	for (const issue of error.issues) {
		// The spec's validation item: `fields` is an array of string (keys, and indexes written as strings).
		const path = issue.path.map((p) => String(p));
		if (issue.code === 'unrecognized_keys') {
			for (const key of issue.keys) items.push({ fields: [...path, key], msg: `Unknown field "${key}"` });
		} else {
			items.push({ fields: path, msg: issue.message });
		}
	}
	return items;
}

export function parseWith<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
	const result = schema.safeParse(input ?? {});
	if (result.success) return result.data;
	const items = toValidationItems(result.error);
	// When there is exactly one problem the top-level message carries it (e.g. "Invalid phone number format").
	const [only, ...rest] = items;
	throw ApiError.validation(items, only && rest.length === 0 ? only.msg : 'Validation failed');
}

// ---- query parameter building blocks (query values arrive as strings) ----

export const queryBoolean = z
	.enum(['true', 'false', '1', '0'], { error: 'Must be true or false' })
	.transform((v) => v === 'true' || v === '1');

export const queryPage = z
	.string()
	.regex(/^\d+$/, 'Must be a positive integer')
	.transform(Number)
	.refine((n) => n >= 1, 'Must be 1 or greater');

export const queryDateTime = z.string().transform((value, ctx) => {
	const ms = parseDateTime(value);
	if (ms === null) {
		ctx.addIssue({ code: 'custom', message: 'Must be a date-time with a time zone (RFC 3339), e.g. 2026-01-31T09:00:00Z' });
		return z.NEVER;
	}
	return ms;
});

/** Comma-separated list: trimmed, empty items dropped. */
export const queryList = z.string().transform((v) =>
	v
		.split(',')
		.map((s) => s.trim())
		.filter((s) => s.length > 0),
);

export const chatListQuery = z.object({
	label: queryList.optional(),
	chatapp_account_id: queryList.optional(),
	group: queryBoolean.optional(),
	responsible: queryList.optional(),
	name: z.string().optional(),
	phone: z.string().optional(),
	read: queryBoolean.optional(),
	closed: queryBoolean.optional(),
	ai_autoresponse_enabled: queryBoolean.optional(),
	page: queryPage.optional(),
	created_after: queryDateTime.optional(),
	created_before: queryDateTime.optional(),
});

export const messageListQuery = z.object({
	from_me: queryBoolean.optional(),
	after: queryDateTime.optional(),
	before: queryDateTime.optional(),
	after_message: z.string().min(1).optional(),
	page: queryPage.optional(),
});

export const fileListQuery = z.object({
	filename: z.string().optional(),
	page: queryPage.optional(),
});

// ---- bodies ----

/** A string that holds more than white space (the value itself is kept as given). */
const notBlank = (what: string) =>
	z.string({ error: `${what} must be a string` }).refine((value) => value.trim().length > 0, `${what} must not be empty`);

const nonEmpty = (what: string) =>
	z
		.string({ error: `${what} must be a string` })
		.trim()
		.min(1, `${what} must not be empty`);
const label = z.string({ error: 'Label must be a string' }).trim().min(1, 'Label must not be empty').max(100, 'Label is too long');

export const chatPatchBody = z
	.strictObject({
		responsible: z.string({ error: 'Must be a string (member email, or "" to unassign)' }).optional(),
		closed: z.boolean({ error: 'Must be a boolean' }).optional(),
		read: z.boolean({ error: 'Must be a boolean' }).optional(),
		name: nonEmpty('Name').max(200, 'Name is too long').optional(),
		ai_autoresponse_enabled: z.boolean({ error: 'Must be a boolean' }).optional(),
	})
	.refine((b) => Object.keys(b).length > 0, 'Provide at least one of responsible, closed, read, name, ai_autoresponse_enabled');

export const labelsBody = z.strictObject({
	labels: z.array(label, { error: 'labels must be an array of strings' }),
});

export const noteBody = z.strictObject({ text: nonEmpty('Text').max(10_000, 'Text is too long') });

const text = notBlank('Text').pipe(z.string().max(10_000, 'Text is too long'));
const fileUid = notBlank('file_uid');
const needsContent = (b: { text?: string | undefined; file_uid?: string | undefined }) => b.text !== undefined || b.file_uid !== undefined;
const contentIssue = { message: 'A message needs text or file_uid', path: ['text'] };

export const sendToPhoneBody = z
	.strictObject({
		phone: z.string({ error: 'phone is required' }),
		text: text.optional(),
		file_uid: fileUid.optional(),
		label: label.optional(),
		chat_name: nonEmpty('chat_name').max(200).optional(),
		chatapp_account_id: notBlank('chatapp_account_id').optional(),
	})
	.refine(needsContent, contentIssue);

export const sendToChatBody = z
	.strictObject({ text: text.optional(), file_uid: fileUid.optional(), reply_to: notBlank('reply_to').optional(), label: label.optional() })
	.refine(needsContent, contentIssue);

export const sendToChatNameBody = z
	.strictObject({ chat_name: nonEmpty('chat_name'), text: text.optional(), file_uid: fileUid.optional() })
	.refine(needsContent, contentIssue);

export const sendToJidBody = z
	.strictObject({
		jid: z
			.string({ error: 'jid is required' })
			.regex(/^[\w.:-]+@(c\.us|g\.us|s\.whatsapp\.net|broadcast|newsletter)$/, 'Invalid JID, expected <id>@<server>'),
		text: text.optional(),
		file_uid: fileUid.optional(),
		reply_to: notBlank('reply_to').optional(),
	})
	.refine(needsContent, contentIssue);

export const reactionBody = z.strictObject({
	reaction: z
		.string({ error: 'reaction must be a string' })
		.refine(
			(r) => r === '' || (r.length <= 32 && /^\S+$/u.test(r) && /\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(r)),
			'reaction must be a single emoji, or "" to clear',
		),
});

export const fileFromUrlBody = z.strictObject({
	download_url: z.url({ protocol: /^https?$/, error: 'download_url must be an http(s) URL' }),
	filename: nonEmpty('filename').max(255).optional(),
	content_type: z
		.string()
		.regex(/^[\w.+-]+\/[\w.+-]+/, 'content_type must be a MIME type')
		.optional(),
});

export const invitationBody = z.strictObject({
	email: z.email({ error: 'A valid email is required' }),
	first_name: notBlank('first_name').pipe(z.string().max(100)).optional(),
	last_name: notBlank('last_name').pipe(z.string().max(100)).optional(),
	team_title: z.string().trim().min(1).max(100).optional(),
	role: z
		.string()
		.transform((r) => r.toLowerCase())
		.pipe(z.enum(TEAM_ROLES, { error: `role must be one of ${TEAM_ROLES.join(', ')}` }))
		.optional(),
});

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);
export const webhookUrl = z.string({ error: 'url is required' }).refine((value) => {
	try {
		const url = new URL(value);
		return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
	} catch {
		return false;
	}
}, 'url must be an HTTPS URL (plain HTTP only for 127.0.0.1, localhost or [::1])');

export const webhookCreateBody = z.strictObject({
	event_type: z.enum(EVENT_TYPES, { error: `event_type must be one of ${EVENT_TYPES.join(', ')}` }),
	url: webhookUrl,
	enabled: z.boolean({ error: 'enabled must be a boolean' }).optional(),
});

export const webhookUpdateBody = z
	.strictObject({ url: webhookUrl.optional(), enabled: z.boolean({ error: 'enabled must be a boolean' }).optional() })
	.refine((b) => b.url !== undefined || b.enabled !== undefined, 'Provide enabled and/or url');

// ---- control API ----

export const incomingBody = z
	.strictObject({
		phone: z.string().optional(),
		chat_id: z.number().int().optional(),
		jid: z.string().optional(),
		text: nonEmpty('text'),
		name: nonEmpty('name').optional(),
		duplicate: z.boolean().optional(),
		/** An uploaded file the inbound message carries as its attachment. */
		file_uid: z.string().optional(),
		payload: z.enum(WEBHOOK_PAYLOADS, { error: `payload must be one of ${WEBHOOK_PAYLOADS.join(', ')}` }).optional(),
	})
	.refine((b) => [b.phone, b.chat_id, b.jid].filter((v) => v !== undefined).length === 1, 'Give exactly one of phone, chat_id, jid');

/** A teammate writing into a chat from the web app (not through the API). */
export const teammateMessageBody = z.strictObject({
	chat_id: z.number().int(),
	text: nonEmpty('text'),
	/** The teammate who writes; the workspace owner when left out. */
	email: z.string().optional(),
});

export const controlStatusBody = z.strictObject({ status: z.enum(['delivered', 'read', 'failed']) });

export const controlQuotaBody = z.strictObject({ total: z.number().int().min(0).optional(), used: z.number().int().min(0).optional() });
