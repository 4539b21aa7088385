/**
 * Writes the typings of `@chat-messaging/client` from the catalogue: one method per operation, its
 * input typed field by field (names, required, kinds, allowed values) from the descriptors, so the
 * types can never drift from what the executor checks. scripts/build.ts writes them to dist/index.d.ts.
 */

import { FIELD_KINDS, fieldHint, RESOURCES, type FieldDescriptor, type OperationDescriptor } from '@chat-messaging/core';
import { groupName, methodName } from '../src';

/** A field's TypeScript type: its allowed values, else its kind's type in the core's table of field kinds. */
function fieldType(field: FieldDescriptor): string {
	if (field.kind === 'options') return (field.options ?? []).map((option) => `'${option.value}'`).join(' | ');
	return FIELD_KINDS[field.kind].clientType;
}

const comment = (text: string, indent: string) => `${indent}/** ${text.replace(/\*\//g, '*\\/')} */\n`;

function method(op: OperationDescriptor): string {
	const fields = op.fields.filter((field) => field.name !== 'page' || !op.pagination);
	const input = fields
		.map(
			(field) =>
				`${comment([`${field.displayName}: ${field.description}`, fieldHint(field, 'UTC')].filter(Boolean).join('. '), '\t\t\t')}\t\t\t${field.name}${field.required ? '' : '?'}: ${fieldType(field)};`,
		)
		.join('\n');
	const required = fields.some((field) => field.required);
	const result = op.download ? 'DownloadedFile' : op.pagination ? 'Array<Record<string, unknown>>' : 'Record<string, unknown>';
	const options = op.sendsMessage ? 'SendOptions' : op.pagination ? 'ListOptions' : 'never';
	const params = `input${required ? '' : '?'}: {\n${input}\n\t\t}${options === 'never' ? '' : `, options?: ${options}`}`;
	return `${comment(`${op.action}. ${op.description}`, '\t\t')}\t\t${methodName(op)}(${fields.length ? params : ''}): Promise<${result}>;`;
}

export function clientTypes(): string {
	const groups = RESOURCES.map(
		(resource) =>
			`${comment(resource.description, '\t')}\t${groupName(resource.key)}: {\n${resource.operations.map(method).join('\n')}\n\t};`,
	).join('\n');
	return `// Generated from the operation catalogue by packages/client/scripts/types.ts: do not edit.

export interface ClientOptions {
	baseUrl: string;
	token: string;
}

export interface BinaryInput {
	data: Uint8Array;
	filename: string;
	mimeType?: string;
}

export interface DownloadedFile {
	data: Uint8Array;
	filename: string;
	mimeType: string;
	file?: Record<string, unknown>;
}

export interface ListOptions {
	/** Every page (default), or up to \`limit\` items. */
	returnAll?: boolean;
	limit?: number;
}

export interface SendOptions {
	attachment?: { binary: BinaryInput } | { url: string; filename?: string; contentType?: string };
	waitFor?: 'sent' | 'delivered' | 'read';
	timeoutMs?: number;
}

export declare class ChatMessagingError extends Error {
	readonly kind: 'input' | 'service' | 'network' | 'timeout' | 'internal';
	readonly httpStatus?: number;
	readonly errorCode?: string;
	readonly field?: string;
	readonly operation?: string;
	readonly mayHaveTakenEffect?: boolean;
}

export interface ChatMessagingClient {
${groups}
}

export declare function createClient(options: ClientOptions): ChatMessagingClient;
`;
}
