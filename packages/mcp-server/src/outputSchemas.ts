/**
 * The JSON Schema of an operation's result as a tool returns it (the tool's `outputSchema`): what
 * structuredContent.ts makes of it, from the records the service answers with (the core's records) and the
 * Output choice (the core's output rules).
 */
import {
	answerItemSchema,
	answerSchema,
	CONVERSATION_SCHEMA,
	DELETED_RESULT,
	isComposite,
	isRecord,
	operationId,
	RECORD_SCHEMA_OF,
	RECORD_SCHEMAS,
	recordShape,
	type CatalogueOperation,
	type CompositeDescriptor,
	type JsonSchema,
	type OperationDescriptor,
} from '@chat-messaging/core';
import { TOOL_LIST_ITEMS, TOOL_LIST_NEXT_CURSOR } from './structuredContent';

const inline = (name: string): JsonSchema => {
	const schema = RECORD_SCHEMAS[name];
	if (!schema) throw new Error(`records.ts has no record schema ${name}`);
	return schema;
};

/**
 * A record as the Output choice leaves it: with Simplified or Selected Fields only its ids are sure to be
 * there (output.ts keeps them); every member that is there has the record's type.
 */
function choosableRecord(op: Pick<OperationDescriptor, 'returns'>, record: JsonSchema): JsonSchema {
	const shape = recordShape(op);
	if (!shape) return record;
	const required = ((record.required as string[] | undefined) ?? []).filter((name) => shape.ids.includes(name));
	return { ...record, required };
}

const listOf = (items: JsonSchema, paged: boolean): JsonSchema => ({
	type: 'object',
	required: [TOOL_LIST_ITEMS],
	properties: {
		[TOOL_LIST_ITEMS]: { type: 'array', items },
		...(paged ? { [TOOL_LIST_NEXT_CURSOR]: { type: 'string', description: 'Where the next records start: pass it back as cursor' } } : {}),
	},
	additionalProperties: false,
});

/** Not shown by the spec: an object, as every tool result is, and nothing more is promised. */
const UNDESCRIBED: JsonSchema = { type: 'object', description: 'The service answer, which the spec does not show' };

/** The event a reply wait returns (the core's ChatEvent). */
const CHAT_EVENT: JsonSchema = {
	type: 'object',
	required: ['event_type', 'chat_id', 'chat_name', 'text', 'message_uid', 'unattended', 'raw'],
	properties: {
		event_type: { type: 'string' },
		chat_id: { type: ['integer', 'string', 'null'] },
		chat_name: { type: ['string', 'null'] },
		text: { type: ['string', 'null'] },
		message_uid: { type: ['string', 'null'] },
		unattended: { type: ['boolean', 'null'] },
		raw: { type: 'object', description: 'The message as the service delivered it' },
	},
};

/** Send's result (the core's runSend): the send's answer, the upload, the status waited for. */
const SENT: JsonSchema = {
	type: 'object',
	required: ['message_uid'],
	properties: {
		...(inline('SendAnswer').properties as JsonSchema),
		chat_id: { type: ['integer', 'string'] },
		status: { type: 'string' },
		file: { ...inline('File'), description: 'The attachment, uploaded before the send' },
		message: { ...inline('Message'), description: 'The message once it reached waitForStatus' },
	},
};

/** Each composite's result, by operation id. */
const COMPOSITE_RESULTS: Readonly<Record<string, JsonSchema>> = {
	'message:send': SENT,
	'message:getConversation': CONVERSATION_SCHEMA,
	'message:sendAndWaitForReply': {
		type: 'object',
		required: ['message_uid', 'chat_id', 'replied', 'reply'],
		properties: {
			...(SENT.properties as JsonSchema),
			chat_id: { type: ['integer', 'string'] },
			replied: { type: 'boolean' },
			reply: { oneOf: [{ type: 'null' }, CHAT_EVENT], description: "The customer's reply, null when none came" },
			timed_out: { const: true },
			waited_ms: { type: 'integer', minimum: 0 },
			cancelled: { const: true },
		},
	},
};

function endpointResult(op: OperationDescriptor): JsonSchema {
	if (op.method === 'DELETE')
		return {
			type: 'object',
			required: Object.keys(DELETED_RESULT),
			properties: Object.fromEntries(Object.entries(DELETED_RESULT).map(([key, value]) => [key, { const: value }])),
			additionalProperties: false,
		};
	if (op.download)
		return {
			type: 'object',
			required: ['filename', 'mimeType', 'size'],
			properties: {
				filename: { type: 'string' },
				mimeType: { type: 'string' },
				size: { type: 'integer', minimum: 0, description: 'Bytes; the bytes themselves are in the content, or behind uri' },
				file: { ...inline(RECORD_SCHEMA_OF.file), description: 'The record the download link came from' },
				uri: { type: 'string', format: 'uri', description: 'A large file: read its bytes here (resources/read) instead' },
				expiresAt: { type: 'string', format: 'date-time', description: 'Until when uri can be read' },
			},
		};
	const answer = op.answer;
	const record = op.returns ? inline(RECORD_SCHEMA_OF[op.returns]) : undefined;
	const many = op.pagination !== undefined || (answer !== undefined && 'many' in answer);
	if (many) {
		const item = record ?? (answer && 'many' in answer ? answerItemSchema(answer.many, inline) : {});
		return listOf(choosableRecord(op, item), op.pagination !== undefined);
	}
	if (record) return { ...choosableRecord(op, record), type: 'object' };
	return answerSchema(op, inline) ?? UNDESCRIBED;
}

/**
 * The JSON Schema of an operation's or a composite's result as a tool returns it (`structuredContent`): an
 * object always, as MCP requires. Self-contained (records inlined, no `$ref`), in the keywords draft-07 and
 * 2020-12 read alike, so the MCP SDK's validator (Ajv, draft-07) and a 2020-12 client agree.
 */
export function outputSchemaOf(op: CatalogueOperation): JsonSchema {
	if (isComposite(op)) {
		const schema = COMPOSITE_RESULTS[operationId(op)];
		if (!schema) throw new Error(`outputSchemas.ts has no result schema for the composite ${operationId(op)}`);
		return portable(compositeResult(op, schema)) as JsonSchema;
	}
	return portable(endpointResult(op)) as JsonSchema;
}

/**
 * The schema with every list of types (`["string", "null"]`) written as `anyOf` branches of one type each: the same
 * meaning, read by clients that map tool schemas onto a one-type dialect (Gemini's function declarations), as the
 * Inspector's strict lint asks. The other keywords stay beside the branches (a format only ever applies to strings).
 */
function portable(schema: unknown): unknown {
	if (Array.isArray(schema)) return schema.map(portable);
	if (!isRecord(schema)) return schema;
	const out: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(schema)) out[key] = key === 'const' || key === 'enum' ? value : portable(value);
	if (Array.isArray(out.type)) {
		const { type, ...rest } = out;
		return { ...rest, anyOf: (type as string[]).map((one) => ({ type: one })) };
	}
	return out;
}

const compositeResult = (composite: CompositeDescriptor, schema: JsonSchema): JsonSchema => ({ ...schema, description: composite.returns });
