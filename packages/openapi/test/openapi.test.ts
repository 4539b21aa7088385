/**
 * The OpenAPI document generated from the catalogue: complete, lint-clean, served by the sandbox, and
 * cross-checked against the sandbox under a property-based generator of valid and invalid inputs
 * (fast-check): whatever the executor sends is valid for the document, and what the sandbox answers
 * matches the document. (Every request of packages/core/test/executor-sandbox.test.ts is checked the same way.)
 */
import { execFileSync } from 'child_process';
import { join } from 'path';
import fc from 'fast-check';

import { ChatMessagingError, endpoints, Executor, FIELD_KINDS } from '@chat-messaging/core';
import { startSandbox } from '@chat-messaging/sandbox';
import { fetchTransport, realTiming } from '../../../test/support/fetch-transport';
import { checkedTransport, OPENAPI } from '../../../test/support/openapi-check';
import { specEndpoints } from '../../../test/support/spec-endpoints';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

describe('the document', () => {
	it("holds every endpoint of the catalogue (the spec's, as the sandbox serves them), the bearer scheme and the three events in both shapes", () => {
		const documented = Object.entries(OPENAPI.paths).flatMap(([path, methods]) =>
			Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
		);
		expect(documented.sort()).toEqual(endpoints().sort());
		expect(documented).toHaveLength(specEndpoints().length);
		expect((OPENAPI.components as { securitySchemes: unknown }).securitySchemes).toEqual({
			bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
		});
		const hooks = OPENAPI.webhooks as Record<
			string,
			{ post: { requestBody: { content: { 'application/json': { schema: { oneOf: unknown[] } } } } } }
		>;
		expect(Object.keys(hooks).sort()).toEqual(['chat:created', 'message:received:new', 'message:sent:new']);
		for (const hook of Object.values(hooks)) expect(hook.post.requestBody.content['application/json'].schema.oneOf).toHaveLength(2);
	});

	it("states the API's version, the spec's statuses, required and typed fields, the HTTPS rule, both list shapes and both servers", () => {
		const doc = OPENAPI as unknown as {
			info: { version: string };
			'x-package-version': string;
			servers: Array<{ url: string; description: string }>;
			paths: Record<
				string,
				Record<
					string,
					{
						responses: Record<string, unknown>;
						requestBody?: { content: Record<string, { schema: { properties: Record<string, Record<string, unknown>> } }> };
					}
				>
			>;
			components: { schemas: Record<string, { required?: string[]; properties: Record<string, Record<string, unknown>> }> };
		};
		// The spec's Versioning section; the package version travels beside it.
		expect(doc.info.version).toBe('1.3.0');
		expect(doc['x-package-version']).toBe('test');
		// GET /chats: "Documented statuses: 200, 400, 401, 403, 404".
		expect(Object.keys(doc.paths['/chats'].get.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404']));
		for (const methods of Object.values(doc.paths))
			for (const op of Object.values(methods)) expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '429']));
		// Chat: `photo` required (a URL, never null), group members typed as the spec lists them.
		const chat = doc.components.schemas.Chat;
		expect(chat.required).toContain('photo');
		expect(chat.properties.photo.type).toBe('string');
		const members = chat.properties.group_members as { items: { required: string[]; properties: Record<string, { type: unknown }> } };
		expect(members.items.required).toEqual(['name', 'phone', 'role', 'chat_id']);
		expect(members.items.properties.chat_id.type).toEqual(['integer', 'null']);
		// A subscription's URL: public HTTPS (the sandbox's loopback http allowed), in the record and both bodies.
		const urlSchemas = [
			doc.components.schemas.Webhook.properties.url,
			doc.paths['/webhooks'].post.requestBody!.content['application/json'].schema.properties.url,
			doc.paths['/webhooks/{id}'].put.requestBody!.content['application/json'].schema.properties.url,
		];
		for (const schema of urlSchemas) {
			const pattern = new RegExp(schema.pattern as string);
			expect(['https://hooks.example.com/in', 'http://127.0.0.1:5678/webhook/x'].every((url) => pattern.test(url))).toBe(true);
			expect(['http://hooks.example.com/in', 'ftp://hooks.example.com', 'http://10.0.0.5/in'].some((url) => pattern.test(url))).toBe(false);
		}
		// GET /chatapp_accounts: the service notes' object and the bare array the client also reads.
		const accounts = doc.paths['/chatapp_accounts'].get.responses['200'] as {
			content: { 'application/json': { schema: { properties: { data: { oneOf: unknown[] } } } } };
		};
		expect(accounts.content['application/json'].schema.properties.data.oneOf).toHaveLength(2);
		// The live service beside the sandbox.
		expect(doc.servers.map((server) => server.url)).toEqual(['{baseUrl}', 'http://127.0.0.1:4010']);
	});

	it("passes Redocly's recommended rules with zero errors (the linter npm run lint runs; an ES module, so in its own process)", () => {
		const root = join(__dirname, '..');
		const output = execFileSync(join(root, '..', '..', 'node_modules', '.bin', 'tsx'), ['scripts/lint.ts'], {
			cwd: root,
			encoding: 'utf8',
		});
		expect(output).toMatch(/openapi\.json \(Redocly recommended\): 0 errors/);
	});

	it("states each field's rule from the core's table of field kinds: the phone, phone filter, JID and email patterns", () => {
		// Every schema the document gives a body member or a parameter of this name.
		const schemasOf = (name: string): Array<Record<string, unknown>> => {
			const found: Array<Record<string, unknown>> = [];
			const walk = (node: unknown): void => {
				if (Array.isArray(node)) return node.forEach(walk);
				if (!node || typeof node !== 'object') return;
				const record = node as Record<string, any>;
				if (record.properties?.[name]) found.push(record.properties[name]);
				if (record.name === name && record.schema) found.push(record.schema);
				Object.values(record).forEach(walk);
			};
			walk(OPENAPI.paths);
			return found;
		};
		const patterns = (name: string) => [...new Set(schemasOf(name).map((schema) => schema.pattern))];
		expect(patterns('jid')).toEqual([FIELD_KINDS.jid.pattern!.source]);
		expect(patterns('email')).toEqual([FIELD_KINDS.email.pattern!.source]);
		// The send's phone number, and the chat list's phone filter (part of a number).
		expect(patterns('phone').sort()).toEqual([FIELD_KINDS.phone.pattern!.source, FIELD_KINDS.phoneFilter.pattern!.source].sort());
	});
});

describe('against the sandbox', () => {
	let sandbox: Sandbox;
	const findings: string[] = [];
	let executor: Executor;
	beforeAll(async () => {
		sandbox = await startSandbox({ chats: 60, tokens: ['openapi-token'], seed: 4, paceMs: 10 });
		executor = new Executor({
			baseUrl: sandbox.url,
			transport: checkedTransport(fetchTransport, findings),
			timing: realTiming,
			token: sandbox.tokens[0],
			rateLimit: false,
		});
	});
	afterAll(() => sandbox.stop());

	it('serves the document at /openapi.json and a readable reference at /docs, without a token, offline', async () => {
		const served = await fetch(`${sandbox.url}/openapi.json`);
		expect(served.status).toBe(200);
		expect(((await served.json()) as { paths: object }).paths).toEqual(JSON.parse(JSON.stringify(OPENAPI.paths)));
		const page = await (await fetch(`${sandbox.url}/docs`)).text();
		expect(page).toContain('/docs/swagger-ui-bundle.js');
		for (const asset of ['/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css'])
			expect((await fetch(`${sandbox.url}${asset}`)).status).toBe(200);
	});

	/** Runs one input: either refused before any request (naming a field), or sent and answered as the document says. */
	const attempt = async (operation: string, input: Record<string, unknown>) => {
		const before = findings.length;
		try {
			await executor.run(operation, input, { returnAll: false, limit: 5 });
		} catch (error) {
			if (!(error instanceof ChatMessagingError)) throw error;
			// A request the executor let through but the sandbox refused as invalid: the two disagree.
			if (error.kind === 'service' && error.errorCode === 'validation_error')
				findings.push(
					`${operation} ${JSON.stringify(input)}: the sandbox refused what the executor and the document allow: ${error.message}`,
				);
			else if (error.kind !== 'input' && error.kind !== 'service') throw error;
		}
		return findings.slice(before);
	};

	const text = fc.oneof(
		fc.string({ maxLength: 12 }),
		fc.constantFrom('', ' ', '+4915112345678', '0151', '2026-01-31', '1 2 3', 'a,b', '..', 'x@y.io'),
	);
	const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });

	it('chat list filters: valid and invalid values, never a mismatch', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.record({
					name: maybe(text),
					label: maybe(text),
					phone: maybe(fc.oneof(text, fc.stringMatching(/^\+?\d{1,15}$/))),
					closed: maybe(fc.oneof(fc.boolean(), text)),
					group: maybe(fc.boolean()),
					created_after: maybe(
						fc.oneof(
							text,
							fc.date({ min: new Date('1971-01-01'), max: new Date('2090-01-01'), noInvalidDate: true }).map((date) => date.toISOString()),
						),
					),
					page: maybe(fc.oneof(fc.integer({ min: -2, max: 4 }), text)),
				}),
				async (input) => expect(await attempt('chat:getAll', input)).toEqual([]),
			),
			{ numRuns: 80 },
		);
	});

	it('sends by phone: valid and invalid phones and texts, never a mismatch', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.record({ phone: fc.oneof(text, fc.stringMatching(/^\+?[1-9]\d{6,14}$/)), text: maybe(text), label: maybe(text) }),
				async (input) => expect(await attempt('message:sendToPhone', input)).toEqual([]),
			),
			{ numRuns: 60 },
		);
	});

	it('chat updates: every field, valid and invalid, never a mismatch', async () => {
		const [chat] = (await executor.run('chat:getAll', { group: false }, { returnAll: false, limit: 1 })) as Array<{ id: number }>;
		await fc.assert(
			fc.asyncProperty(
				fc.record({
					chat_id: fc.oneof(fc.constant(chat.id), fc.integer({ min: -1, max: 3 })),
					closed: maybe(fc.oneof(fc.boolean(), text)),
					read: maybe(fc.boolean()),
					responsible: maybe(fc.constantFrom('', '  ', 'nobody@example.com', 'not an email')),
					ai_autoresponse_enabled: maybe(fc.boolean()),
				}),
				async (input) => expect(await attempt('chat:update', input)).toEqual([]),
			),
			{ numRuns: 60 },
		);
	});
});
