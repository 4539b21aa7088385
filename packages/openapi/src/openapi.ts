/**
 * The third generator over the catalogue: an OpenAPI 3.1 document of the service. Every endpoint,
 * parameter and body field (kind, format, pattern, bounds, allowed values, defaults) comes from the
 * descriptors in api/, the response records and each endpoint's answer from the core's records.ts (the MCP
 * tools' output schemas are made from them too); what neither holds — the error responses, the webhook
 * payloads — is written here once.
 *
 * `tsx packages/openapi/src/openapi.ts <out.json>` writes it (npm run build does, into dist/openapi.json and the
 * sandbox package).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import {
	COMPOSITES,
	EVENT_TYPES,
	FIELD_KINDS,
	OPERATIONS,
	RECORD_SCHEMAS,
	RESOURCES,
	SERVICE_ANSWERS,
	answerSchema,
	operationId,
	receiverUrlSchema,
	type FieldDescriptor,
	type OperationDescriptor,
} from '@chat-messaging/core';

type Schema = Record<string, unknown>;

/** The interface's own version (the spec's Versioning section); the package's version goes in `x-package-version`. */
export const API_VERSION = '1.3.0';

const receiverUrl = receiverUrlSchema;
const text = { type: 'string' };
const nullable = (schema: Schema): Schema => ({ ...schema, type: [schema.type as string, 'null'] });

/** The schema of one field's value, from its kind and rules; an empty string where it means something (unassign). */
export function fieldSchema(field: FieldDescriptor): Schema {
	if (field.kind === 'receiverUrl')
		return receiverUrl(`${field.description} (public HTTPS; the local sandbox also accepts http:// on this machine)`);
	const schema = kindSchema(field);
	if (!field.allowEmpty || field.kind === 'stringList') return schema;
	const { description, ...rest } = schema;
	return { description, anyOf: [rest, { const: '' }] };
}

/** The schema of a value of the field's kind: type, format and pattern from the core's table of field kinds. */
function kindSchema(field: FieldDescriptor): Schema {
	const base: Schema = { description: field.description };
	if (field.default !== undefined && field.kind !== 'binary') base.default = field.default;
	const rule = FIELD_KINDS[field.kind];
	switch (field.kind) {
		case 'integer':
			return {
				...base,
				type: 'integer',
				...(field.min !== undefined ? { minimum: field.min } : {}),
				...(field.max !== undefined ? { maximum: field.max } : {}),
			};
		case 'options':
			return { ...base, type: 'string', enum: (field.options ?? []).map((option) => option.value) };
		case 'stringList':
			// Query lists travel as the spec's comma-separated strings; bodies as arrays.
			return field.in === 'query'
				? { ...base, type: 'string', description: `${field.description} (comma-separated)` }
				: { ...base, type: 'array', items: text };
		case 'binary':
			return { ...base, type: 'string', contentMediaType: 'application/octet-stream' };
		default:
			return {
				...base,
				...rule.schema,
				// JSON Schema patterns have no flags: a case-insensitive rule (URLs) is stated by its format alone.
				...(rule.pattern && !rule.pattern.flags.includes('i') ? { pattern: rule.pattern.source } : {}),
			};
	}
}

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const ANSWERS: Record<string, Schema> = Object.fromEntries(
	Object.entries(SERVICE_ANSWERS).map(([id, shape]) => [id, answerSchema(shape, ref)]),
);

const ok = (data: Schema | undefined): Schema => ({
	type: 'object',
	required: ['status', 'data'],
	properties: { status: { const: 'ok' }, data: data ?? { description: 'Not shown by the spec' } },
});

function parameters(op: OperationDescriptor): Schema[] {
	return op.fields
		.filter((field) => field.in === 'path' || field.in === 'query')
		.map((field) => ({
			name: field.name,
			in: field.in,
			required: field.in === 'path' || field.required === true,
			description: field.description,
			schema: { ...fieldSchema(field), description: undefined },
		}));
}

function requestBody(op: OperationDescriptor): Schema | undefined {
	const fields = op.fields.filter((field) => field.in === 'body' || field.in === 'multipart');
	if (!fields.length) return undefined;
	const multipart = fields.some((field) => field.in === 'multipart');
	const schema: Schema = {
		type: 'object',
		properties: Object.fromEntries(fields.map((field) => [field.name, fieldSchema(field)])),
		...(fields.some((field) => field.required) ? { required: fields.filter((field) => field.required).map((field) => field.name) } : {}),
	};
	if (op.requireOneOf) schema.anyOf = op.requireOneOf.map((name) => ({ required: [name] }));
	return { required: true, content: { [multipart ? 'multipart/form-data' : 'application/json']: { schema } } };
}

/** What the nodes offer on top of one endpoint, documented with it (no duplicate paths). */
function friendlyNote(op: OperationDescriptor): string {
	const friendly = OPERATIONS.filter((candidate) => candidate.friendlyOf === operationId(op));
	if (!friendly.length) return op.description;
	return `${op.description}\n\nThe nodes also offer: ${friendly.map((candidate) => `**${candidate.name}** (${candidate.description}${candidate.wireNote ? `: ${candidate.wireNote}` : ''})`).join('; ')}.`;
}

function operationObject(op: OperationDescriptor): Schema {
	const id = operationId(op);
	const body = requestBody(op);
	return {
		operationId: id.replace(':', '_'),
		summary: op.action,
		description:
			friendlyNote(op) +
			(op.pagination
				? `\n\nPaginated: pages of 50 from \`page=1\` while \`data.has_more_pages\` is true; a page holding nothing may be answered 404 "Entities not found".`
				: ''),
		tags: [op.resource],
		...(parameters(op).length ? { parameters: parameters(op) } : {}),
		...(body ? { requestBody: body } : {}),
		responses: {
			'200': { description: 'OK', content: { 'application/json': { schema: ok(ANSWERS[id]) } } },
			...Object.fromEntries(errorStatuses(op).map((status) => [status, { $ref: `#/components/responses/${ERROR_RESPONSES[status]}` }])),
			default: { $ref: '#/components/responses/Error' },
		},
	};
}

const ERROR_RESPONSES: Record<string, string> = {
	'400': 'InvalidParameters',
	'401': 'Unauthorized',
	'403': 'AccessDenied',
	'404': 'NotFound',
	'429': 'RateLimited',
};

/**
 * The error statuses of one operation: GET /chats lists 400, 401, 403 and 404; every endpoint needs the
 * bearer token (401) and takes parameters or a body (400); the service notes add 403 for another workspace's
 * resource or a plan feature and 429 for the request rate, on any request; a path naming a record answers 404
 * when it does not exist.
 */
function errorStatuses(op: OperationDescriptor): string[] {
	const statuses = ['400', '401', '403', '429'];
	if (op.fields.some((field) => field.in === 'path') || (op.method === 'GET' && op.path === '/chats')) statuses.push('404');
	return statuses.sort();
}

/** The three events in both payload shapes: the spec's `{event_type, data}` and the live service's unwrapped one. */
function webhooks(): Schema {
	const spec = (eventType: string): Schema => ({
		type: 'object',
		required: ['event_type', 'data'],
		properties: {
			event_type: { const: eventType },
			data: {
				type: 'object',
				properties: {
					chat_id: { type: 'integer' },
					chat_name: text,
					text: nullable(text),
					message_uid: text,
					unattended_customer: { type: 'boolean' },
				},
			},
		},
	});
	const live = (eventType: string): Schema => ({
		type: 'object',
		required: ['event_type', 'chat'],
		properties: {
			event_type: { const: eventType },
			chat: {
				type: 'object',
				properties: { chat_id: { type: 'integer' }, full_name: text, chat_url: text, is_group: { type: 'boolean' }, phone: nullable(text) },
			},
			chatapp_account: { type: 'object' },
			message: {
				type: 'object',
				properties: {
					text: nullable(text),
					direction: text,
					message_uid: text,
					attachments: {
						type: 'array',
						items: {
							type: 'object',
							properties: { temporary_download_url: text, filename: text, size: { type: 'integer' }, mimetype: text },
						},
					},
				},
			},
		},
	});
	return Object.fromEntries(
		EVENT_TYPES.map((event) => [
			event.value,
			{
				post: {
					operationId: `event_${event.value.replace(/:/g, '_')}`,
					summary: event.name,
					description: `${event.description}. Delivered to a subscription's HTTPS URL; answer 2xx within 5 seconds, or it is retried twice. The same event may arrive more than once.`,
					requestBody: { required: true, content: { 'application/json': { schema: { oneOf: [spec(event.value), live(event.value)] } } } },
					responses: { '200': { description: 'Received' } },
				},
			},
		]),
	);
}

export function buildOpenApi(version: string): Schema {
	const paths: Record<string, Record<string, Schema>> = {};
	for (const op of OPERATIONS.filter((candidate) => !candidate.friendlyOf)) {
		(paths[op.path] ??= {})[op.method.toLowerCase()] = operationObject(op);
	}
	return {
		openapi: '3.1.0',
		info: {
			title: 'Chat Messaging Service API',
			version: API_VERSION,
			description:
				'Generated from the operation catalogue of the Chat Messaging nodes (packages/core/src/catalogue/resources). Every request needs `Authorization: Bearer <API_TOKEN>`.',
			license: { name: 'MIT', identifier: 'MIT' },
		},
		'x-package-version': version,
		// Operations made of several calls (packages/core/src/catalogue/composites.ts): no one path describes them, so they are
		// listed here for tools (the client and the MCP server run them through the core).
		'x-composite-operations': COMPOSITES.map((composite) => ({
			operationId: operationId(composite),
			summary: composite.action,
			description: composite.description,
			effect: composite.effect,
			variants: {
				name: composite.variants.name,
				default: composite.variants.default,
				options: composite.variants.options.map((option) => ({ value: option.value, operation: option.operation })),
			},
			options: composite.options.map((option) => ({ name: option.name, default: option.default, description: option.description })),
			steps: composite.steps,
			recoversLostSend: composite.recoversLostSend,
		})),
		servers: [
			{
				url: '{baseUrl}',
				description: "The live service: the address of the workspace's API (its API integration page), without a trailing slash",
				variables: { baseUrl: { default: 'https://api.chat-messaging.example', description: 'Base address of the live service' } },
			},
			{ url: 'http://127.0.0.1:4010', description: 'The local sandbox (`npm run sandbox`)' },
		],
		security: [{ bearer: [] }],
		tags: RESOURCES.map((resource) => ({ name: resource.key, description: resource.description })),
		paths,
		webhooks: webhooks(),
		components: {
			securitySchemes: {
				bearer: { type: 'http', scheme: 'bearer', description: "The API token from the workspace owner's API integration page" },
			},
			schemas: RECORD_SCHEMAS,
			responses: {
				Error: { description: 'An error', content: { 'application/json': { schema: ref('Error') } } },
				InvalidParameters: {
					description: 'Invalid parameters (`validation_error` with `errors`, or `not_supported`)',
					content: { 'application/json': { schema: ref('Error') } },
				},
				Unauthorized: {
					description: 'Token missing or invalid (`missing_credentials`, `invalid_token`); the spec documents no body',
					content: { 'application/json': { schema: ref('Error') } },
				},
				AccessDenied: {
					description: "Access denied: another workspace's resource or a plan feature",
					content: { 'application/json': { schema: ref('Error') } },
				},
				NotFound: {
					description:
						'Entities not found: the record the path names does not exist, or (lists) a page holding nothing past the last page or for a filter matching nothing',
					content: { 'application/json': { schema: ref('Error') } },
				},
				RateLimited: {
					description: 'Too many requests (`rate_limit_exceeded`): back off and retry',
					content: { 'application/json': { schema: ref('Error') } },
				},
			},
		},
	};
}

if (require.main === module) {
	const out = process.argv[2] ?? 'dist/openapi.json';
	mkdirSync(dirname(out), { recursive: true });
	const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };
	writeFileSync(out, `${JSON.stringify(buildOpenApi(pkg.version), null, 2)}\n`);
	console.log(`wrote ${out}`);
}
