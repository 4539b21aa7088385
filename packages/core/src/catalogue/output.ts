/**
 * What an operation's output looks like to a person or an agent: the record kinds operations return,
 * the fields of each kind worth reading at a glance ("simplified"), and the Output choice every
 * surface offers (Simplified / Raw / Selected Fields). Defined once here; adapters only translate.
 *
 * The spec lists the chat's fields; for the other records it shows none, so a simplified list names
 * the fields the service is known to send and keeps only those a record has. A record without any of
 * its kind's id fields is a shape this list does not know: it is passed on whole, never emptied.
 */
import type { OperationDescriptor, RecordKind } from './types';

export interface RecordShape {
	/** Singular noun, as descriptions use it ("chat"). */
	noun: string;
	/** Identify the record; every output keeps them, whatever the choice. */
	ids: readonly string[];
	/** About ten fields a person or an agent needs, ids first. */
	simplified: readonly string[];
}

export const RECORD_SHAPES: Readonly<Record<RecordKind, RecordShape>> = {
	chat: {
		noun: 'chat',
		ids: ['id'],
		simplified: [
			'id',
			'name',
			'phone',
			'jid',
			'is_group',
			'closed',
			'read',
			'labels',
			'responsible_email',
			'unattended',
			'last_message_timestamp',
			'chat_url',
		],
	},
	message: {
		noun: 'message',
		ids: ['uid', 'chat_id'],
		simplified: [
			'uid',
			'chat_id',
			'timestamp',
			'from_me',
			'sender_name',
			'sender_phone',
			'text',
			'status',
			'has_attachment',
			'attachment_filename',
			'reply_to',
		],
	},
	file: {
		noun: 'file',
		ids: ['uid'],
		simplified: ['uid', 'filename', 'mimetype', 'size', 'uploaded_at', 'temporary_download_url'],
	},
	account: { noun: 'chat-app account', ids: ['id'], simplified: ['id', 'phone', 'account_name', 'status', 'owner_email'] },
	teammate: { noun: 'teammate', ids: ['user_id', 'email'], simplified: ['user_id', 'email', 'display_name', 'role', 'status'] },
};

export type OutputMode = 'simplified' | 'raw' | 'selected';

export const OUTPUT_MODES: ReadonlyArray<{ value: OutputMode; name: string; description: string }> = [
	{ value: 'simplified', name: 'Simplified', description: 'The fields most workflows and agents need, IDs always included' },
	{ value: 'raw', name: 'Raw', description: 'Every field the service returns' },
	{ value: 'selected', name: 'Selected Fields', description: 'The fields you name, IDs always included' },
];

/**
 * The choice new nodes start with. A node or flow saved before the choice existed has no value for it
 * and reads `OUTPUT_WHEN_UNSET`: its output stays what it was.
 */
export const DEFAULT_OUTPUT: OutputMode = 'simplified';
export const OUTPUT_WHEN_UNSET: OutputMode = 'raw';

/** What a delete outputs: the service's reply differs per endpoint and says nothing a workflow needs. */
export const DELETED_RESULT: Readonly<Record<string, unknown>> = { deleted: true };

/** Lists an agent asks for return this many records unless it says otherwise: enough to choose from, small enough to read. */
export const TOOL_LIST_LIMIT = 10;

export const recordShape = (op: Pick<OperationDescriptor, 'returns'>): RecordShape | undefined =>
	op.returns ? RECORD_SHAPES[op.returns] : undefined;

export interface OutputChoice {
	mode?: OutputMode | string;
	/** For `selected`: field names, as an array or one comma-separated string. */
	fields?: readonly string[] | string;
}

const isPlainRecord = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);

/** The field names of a Selected Fields value ("id, name" or an array), trimmed, empty ones dropped. */
export function selectedFieldNames(fields: OutputChoice['fields']): string[] {
	const list = typeof fields === 'string' ? fields.split(',') : [...(fields ?? [])];
	return list.map((name) => String(name).trim()).filter(Boolean);
}

/**
 * What keeps an Output choice from being applied, told before any request: an unknown mode, or
 * Selected Fields without a name. `part` says which setting is at fault; undefined when all is well.
 */
export function outputChoiceProblem(choice: OutputChoice): { part: 'mode' | 'fields'; message: string } | undefined {
	const mode = choice.mode ?? OUTPUT_WHEN_UNSET;
	if (!OUTPUT_MODES.some((candidate) => candidate.value === mode))
		return { part: 'mode', message: `must be one of ${OUTPUT_MODES.map((m) => m.value).join(', ')}, got "${String(mode)}"` };
	if (mode === 'selected' && !selectedFieldNames(choice.fields).length)
		return { part: 'fields', message: 'is empty: name the fields to output, separated by commas' };
	return undefined;
}

function pick(record: Record<string, unknown>, shape: RecordShape, names: readonly string[]): Record<string, unknown> {
	if (!shape.ids.some((id) => id in record)) return record;
	const out: Record<string, unknown> = {};
	for (const name of [...shape.ids, ...names]) if (name in record) out[name] = record[name];
	return out;
}

/**
 * Shapes one record (or each record of a list) as the Output choice says. Operations that return no
 * record kind, and results that are not records, pass through unchanged.
 */
export function shapeOutput(op: Pick<OperationDescriptor, 'returns'>, result: unknown, choice: OutputChoice = {}): unknown {
	const shape = recordShape(op);
	const mode = choice.mode ?? OUTPUT_WHEN_UNSET;
	if (!shape || mode === 'raw') return result;
	if (mode !== 'simplified' && mode !== 'selected')
		throw new Error(`Output must be one of ${OUTPUT_MODES.map((m) => m.value).join(', ')}, got "${String(mode)}"`);
	const names = mode === 'simplified' ? shape.simplified : selectedFieldNames(choice.fields);
	const one = (record: unknown) => (isPlainRecord(record) ? pick(record, shape, names) : record);
	return Array.isArray(result) ? result.map(one) : one(result);
}

/** Deletes output `DELETED_RESULT`; everything else is shaped by the Output choice. */
export function operationOutput(op: Pick<OperationDescriptor, 'returns' | 'method'>, result: unknown, choice: OutputChoice = {}): unknown {
	if (op.method === 'DELETE') return { ...DELETED_RESULT };
	return shapeOutput(op, result, choice);
}
