/**
 * Writes the typings of `@chat-messaging/client` from the catalogue: one method per operation, its
 * input typed field by field (names, required, kinds, allowed values) from the descriptors, so the
 * types can never drift from what the executor checks. scripts/build.ts writes them to dist/index.d.ts.
 */

import {
	COMPOSITES,
	FIELD_KINDS,
	fieldHint,
	RESOURCES,
	type CompositeDescriptor,
	type FieldDescriptor,
	type OperationDescriptor,
	type ResourceDescriptor,
} from '@chat-messaging/core';
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

/** A composite: its variant choice, every variant's fields (optional here: which are required depends on the choice), its options. */
function compositeMethod(composite: CompositeDescriptor): string {
	const { variants } = composite;
	const member = (field: FieldDescriptor, note: string, type: string) =>
		`${comment(`${field.displayName}: ${field.description}${note}`, '\t\t\t')}\t\t\t${field.name}?: ${type};`;
	const choice = variants
		? [
				`${comment(
					`${variants.displayName}: ${variants.options.map((option) => `${option.value} (${option.name})`).join(', ')}; default ${variants.default}`,
					'\t\t\t',
				)}\t\t\t${variants.name}?: ${variants.options.map((option) => `'${option.value}'`).join(' | ')};`,
			]
		: [];
	const input = [
		...choice,
		...composite.fields.map(({ field, variants: used }) =>
			variants ? member(field, ` (${variants.displayName} ${used.join(', ')})`, fieldType(field)) : member(field, '', fieldType(field)),
		),
		...composite.options.map((field) =>
			member(
				field,
				'',
				field.name === 'attachment'
					? '{ binary: BinaryInput } | { url: string; filename?: string; contentType?: string } | string'
					: fieldType(field),
			),
		),
	].join('\n');
	return `${comment(`${composite.action}. ${composite.description}`, '\t\t')}\t\t${methodName(composite)}(input: {\n${input}\n\t\t}): Promise<Record<string, unknown>>;`;
}

export function clientTypes(resources: readonly ResourceDescriptor[] = RESOURCES): string {
	const groups = resources
		.map((resource) => {
			const methods = [
				...resource.operations.map(method),
				...COMPOSITES.filter((composite) => composite.resource === resource.key).map(compositeMethod),
			];
			return `${comment(resource.description, '\t')}\t${groupName(resource.key)}: {\n${methods.join('\n')}\n\t};`;
		})
		.join('\n');
	return `// Generated from the operation catalogue by packages/client/scripts/types.ts: do not edit.

export interface ClientOptions {
	baseUrl: string;
	token: string;
	/** Replaces the built-in fetch transport (tests, proxies). */
	transport?: Transport;
}

export interface TransportRequest {
	method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
	url: string;
	headers: Record<string, string>;
	body?: string | Uint8Array;
	timeoutMs: number;
	responseType?: 'json' | 'bytes';
	authenticate?: boolean;
}

export interface TransportResponse {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
}

/** Sends one request: resolves for every HTTP status, rejects only when no answer came. */
export type Transport = (request: TransportRequest) => Promise<TransportResponse>;

export interface Timing {
	sleep(ms: number): Promise<void>;
	now(): number;
	random(): number;
}

/** The built-in transport (Node's fetch), to wrap or to give an Executor of your own. */
export declare const fetchTransport: Transport;
export declare const realTiming: Timing;

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

export interface ValidationItem {
	fields: Array<string | number>;
	msg: string;
}

export declare class ChatMessagingError extends Error {
	readonly kind: 'input' | 'service' | 'network' | 'timeout' | 'internal';
	readonly httpStatus?: number;
	readonly errorCode?: string;
	readonly errors?: ValidationItem[];
	readonly field?: string;
	readonly operation?: string;
	readonly networkCode?: string;
	readonly responseText?: string;
	readonly mayHaveTakenEffect?: boolean;
	readonly serviceBody?: boolean;
}

export interface ChatMessagingClient {
${groups}
}

export declare function createClient(options: ClientOptions): ChatMessagingClient;
`;
}
