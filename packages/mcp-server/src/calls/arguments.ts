/**
 * A tool's arguments as the core's input, checked before anything is sent: unknown arguments refused, bytes
 * decoded, the Output choice and a list's limit read. Everything else is the core's to check.
 */
import { DEFAULT_OUTPUT, inputError, isRecord, OUTPUT_MODES, type BinaryInput, type FieldDescriptor } from '@chat-messaging/core';
import { FIELDS_ARGUMENT, OUTPUT_ARGUMENT, type CatalogueTool } from '../tools';

export function wholeNumber(name: string, value: unknown, min: number, max: number): number {
	if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
		throw inputError(name, `must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`);
	return value;
}

/** A binary argument (base64 bytes, file name, type) as the core's upload input. */
function binaryInput(field: FieldDescriptor, value: unknown): BinaryInput {
	if (!isRecord(value) || typeof value.data !== 'string' || typeof value.filename !== 'string' || !value.filename)
		throw inputError(field.name, 'must be an object with data (the bytes, base64) and filename');
	if (!/^[A-Za-z0-9+/\-_]*={0,2}$/.test(value.data.replace(/\s+/g, ''))) throw inputError(field.name, 'data must be base64-encoded bytes');
	return {
		data: new Uint8Array(Buffer.from(value.data, 'base64')),
		filename: value.filename,
		...(typeof value.mimeType === 'string' && value.mimeType ? { mimeType: value.mimeType } : {}),
	};
}

/**
 * The tool's arguments as the executor's input: unknown arguments are refused (a misspelt filter would
 * otherwise widen a list or change nothing), bytes decoded; everything else is the core's to check.
 */
export function operationInput(tool: CatalogueTool, args: unknown): Record<string, unknown> {
	if (args !== undefined && !isRecord(args)) throw inputError('arguments', 'must be an object');
	const input: Record<string, unknown> = {};
	for (const [name, value] of Object.entries(args ?? {})) {
		if (!(name in tool.inputSchema.properties)) {
			const known = Object.keys(tool.inputSchema.properties).join(', ');
			throw inputError(name, `is not an argument of ${tool.name}${known ? ` (its arguments: ${known})` : ''}`);
		}
		const field = tool.fields.find((candidate) => candidate.name === name);
		input[name] = field?.kind === 'binary' && value !== undefined && value !== null ? binaryInput(field, value) : value;
	}
	return input;
}

const isNameList = (value: unknown): value is string[] => Array.isArray(value) && value.every((name) => typeof name === 'string');

/** The Output choice (the core's Simplified / Raw / Selected Fields), checked before anything is sent. */
export function outputChoice(mode: unknown, fields: unknown): { mode: string; fields?: string[] } {
	const value = mode === undefined || mode === null ? DEFAULT_OUTPUT : mode;
	if (typeof value !== 'string' || !OUTPUT_MODES.some((candidate) => candidate.value === value))
		throw inputError(
			OUTPUT_ARGUMENT,
			`must be one of ${OUTPUT_MODES.map((candidate) => candidate.value).join(', ')}, got ${JSON.stringify(value)}`,
		);
	if (fields !== undefined && !isNameList(fields)) throw inputError(FIELDS_ARGUMENT, 'must be a list of field names');
	if (value === 'selected' && !fields?.length) throw inputError(FIELDS_ARGUMENT, 'names the fields to return with output "selected"');
	return { mode: value, ...(fields ? { fields } : {}) };
}
