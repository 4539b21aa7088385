/**
 * The catalogue as MCP tools: one tool per operation, its input schema made from the operation's field
 * descriptors, its annotations from the operation's effect. Nothing here defines an operation or a
 * rule of its own: names, texts, kinds, bounds and choices all come from @chat-messaging/core.
 */
import {
	CATALOGUE,
	changeOf,
	compositeToolDescription,
	DEFAULT_OUTPUT,
	FIELD_KINDS,
	isComposite,
	OUTPUT_MODES,
	recordShape,
	RESOURCES,
	TOOL_LIST_LIMIT,
	toolDescription,
	toolFieldDescription,
	type CatalogueOperation,
	type CompositeDescriptor,
	type FieldDescriptor,
	type OperationDescriptor,
} from '@chat-messaging/core';
import { outputSchemaOf } from './outputSchemas';

/** A JSON Schema, as far as tool inputs need one. */
export type JsonSchema = Record<string, unknown>;

export interface ToolAnnotations {
	readOnlyHint: boolean;
	destructiveHint: boolean;
	idempotentHint: boolean;
	openWorldHint: boolean;
}

export interface CatalogueTool {
	name: string;
	title: string;
	description: string;
	inputSchema: JsonSchema & { type: 'object'; properties: Record<string, JsonSchema>; required?: string[] };
	/** The JSON Schema of the tool's structuredContent, from the catalogue (the core's outputSchemaOf). */
	outputSchema: JsonSchema;
	annotations: ToolAnnotations;
	operation: CatalogueOperation;
	/** Every input the operation takes, by wire name (a composite's variant choice and options included). */
	fields: FieldDescriptor[];
}

/**
 * How many records one call of a list tool returns unless asked otherwise (the core's default for
 * agents), and at most: a part of a long list, small enough for one answer.
 */
export const LIST_LIMIT = { default: TOOL_LIST_LIMIT, max: 1000 } as const;

/** The arguments a list tool takes in place of the service's page number. */
export const CURSOR_ARGUMENT = 'cursor';
export const LIMIT_ARGUMENT = 'limit';
/** The arguments of the core's Output choice, for tools returning records. */
export const OUTPUT_ARGUMENT = 'output';
export const FIELDS_ARGUMENT = 'fields';

/** `getAll` → `get_many` (as the editors call it), `setAiAutoresponse` → `set_ai_autoresponse`. */
function snake(operation: string): string {
	const key = operation === 'getAll' ? 'getMany' : operation;
	return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** `chat_get_many`, `message_send_to_phone`: resource, then operation, stable as long as the catalogue's keys are. */
export const toolName = (op: Pick<CatalogueOperation, 'resource' | 'operation'>): string => `${op.resource}_${snake(op.operation)}`;

/** Whether a field is one the service pages with; list tools take a cursor instead. */
const isPageField = (op: OperationDescriptor, field: FieldDescriptor): boolean =>
	op.pagination !== undefined && field.name === op.pagination.pageParam;

function optionsText(field: FieldDescriptor): string | undefined {
	const described = field.options?.filter((option) => option.description);
	if (!described?.length) return undefined;
	return `${described.map((option) => `${option.value}: ${option.description}`).join('; ')}.`;
}

function triStateText(field: FieldDescriptor): string | undefined {
	if (!field.triState) return undefined;
	return `true: ${field.triState.true}; false: ${field.triState.false}; leave out for both.`;
}

/** The JSON Schema of one field, from its kind, bounds, choices and texts. */
export function fieldSchema(field: FieldDescriptor): JsonSchema {
	const description = [toolFieldDescription(field), optionsText(field), triStateText(field)].filter(Boolean).join(' ');
	const schema: JsonSchema = { description };
	switch (field.kind) {
		case 'integer':
			schema.type = 'integer';
			if (field.min !== undefined) schema.minimum = field.min;
			if (field.max !== undefined) schema.maximum = field.max;
			break;
		case 'boolean':
			schema.type = 'boolean';
			break;
		case 'options':
			schema.type = 'string';
			if (field.options) schema.enum = field.options.map((option) => option.value);
			break;
		case 'stringList':
			// The service takes several values; one comma-separated string is read the same way.
			schema.type = 'array';
			schema.items = { type: 'string' };
			break;
		case 'binary':
			schema.type = 'object';
			schema.properties = {
				data: { type: 'string', contentEncoding: 'base64', description: 'The bytes, base64-encoded' },
				filename: { type: 'string', description: 'File name with its extension' },
				mimeType: { type: 'string', description: 'MIME type, e.g. image/png' },
			};
			schema.required = ['data', 'filename'];
			schema.additionalProperties = false;
			break;
		case 'email':
		case 'url':
		case 'receiverUrl':
			schema.type = 'string';
			schema.format = FIELD_KINDS[field.kind].schema.format;
			break;
		default:
			// string, text, dateTime, phone, phoneFilter, jid, wid: their formats are in the description
			// and checked by the core's validation, which accepts more spellings than a pattern would say.
			schema.type = 'string';
	}
	if (field.default !== undefined && !(field.triState && typeof field.default !== 'boolean')) schema.default = field.default;
	return schema;
}

/** The tool's description: the core's description of the operation as a tool, then how this server pages. */
function description(op: OperationDescriptor): string {
	const parts = [toolDescription(op)];
	if (op.pagination)
		parts.push(
			`Returns up to ${LIMIT_ARGUMENT} records (default ${LIST_LIMIT.default}) as items; when more follow, nextCursor: pass it back as ${CURSOR_ARGUMENT} with the same filters for the next records.`,
		);
	return parts.join(' ');
}

const titleOf = (op: CatalogueOperation) =>
	`${RESOURCES.find((candidate) => candidate.key === op.resource)?.name ?? op.resource}: ${op.name}`;

/**
 * What a client may tell its user before a call, from the catalogue (the tool's title is its own member, not
 * repeated here): destructive unless the operation only reads
 * or only adds (the MCP default reads every other write as destructive, updates included); idempotent unless it
 * creates something each time.
 */
export function annotationsOf(op: CatalogueOperation): ToolAnnotations {
	const change = changeOf(op);
	return {
		readOnlyHint: change === 'read',
		destructiveHint: change === 'overwrites',
		idempotentHint: op.effect !== 'create',
		// Every tool talks to the service, and a send reaches people outside it.
		openWorldHint: true,
	};
}

export function catalogueTool(op: CatalogueOperation): CatalogueTool {
	return isComposite(op) ? compositeTool(op) : endpointTool(op);
}

function endpointTool(op: OperationDescriptor): CatalogueTool {
	const properties: Record<string, JsonSchema> = {};
	const required: string[] = [];
	for (const field of op.fields) {
		if (isPageField(op, field)) continue;
		properties[field.name] = fieldSchema(field);
		if (field.required && field.default === undefined) required.push(field.name);
	}
	if (op.pagination) {
		properties[LIMIT_ARGUMENT] = {
			type: 'integer',
			minimum: 1,
			maximum: LIST_LIMIT.max,
			default: LIST_LIMIT.default,
			description: 'How many records to return at most',
		};
		properties[CURSOR_ARGUMENT] = {
			type: 'string',
			description: 'nextCursor of the previous call, to continue the list where it stopped; leave out for the first records',
		};
	}
	if (recordShape(op)) {
		properties[OUTPUT_ARGUMENT] = {
			type: 'string',
			enum: OUTPUT_MODES.map((mode) => mode.value),
			default: DEFAULT_OUTPUT,
			description: `Which fields of each record to return. ${OUTPUT_MODES.map((mode) => `${mode.value}: ${mode.description}`).join('; ')}.`,
		};
		properties[FIELDS_ARGUMENT] = {
			type: 'array',
			items: { type: 'string' },
			description: `With output "selected": the record fields to return (ids are always included)`,
		};
	}
	const title = titleOf(op);
	return {
		name: toolName(op),
		title,
		description: description(op),
		inputSchema: {
			type: 'object',
			properties,
			...(required.length ? { required } : {}),
			additionalProperties: false,
		},
		outputSchema: outputSchemaOf(op),
		annotations: annotationsOf(op),
		operation: op,
		fields: op.fields.filter((field) => !isPageField(op, field)),
	};
}

/**
 * A composite (Send with Send To, Send and Wait for Reply) as one tool: its variant choice, each field of
 * its variants once (saying which variants use it), its options. The core's handler checks what a variant
 * needs, so a field only some variants require is not required in the schema.
 */
function compositeTool(composite: CompositeDescriptor): CatalogueTool {
	const { variants } = composite;
	const variantField: FieldDescriptor | undefined = variants && {
		name: variants.name,
		displayName: variants.displayName,
		kind: 'options',
		in: 'body',
		default: variants.default,
		options: variants.options.map(({ value, name, description }) => ({ value, name, description })),
		description: `Where the message goes (${variants.displayName})`,
	};
	const all = variants ? variants.options.map((option) => option.value) : [];
	const byName = new Map<string, { field: FieldDescriptor; variants: string[]; descriptions: string[] }>();
	for (const entry of composite.fields) {
		const only = variants && entry.variants.length < all.length ? ` (${variants.name} ${entry.variants.join(', ')})` : '';
		const text = `${toolFieldDescription(entry.field).replace(/\.$/, '')}${only}.`;
		const known = byName.get(entry.field.name);
		// One wire name may mean two things in two variants (a new chat's name, the chat addressed): one argument, both meanings.
		if (known) {
			known.variants.push(...entry.variants);
			known.descriptions.push(text);
		} else byName.set(entry.field.name, { field: entry.field, variants: [...entry.variants], descriptions: [text] });
	}
	const properties: Record<string, JsonSchema> = variantField ? { [variantField.name]: fieldSchema(variantField) } : {};
	const required: string[] = [];
	for (const { field, variants: usedBy, descriptions } of byName.values()) {
		properties[field.name] = { ...fieldSchema(field), description: descriptions.join(' ') };
		if (field.required && field.default === undefined && all.every((value) => usedBy.includes(value))) required.push(field.name);
	}
	for (const option of composite.options) properties[option.name] = fieldSchema(option);
	const title = titleOf(composite);
	return {
		name: toolName(composite),
		title,
		description: compositeToolDescription(composite),
		inputSchema: { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false },
		outputSchema: outputSchemaOf(composite),
		annotations: annotationsOf(composite),
		operation: composite,
		fields: [...(variantField ? [variantField] : []), ...[...byName.values()].map((entry) => entry.field), ...composite.options],
	};
}

/** The tools of each catalogue, built once: the command and each server of a process read the same (a few ms each time). */
const built = new WeakMap<readonly CatalogueOperation[], readonly CatalogueTool[]>();

/** Every operation of the catalogue, endpoints and composites, as a tool, in catalogue order. */
export function catalogueTools(operations: readonly CatalogueOperation[] = CATALOGUE): CatalogueTool[] {
	const known = built.get(operations);
	if (known) return [...known];
	const tools = operations.map(catalogueTool);
	const names = new Set<string>();
	for (const tool of tools) {
		// Two operations under one name would make one of them unreachable: fail at start, not at call.
		if (names.has(tool.name)) throw new Error(`Two catalogue operations map to the tool name ${tool.name}`);
		names.add(tool.name);
	}
	built.set(operations, tools);
	return [...tools];
}
