/**
 * Checks traffic against the generated OpenAPI document: every request a transport carries must be
 * valid for its operation (path, query and JSON body), and every JSON answer must match the
 * document's schema for its status (the success envelope, or the error body). A mismatch is
 * recorded naming the operation and the field.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ErrorObject, ValidateFunction } from 'ajv';

import type { Transport, TransportRequest, TransportResponse } from '@chat-messaging/core';
import { buildOpenApi } from '../../packages/openapi/src/openapi';

type Doc = ReturnType<typeof buildOpenApi> & { paths: Record<string, Record<string, OperationObject>> };
interface OperationObject {
	operationId: string;
	parameters?: Array<{ name: string; in: 'path' | 'query'; required: boolean; schema: Record<string, unknown> }>;
	requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
	responses: Record<string, unknown>;
}

export const OPENAPI = buildOpenApi('test') as Doc;

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(OPENAPI, 'openapi');
const pointer = (...parts: string[]) => parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
const compiled = new Map<string, ValidateFunction>();
function validator(path: string): ValidateFunction {
	let validate = compiled.get(path);
	if (!validate) {
		validate = ajv.compile({ $ref: `openapi#/${path}` });
		compiled.set(path, validate);
	}
	return validate;
}

/** The document's operation for a request, with its path template. */
export function operationFor(
	method: string,
	pathname: string,
): { template: string; op: OperationObject; params: Record<string, string> } | undefined {
	for (const [template, methods] of Object.entries(OPENAPI.paths)) {
		const op = methods[method.toLowerCase()];
		if (!op) continue;
		const names: string[] = [];
		const pattern = new RegExp(`^${template.replace(/\{(\w+)\}/g, (_, name: string) => (names.push(name), '([^/]+)'))}$`);
		const match = pattern.exec(pathname);
		if (match)
			return { template, op, params: Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(match[index + 1])])) };
	}
	return undefined;
}

const describeErrors = (errors: ErrorObject[] | null | undefined) =>
	(errors ?? []).map((error) => `${error.instancePath || '(root)'} ${error.message ?? ''}`).join('; ');

/** Query and path values travel as text: typed like the schema says before checking. */
function typed(value: string, schema: Record<string, unknown>): unknown {
	if (schema.type === 'integer' && /^-?\d+$/.test(value)) return Number(value);
	if (schema.type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
	return value;
}

export function checkRequest(request: TransportRequest): string[] {
	const url = new URL(request.url);
	const found = operationFor(request.method, url.pathname);
	if (!found) return [`${request.method} ${url.pathname}: no such operation in openapi.json`];
	const { template, op, params } = found;
	const findings: string[] = [];
	for (const parameter of op.parameters ?? []) {
		const raw = parameter.in === 'path' ? params[parameter.name] : (url.searchParams.get(parameter.name) ?? undefined);
		if (raw === undefined) {
			if (parameter.required) findings.push(`${op.operationId}: ${parameter.in} parameter ${parameter.name} is missing`);
			continue;
		}
		const validate = ajv.compile(parameter.schema);
		if (!validate(typed(raw, parameter.schema)))
			findings.push(`${op.operationId}: ${parameter.in} parameter ${parameter.name}=${raw}: ${describeErrors(validate.errors)}`);
	}
	for (const name of url.searchParams.keys()) {
		if (!(op.parameters ?? []).some((parameter) => parameter.in === 'query' && parameter.name === name))
			findings.push(`${op.operationId}: query parameter ${name} is not in the document`);
	}
	const json = op.requestBody?.content['application/json'];
	if (json && typeof request.body === 'string') {
		const validate = validator(
			pointer('paths', template, request.method.toLowerCase(), 'requestBody', 'content', 'application/json', 'schema'),
		);
		if (!validate(JSON.parse(request.body))) findings.push(`${op.operationId}: body ${describeErrors(validate.errors)}`);
	}
	return findings;
}

export function checkResponse(request: TransportRequest, response: TransportResponse): string[] {
	if (request.responseType === 'bytes' || typeof response.body !== 'object' || response.body === null) return [];
	const url = new URL(request.url);
	const found = operationFor(request.method, url.pathname);
	if (!found) return [];
	const { template, op } = found;
	const ok = response.status >= 200 && response.status < 300;
	const schemaPath = ok
		? pointer('paths', template, request.method.toLowerCase(), 'responses', '200', 'content', 'application/json', 'schema')
		: pointer('components', 'schemas', 'Error');
	const validate = validator(schemaPath);
	return validate(response.body)
		? []
		: [`${op.operationId}: ${ok ? 'answer' : `error answer ${response.status}`} ${describeErrors(validate.errors)}`];
}

/** A transport that records every mismatch of the traffic it carries. */
export function checkedTransport(inner: Transport, findings: string[]): Transport {
	return async (request) => {
		const sameService = !request.url.includes('/_sandbox/');
		if (sameService) findings.push(...checkRequest(request));
		const response = await inner(request);
		if (sameService) findings.push(...checkResponse(request, response));
		return response;
	};
}
