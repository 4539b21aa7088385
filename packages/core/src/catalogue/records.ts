/**
 * What the service answers, as JSON Schema: the records the spec and the service notes show, and the schema of an
 * endpoint's answer as its descriptor declares it (`answer`). Written once here for every generator that states a
 * result — the OpenAPI document (as components it refers to) and the MCP tools' output schemas (inlined, by the
 * MCP server).
 */
import { EVENT_TYPES, FIELD_KINDS } from './fields';
import type { AnswerDescriptor, AnswerRecord, OperationDescriptor, RecordKind } from './types';

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

/** A record of RECORD_SCHEMAS by name, or a schema of its own, as an answer names it; records given by `ref`. */
export function answerItemSchema(schema: AnswerRecord | Readonly<JsonSchema>, ref: (name: string) => JsonSchema): JsonSchema {
	return typeof schema === 'string' ? ref(schema) : { ...schema };
}

/**
 * The schema of `data` of an endpoint's success answer, as its descriptor's `answer` declares it, records given by
 * `ref` (a `$ref` in a document, the record itself inline); undefined where the spec and the notes do not show it.
 */
export function answerSchema(
	op: Pick<OperationDescriptor, 'method' | 'path' | 'pagination'> & { answer?: AnswerDescriptor },
	ref: (name: string) => JsonSchema,
): JsonSchema | undefined {
	const shape = op.answer;
	if (!shape) return undefined;
	if ('one' in shape) {
		const record = answerItemSchema(shape.one, ref);
		if (!shape.required) return record;
		// A reference cannot be amended in place: the document states the extra members beside it.
		if ('$ref' in record) return { allOf: [record, { required: shape.required }] };
		return { ...record, required: [...((record.required as string[] | undefined) ?? []), ...shape.required] };
	}
	const array = { type: 'array', items: answerItemSchema(shape.many, ref) };
	if (shape.paged) {
		if (!op.pagination) throw new Error(`${op.method} ${op.path}: a paged answer needs the descriptor's pagination`);
		const member = op.pagination.itemsKey;
		return {
			type: 'object',
			required: ['has_more_pages', member],
			properties: { has_more_pages: { type: 'boolean' }, [member]: array },
		};
	}
	if (!shape.member) return array;
	const inMember = { type: 'object', required: [shape.member], properties: { [shape.member]: array } };
	return shape.inMember ? inMember : { oneOf: [array, inMember] };
}
