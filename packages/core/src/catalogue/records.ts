/**
 * What the service answers, as JSON Schema: the records the spec and the service notes show, and which of
 * them each endpoint's answer holds. Written once here for every generator that states a result — the
 * OpenAPI document (as components it refers to) and the MCP tools' output schemas (inlined, see toolResults.ts).
 */
import { EVENT_TYPES, FIELD_KINDS } from './fields';
import type { RecordKind } from './types';

/** A JSON Schema (the subset draft-07 and 2020-12 read alike: no $schema, $defs or prefixItems). */
export type JsonSchema = Record<string, unknown>;

const text = { type: 'string' };
/** Every integer of the API is an id, a count or a size: 64-bit (ids are numbered in the millions and beyond). */
export const INTEGER_SCHEMA: Readonly<JsonSchema> = { type: 'integer', format: 'int64' };
const int = INTEGER_SCHEMA;
const nullable = (schema: JsonSchema): JsonSchema => ({ ...schema, type: [schema.type as string, 'null'] });
/** The spec's record timestamps: `YYYY-MM-DD HH:MM:SS ±ZZZZ` in the workspace's time zone. */
const SPEC_TIMESTAMP = {
	type: 'string',
	pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} [+-]\\d{4}$',
	description: 'Workspace time zone, `YYYY-MM-DD HH:MM:SS ±ZZZZ`',
};
/** The message statuses (spec, Message status). */
const MESSAGE_STATUSES = ['queued', 'sent', 'delivered', 'read', 'failed'];

/**
 * An address the service posts events to: a public HTTPS address (spec, delivery rule 1); the local sandbox
 * also delivers to plain http on this machine. The shape is the receiverUrl kind's pattern.
 */
export const receiverUrlSchema = (description?: string): JsonSchema => ({
	...(description ? { description } : {}),
	...FIELD_KINDS.receiverUrl.schema,
	pattern: FIELD_KINDS.receiverUrl.pattern?.source,
});

/** Records the spec and the service notes show; members they leave out are allowed (and not relied on). */
export const RECORD_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
	Chat: {
		type: 'object',
		required: [
			'id',
			'name',
			'jid',
			'is_group',
			'closed',
			'read',
			'labels',
			'ai_autoresponse_enabled',
			'chatapp_account_id',
			'chat_url',
			'created_timestamp',
			'unattended',
			'photo',
		],
		properties: {
			id: int,
			name: text,
			phone: nullable(text),
			jid: text,
			is_group: { type: 'boolean' },
			closed: { type: 'boolean' },
			read: { type: 'boolean' },
			labels: { type: 'array', items: text },
			ai_autoresponse_enabled: { type: 'boolean' },
			responsible_email: nullable(text),
			responsible_name: nullable(text),
			chatapp_account_id: text,
			chat_url: text,
			created_timestamp: SPEC_TIMESTAMP,
			last_message_uid: nullable(text),
			last_message_timestamp: nullable(SPEC_TIMESTAMP),
			unattended: { type: 'boolean' },
			photo: { type: 'string', description: 'URL' },
			group_members: {
				type: 'array',
				items: {
					type: 'object',
					required: ['name', 'phone', 'role', 'chat_id'],
					properties: {
						name: text,
						phone: text,
						role: text,
						chat_id: { ...nullable(int), description: "The member's one-to-one chat, null if none" },
					},
				},
			},
			is_allowed_to_message: { type: 'boolean' },
		},
	},
	// The message record as the service notes give it.
	Message: {
		type: 'object',
		required: ['uid', 'chat_id', 'status'],
		properties: {
			uid: text,
			chat_id: int,
			timestamp: SPEC_TIMESTAMP,
			sender_phone: nullable(text),
			sender_name: nullable(text),
			recipient_phone: nullable(text),
			recipient_name: nullable(text),
			from_me: { type: 'boolean' },
			status: { type: 'string', enum: MESSAGE_STATUSES },
			origin: { ...text, description: 'Where the message came from, e.g. `Public API`' },
			has_attachment: { type: 'boolean' },
			message_type: text,
			text: nullable(text),
			attachment_url: nullable(text),
			attachment_filename: nullable(text),
			reply_to: nullable(text),
			reactions: { type: 'object', additionalProperties: int, description: 'Count per emoji' },
		},
	},
	StatusHistoryItem: {
		type: 'object',
		required: ['status', 'timestamp'],
		properties: { status: { type: 'string', enum: MESSAGE_STATUSES }, timestamp: { type: 'string', format: 'date-time' } },
	},
	Reactions: {
		type: 'object',
		required: ['reactions', 'users', 'total'],
		properties: {
			reactions: { type: 'object', additionalProperties: int, description: 'Count per emoji' },
			users: {
				type: 'array',
				items: {
					type: 'object',
					properties: { name: nullable(text), phone: nullable(text), reaction: text, current: { type: 'boolean' } },
				},
			},
			total: int,
		},
	},
	File: {
		type: 'object',
		required: ['uid', 'filename'],
		properties: {
			uid: text,
			filename: text,
			size: int,
			mimetype: text,
			uploaded_by_email: nullable(text),
			uploaded_at: SPEC_TIMESTAMP,
			temporary_download_url: text,
		},
	},
	// The chat-app account, workspace and teammate records as the service notes give them.
	Account: {
		type: 'object',
		required: ['id'],
		properties: {
			id: text,
			phone: nullable(text),
			connected_on: nullable(SPEC_TIMESTAMP),
			status: text,
			owner_name: nullable(text),
			owner_email: nullable(text),
			account_name: nullable(text),
		},
	},
	Workspace: {
		type: 'object',
		required: ['workspace_id'],
		properties: {
			workspace_id: {},
			display_name: text,
			plan: text,
			messaging_quota: {
				type: 'object',
				properties: { total: int, used: int, period_start: SPEC_TIMESTAMP, period_end: SPEC_TIMESTAMP },
			},
			api_calls_quota: { type: 'object', properties: { total: nullable(int), used: int } },
			seats: { type: 'object', properties: { total: nullable(int), used: int } },
			non_recurring_quota: { type: 'object', properties: { remaining_balance: int, last_updated_at: nullable(SPEC_TIMESTAMP) } },
		},
	},
	Teammate: {
		type: 'object',
		required: ['user_id', 'email'],
		properties: {
			user_id: {},
			display_name: text,
			email: text,
			status: text,
			created_at: SPEC_TIMESTAMP,
			role: text,
			chatapp_accounts: { type: 'array', items: text, description: 'The chat-app accounts (wid) the teammate works with' },
		},
	},
	Webhook: {
		type: 'object',
		required: ['id', 'event_type', 'url', 'enabled'],
		properties: {
			id: int,
			event_type: { type: 'string', enum: EVENT_TYPES.map((event) => event.value) },
			url: receiverUrlSchema('Public HTTPS address receiving the POSTs'),
			enabled: { type: 'boolean' },
			errors_counter: { ...int, description: 'Deliveries that failed after all attempts; starts at 0' },
		},
	},
	SendAnswer: { type: 'object', required: ['message_uid'], properties: { message_uid: text } },
	Error: {
		type: 'object',
		required: ['status', 'message'],
		properties: {
			status: { const: 'error' },
			message: text,
			error_code: {
				type: 'string',
				enum: [
					'missing_credentials',
					'invalid_token',
					'member_not_found',
					'permission_denied',
					'plan_feature_unavailable',
					'quota_exceeded',
					'rate_limit_exceeded',
					'validation_error',
					'not_supported',
					'internal_error',
				],
			},
			errors: {
				type: 'array',
				items: {
					type: 'object',
					required: ['fields', 'msg'],
					// The spec: "array of string, path of the offending field from the request root, keys or indexes".
					properties: { fields: { type: 'array', items: text }, msg: text },
				},
			},
		},
	},
};

/** The record schema of each kind of record operations return (output.ts). */
export const RECORD_SCHEMA_OF: Readonly<Record<RecordKind, string>> = {
	chat: 'Chat',
	message: 'Message',
	file: 'File',
	account: 'Account',
	teammate: 'Teammate',
};

/** A record of RECORD_SCHEMAS by name, or a schema of its own. */
export type SchemaOrRecord = string | JsonSchema;

/**
 * What `data` of an endpoint's success answer holds: one record (`required`: with members the record leaves
 * optional but this answer always holds), or many — as an array, or as the array in `member` (`paged`: with
 * has_more_pages; `inMember`: only ever so; otherwise either way, as the service notes leave it open and the
 * executor unwraps both).
 */
export type AnswerShape =
	{ one: SchemaOrRecord; required?: readonly string[] } | { many: SchemaOrRecord; member?: string; paged?: boolean; inMember?: boolean };

/** `data` of each endpoint's success answer, by operation id, where the spec or the service notes show it. */
export const SERVICE_ANSWERS: Readonly<Record<string, AnswerShape>> = {
	'chat:getAll': { many: 'Chat', member: 'chats', paged: true },
	'chat:get': { one: 'Chat' },
	'label:get': { many: text, member: 'labels', inMember: true },
	'message:sendToPhone': { one: 'SendAnswer' },
	'message:sendToChat': { one: 'SendAnswer' },
	'message:sendToChatName': { one: 'SendAnswer' },
	'message:sendToJid': { one: 'SendAnswer' },
	'message:get': { one: 'Message' },
	'message:getStatusHistory': { many: 'StatusHistoryItem' },
	'message:getAll': { many: 'Message', member: 'messages', paged: true },
	'reaction:get': { one: 'Reactions' },
	'file:getAll': { many: 'File', member: 'files', paged: true },
	'file:uploadFromUrl': { one: 'File' },
	'file:upload': { one: 'File' },
	'file:get': { one: 'File' },
	'account:getAll': { many: 'Account', member: 'chatapp_accounts' },
	'workspace:get': { one: 'Workspace' },
	'teammate:getAll': { many: 'Teammate', member: 'teammates' },
	'webhook:create': { one: 'Webhook' },
	// The spec: one subscription "includes `errors_counter`".
	'webhook:get': { one: 'Webhook', required: ['errors_counter'] },
	'webhook:getAll': { many: 'Webhook', member: 'webhooks' },
};

/** The schema of an answer's `data`, records given by `ref` (a `$ref` in a document, the record itself inline). */
export function answerSchema(shape: AnswerShape, ref: (name: string) => JsonSchema): JsonSchema {
	const resolve = (schema: SchemaOrRecord) => (typeof schema === 'string' ? ref(schema) : schema);
	if ('one' in shape) {
		const record = resolve(shape.one);
		if (!shape.required) return record;
		// A reference cannot be amended in place: the document states the extra members beside it.
		if ('$ref' in record) return { allOf: [record, { required: shape.required }] };
		return { ...record, required: [...((record.required as string[] | undefined) ?? []), ...shape.required] };
	}
	const array = { type: 'array', items: resolve(shape.many) };
	if (!shape.member) return array;
	if (shape.paged)
		return {
			type: 'object',
			required: ['has_more_pages', shape.member],
			properties: { has_more_pages: { type: 'boolean' }, [shape.member]: array },
		};
	const inMember = { type: 'object', required: [shape.member], properties: { [shape.member]: array } };
	return shape.inMember ? inMember : { oneOf: [array, inMember] };
}
