/**
 * The third generator over the catalogue: an OpenAPI 3.1 document of the service. Every endpoint,
 * parameter and body field (kind, format, pattern, bounds, allowed values, defaults) comes from the
 * descriptors in packages/core/src/catalogue, and so does what each endpoint answers (its descriptor's `answer`,
 * made a schema by the core's records.ts, which holds the response records too; the MCP tools' output schemas are
 * made from them as well); what neither holds — the error responses, the webhook payloads — is written here once.
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
	INTEGER_SCHEMA,
	RECORD_SCHEMAS,
	RESOURCES,
	answerSchema,
	operationId,
	receiverUrlSchema,
	type FieldDescriptor,
	type OperationDescriptor,
	type ResourceDescriptor,
} from '@chat-messaging/core';

type Schema = Record<string, unknown>;

/** The interface's own version (the spec's Versioning section); the package's version goes in `x-package-version`. */
export const API_VERSION = '1.3.0';

const receiverUrl = receiverUrlSchema;
const text = { type: 'string' };
const int = INTEGER_SCHEMA;
const nullable = (schema: Schema): Schema => ({ ...schema, type: [schema.type as string, 'null'] });

/**
 * A pattern's source matching letters in either case: JSON Schema patterns have no flags, so `https?` becomes
 * `[Hh][Tt][Tt][Pp][Ss]?` (letters inside a class or after a backslash stay as they are).
 */
export function anyCase(source: string): string {
	let out = '';
	let inClass = false;
	for (let index = 0; index < source.length; index += 1) {
		const char = source[index];
		if (char === '\\') {
			out += char + (source[index + 1] ?? '');
			index += 1;
		} else if (inClass) {
			out += char;
			if (char === ']') inClass = false;
		} else if (char === '[') {
			out += char;
			inClass = true;
		} else out += /[a-z]/i.test(char) ? `[${char.toUpperCase()}${char.toLowerCase()}]` : char;
	}
	return out;
}
const escapeRegExp = (value: string): string => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

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
	if (field.pattern) {
		// An editor's default that is no value of the service (the reaction's empty start) is not the service's default.
		const { default: start, ...rest } = base;
		const keep = typeof start === 'string' && field.pattern.test(start);
		return { ...rest, ...(keep ? { default: start } : {}), type: 'string', pattern: field.pattern.source };
	}
	switch (field.kind) {
		case 'integer':
			return {
				...base,
				...int,
				...(field.min !== undefined ? { minimum: field.min } : {}),
				...(field.max !== undefined ? { maximum: field.max } : {}),
			};
		case 'options': {
			const values = (field.options ?? []).map((option) => option.value);
			// The service takes these in any case: a pattern says so (an enum would refuse "Admin").
			if (field.serviceIgnoresCase)
				return {
					...base,
					description: `${field.description}: one of ${values.join(', ')}, in any case`,
					type: 'string',
					pattern: `^(${values.map((value) => anyCase(escapeRegExp(value))).join('|')})$`,
				};
			return { ...base, type: 'string', enum: values };
		}
		case 'stringList':
			// Query lists travel as the spec's comma-separated strings; bodies as arrays.
			return field.in === 'query'
				? { ...base, type: 'string', description: `${field.description} (comma-separated)` }
				: { ...base, type: 'array', items: { type: 'string', pattern: '\\S' } };
		case 'binary':
			return { ...base, type: 'string', contentMediaType: 'application/octet-stream' };
		default: {
			// JSON Schema patterns have no flags: a case-insensitive rule (URLs) is spelt out in both cases.
			const pattern = rule.pattern && (rule.pattern.flags.includes('i') ? anyCase(rule.pattern.source) : rule.pattern.source);
			// A string member of a body, when given, holds something: blank text is refused (where the spec is silent; an
			// empty string that means something, such as unassigning, is allowed by fieldSchema).
			const notBlank = !pattern && (field.in === 'body' || field.in === 'multipart') && rule.schema.type === 'string';
			return { ...base, ...rule.schema, ...(pattern ? { pattern } : notBlank ? { pattern: '\\S' } : {}) };
		}
	}
}

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

const ok = (data: Schema | undefined): Schema => ({
	type: 'object',
	required: ['status', 'data'],
	properties: { status: { const: 'ok' }, data: data ?? { description: 'Not shown by the spec' } },
});

/** The page parameter in the spec's words (the descriptor's text is written for the nodes, which page on their own). */
const PAGE_DESCRIPTION = 'Page number, starting at 1; `data.has_more_pages` says whether another page follows';

function parameters(op: OperationDescriptor): Schema[] {
	return op.fields
		.filter((field) => field.in === 'path' || field.in === 'query')
		.map((field) => ({
			name: field.name,
			in: field.in,
			required: field.in === 'path' || field.required === true,
			description: op.pagination?.pageParam === field.name ? PAGE_DESCRIPTION : field.description,
			schema: { ...fieldSchema(field), description: undefined },
		}));
}

/**
 * A body member a friendly operation sends as `""` on this endpoint means something there (Reaction → Remove sends
 * `reaction: ""`, which clears it): the document allows the empty string, as it does for `allowEmpty` fields.
 */
function emptyWhenFixed(op: OperationDescriptor, operations: readonly OperationDescriptor[], field: FieldDescriptor): FieldDescriptor {
	const friendly = operations.filter((candidate) => candidate.friendlyOf === operationId(op));
	return friendly.some((candidate) => candidate.fixedBody?.[field.name] === '') ? { ...field, allowEmpty: true } : field;
}

function requestBody(op: OperationDescriptor, operations: readonly OperationDescriptor[]): Schema | undefined {
	const fields = op.fields.filter((field) => field.in === 'body' || field.in === 'multipart');
	if (!fields.length) return undefined;
	const multipart = fields.some((field) => field.in === 'multipart');
	const schema: Schema = {
		type: 'object',
		properties: Object.fromEntries(fields.map((field) => [field.name, fieldSchema(emptyWhenFixed(op, operations, field))])),
		// A member the operation does not take is refused (the spec is silent; a misspelt field is caught, not ignored).
		additionalProperties: false,
		...(fields.some((field) => field.required) ? { required: fields.filter((field) => field.required).map((field) => field.name) } : {}),
	};
	if (op.requireOneOf) schema.anyOf = op.requireOneOf.map((name) => ({ required: [name] }));
	return { required: true, content: { [multipart ? 'multipart/form-data' : 'application/json']: { schema } } };
}

/** What the nodes offer on top of one endpoint, documented with it (no duplicate paths). */
function friendlyNote(op: OperationDescriptor, operations: readonly OperationDescriptor[]): string {
	const friendly = operations.filter((candidate) => candidate.friendlyOf === operationId(op));
	if (!friendly.length) return op.description;
	return `${op.description}\n\nThe nodes also offer: ${friendly.map((candidate) => `**${candidate.name}** (${candidate.description}${candidate.wireNote ? `: ${candidate.wireNote}` : ''})`).join('; ')}.`;
}

function operationObject(op: OperationDescriptor, operations: readonly OperationDescriptor[], alias?: string): Schema {
	const id = operationId(op);
	const body = requestBody(op, operations);
	return {
		operationId: id.replace(':', '_') + (alias ? `_${alias.toLowerCase()}` : ''),
		summary: op.action,
		description:
			(alias ? `The same as ${op.method} ${op.path} (the service answers ${alias} as an alias of ${op.method}).\n\n` : '') +
			friendlyNote(op, operations) +
			(op.pagination
				? `\n\nPaginated: pages of 50 from \`page=1\` while \`data.has_more_pages\` is true; a page holding nothing may be answered 404 "Entities not found".`
				: ''),
		tags: [op.resource],
		...(parameters(op).length ? { parameters: parameters(op) } : {}),
		...(body ? { requestBody: body } : {}),
		responses: {
			'200': { description: 'OK', content: { 'application/json': { schema: ok(answerSchema(op, ref)) } } },
			...Object.fromEntries(errorStatuses(op).map((status) => [status, { $ref: `#/components/responses/${ERROR_RESPONSES[status]}` }])),
			default: { $ref: '#/components/responses/Error' },
		},
	};
}

const ERROR_RESPONSES: Record<string, string> = {
	'400': 'InvalidParameters',
	'401': 'Unauthorized',
	'402': 'QuotaExceeded',
	'403': 'AccessDenied',
	'404': 'NotFound',
	'429': 'RateLimited',
	'500': 'InternalError',
};

/**
 * The error statuses of one operation: GET /chats lists 400, 401, 403 and 404; every endpoint needs the
 * bearer token (401) and takes parameters or a body (400); the service notes add 403 for another workspace's
 * resource or a plan feature and 429 for the request rate, on any request; `internal_error` (500) may come from
 * any. A path naming a record answers 404 when it does not exist, so does a list page holding nothing (the
 * spec's "entities not found" of GET /chats) and a send naming a chat, a JID or a file that does not exist.
 * A send spends credits: `quota_exceeded` is 402 (the spec maps no code to a status; the sandbox's choice).
 */
function errorStatuses(op: OperationDescriptor): string[] {
	const statuses = ['400', '401', '403', '429', '500'];
	if (op.fields.some((field) => field.in === 'path') || op.pagination || op.sendsMessage) statuses.push('404');
	if (op.sendsMessage) statuses.push('402');
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
					chat_id: int,
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
				properties: { chat_id: int, full_name: text, chat_url: text, is_group: { type: 'boolean' }, phone: nullable(text) },
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
							properties: { temporary_download_url: text, filename: text, size: int, mimetype: text },
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

/** The document of a catalogue (the real one unless a test passes a changed copy). */
export function buildOpenApi(version: string, resources: readonly ResourceDescriptor[] = RESOURCES): Schema {
	const operations = resources.flatMap((resource) => resource.operations);
	const paths: Record<string, Record<string, Schema>> = {};
	for (const op of operations.filter((candidate) => !candidate.friendlyOf)) {
		(paths[op.path] ??= {})[op.method.toLowerCase()] = operationObject(op, operations);
		for (const alias of op.methodAliases ?? []) paths[op.path][alias.toLowerCase()] = operationObject(op, operations, alias);
	}
	return {
		openapi: '3.1.0',
		info: {
			title: 'Chat Messaging Service API',
			version: API_VERSION,
			description:
				'Generated from the operation catalogue of the Chat Messaging nodes (packages/core/src/catalogue/resources). Every request needs `Authorization: Bearer <API_TOKEN>`.',
			license: { name: 'MIT', identifier: 'MIT' },
			contact: { name: 'Chat Messaging nodes', url: 'https://github.com/chat-messaging/chat-messaging-nodes' },
		},
		'x-package-version': version,
		// Operations made of several calls (packages/core/src/catalogue/composites.ts): no one path describes them, so they are
		// listed here for tools (the client and the MCP server run them through the core).
		'x-composite-operations': COMPOSITES.map((composite) => ({
			operationId: operationId(composite),
			summary: composite.action,
			description: composite.description,
			effect: composite.effect,
			...(composite.variants && {
				variants: {
					name: composite.variants.name,
					default: composite.variants.default,
					options: composite.variants.options.map((option) => ({ value: option.value, operation: option.operation })),
				},
			}),
			options: composite.options.map((option) => ({ name: option.name, default: option.default, description: option.description })),
			steps: composite.steps,
			recoversLostSend: composite.recoversLostSend,
		})),
		servers: [
			{
				url: '{baseUrl}',
				description:
					"The live service (production): the address of the workspace's API (its API integration page), without a trailing slash",
				variables: { baseUrl: { default: 'https://api.chat-messaging.example', description: 'Base address of the live service' } },
				'x-internal': false,
			},
			// Plain http on loopback only: the sandbox is a local test double, never exposed.
			{ url: 'http://127.0.0.1:4010', description: 'The local sandbox (`npm run sandbox`), on this machine only', 'x-internal': true },
		],
		security: [{ bearer: [] }],
		tags: resources.map((resource) => ({ name: resource.key, description: resource.description })),
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
					headers: {
						'Retry-After': {
							description: 'Seconds to wait before the next request',
							schema: { ...int, minimum: 0, maximum: 86_400 },
						},
					},
					content: { 'application/json': { schema: ref('Error') } },
				},
				QuotaExceeded: {
					description: 'Message quota exceeded (`quota_exceeded`): no credits left for the send',
					content: { 'application/json': { schema: ref('Error') } },
				},
				InternalError: {
					description: 'A fault of the service (`internal_error`)',
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
