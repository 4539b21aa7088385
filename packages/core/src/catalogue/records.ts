/**
 * What the service answers, as JSON Schema: the records the spec and the service notes show, and which of
 * them each endpoint's answer holds. Written once here for every generator that states a result — the
 * OpenAPI document (as components it refers to) and the MCP tools' output schemas (inlined, see toolResults.ts).
 */
import { FIELD_KINDS } from './fields';
import type { RecordKind } from './types';

/** A JSON Schema (the subset draft-07 and 2020-12 read alike: no $schema, $defs or prefixItems). */
export type JsonSchema = Record<string, unknown>;

const text = { type: 'string' };
const nullable = (schema: JsonSchema): JsonSchema => ({ ...schema, type: [schema.type as string, 'null'] });
const SPEC_TIMESTAMP = { type: 'string', description: 'Workspace time zone, `YYYY-MM-DD HH:MM:SS ±ZZZZ`' };

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
			id: { type: 'integer' },
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
						chat_id: { ...nullable({ type: 'integer' }), description: "The member's one-to-one chat, null if none" },
					},
				},
			},
			is_allowed_to_message: { type: 'boolean' },
		},
	},
	Message: {
		type: 'object',
		required: ['uid', 'chat_id', 'status'],
		properties: {
			uid: text,
			chat_id: { type: 'integer' },
			timestamp: SPEC_TIMESTAMP,
			from_me: { type: 'boolean' },
			status: { type: 'string', enum: ['queued', 'sent', 'delivered', 'read', 'failed'] },
			text: nullable(text),
			has_attachment: { type: 'boolean' },
			attachment_url: nullable(text),
			attachment_filename: nullable(text),
			reply_to: nullable(text),
		},
	},
	StatusHistoryItem: {
		type: 'object',
		required: ['status', 'timestamp'],
		properties: { status: text, timestamp: { type: 'string', format: 'date-time' } },
	},
	Reactions: {
		type: 'object',
		required: ['reactions', 'users', 'total'],
		properties: { reactions: { type: 'object' }, users: { type: 'array', items: { type: 'object' } }, total: { type: 'integer' } },
	},
	File: {
		type: 'object',
		required: ['uid', 'filename'],
		properties: {
			uid: text,
			filename: text,
			size: { type: 'integer' },
			mimetype: text,
			uploaded_by_email: nullable(text),
			uploaded_at: SPEC_TIMESTAMP,
			temporary_download_url: text,
		},
	},
	Account: {
		type: 'object',
		required: ['id'],
		properties: { id: text, phone: nullable(text), status: text, account_name: nullable(text) },
	},
	Workspace: {
		type: 'object',
		required: ['workspace_id'],
		properties: { workspace_id: {}, display_name: text, plan: text, messaging_quota: { type: 'object' } },
	},
	Teammate: {
		type: 'object',
		required: ['user_id', 'email'],
		properties: { user_id: {}, display_name: text, email: text, status: text, role: text },
	},
	Webhook: {
		type: 'object',
		required: ['id', 'event_type', 'url', 'enabled'],
		properties: {
			id: { type: 'integer' },
			event_type: text,
			url: receiverUrlSchema('Public HTTPS address receiving the POSTs'),
			enabled: { type: 'boolean' },
			errors_counter: { type: 'integer' },
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
					properties: { fields: { type: 'array', items: { type: ['string', 'integer'] } }, msg: text },
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
 * What `data` of an endpoint's success answer holds: one record, or many — as an array, or as the array in
 * `member` (`paged`: with has_more_pages; `inMember`: only ever so; otherwise either way, as the service
 * notes leave it open and the executor unwraps both).
 */
export type AnswerShape = { one: SchemaOrRecord } | { many: SchemaOrRecord; member?: string; paged?: boolean; inMember?: boolean };

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
	'webhook:get': { one: 'Webhook' },
	'webhook:getAll': { many: 'Webhook', member: 'webhooks' },
};

/** The schema of an answer's `data`, records given by `ref` (a `$ref` in a document, the record itself inline). */
export function answerSchema(shape: AnswerShape, ref: (name: string) => JsonSchema): JsonSchema {
	const resolve = (schema: SchemaOrRecord) => (typeof schema === 'string' ? ref(schema) : schema);
	if ('one' in shape) return resolve(shape.one);
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
