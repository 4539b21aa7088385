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
import { checkedTransport, checkRequest, OPENAPI } from '../../../test/support/openapi-check';
import { specEndpoints } from '../../../test/support/spec-endpoints';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

describe('the document', () => {
	it("holds every endpoint of the catalogue (the spec's, as the sandbox serves them), the bearer scheme and the three events in both shapes", () => {
		const documented = Object.entries(OPENAPI.paths).flatMap(([path, methods]) =>
			Object.entries(methods)
				.filter(([, op]) => !op.operationId.endsWith('_patch'))
				.map(([method]) => `${method.toUpperCase()} ${path}`),
		);
		expect(documented.sort()).toEqual(endpoints().sort());
		expect(documented).toHaveLength(specEndpoints().length);
		// Beside them, the alias the service notes give: PATCH answers as PUT on a message's reactions.
		expect(OPENAPI.paths['/messages/{uid}/reactions'].patch?.operationId).toBe('reaction_set_patch');
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

describe('the disagreements settled (packages/sandbox/README.md): the document and the sandbox say the same', () => {
	let sandbox: Sandbox;
	let chatId: number;
	let messageUid: string;
	beforeAll(async () => {
		sandbox = await startSandbox({ chats: 10, tokens: ['settled'], seed: 5, paceMs: 10 });
		const executor = new Executor({
			baseUrl: sandbox.url,
			transport: fetchTransport,
			timing: realTiming,
			token: 'settled',
			rateLimit: false,
		});
		const [chat] = (await executor.run('chat:getAll', { group: false, closed: false }, { returnAll: false, limit: 1 })) as Array<{
			id: number;
		}>;
		chatId = chat.id;
		messageUid = ((await executor.run('message:sendToChat', { chat_id: chatId, text: 'x' })) as { message_uid: string }).message_uid;
	});
	afterAll(() => sandbox.stop());

	/** The document's verdict on a request (its findings) and the sandbox's answer to it. */
	const both = async (method: string, path: string, body?: unknown) => {
		const url = `${sandbox.url}${path.replace('{chat}', String(chatId)).replace('{message}', messageUid)}`;
		const request = {
			method: method as 'GET',
			url,
			headers: { authorization: 'Bearer settled', 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
			timeoutMs: 10_000,
		};
		// The document's verdict: an undeclared query parameter is no violation of an OpenAPI document (the checker
		// reports it only to hold the executor to the parameters it declares).
		const findings = checkRequest(request).filter((finding) => !/query parameter \w+ is not in the document/.test(finding));
		const response = await fetch(url, { method, headers: request.headers, body: request.body });
		return { findings, status: response.status, body: (await response.json()) as Record<string, any> };
	};

	it.each([
		['a date alone', 'GET', '/chats?created_after=2025-01-01', undefined],
		['a date-time without a zone', 'GET', '/chats?created_before=2025-01-01T10:00:00', undefined],
		[
			"the records' own format as a filter",
			'GET',
			`/chats/{chat}/messages?after=${encodeURIComponent('2025-06-02 10:00:00 +0000')}`,
			undefined,
		],
		['an unknown body member', 'PATCH', '/chats/{chat}', { responsible_email: 'x@example.com' }],
		['text ""', 'POST', '/messages', { phone: '+4915112345678', text: '' }],
		['blank text beside a file', 'POST', '/chats/{chat}/messages', { text: ' ', file_uid: 'f_1' }],
		['a blank label', 'POST', '/chats/{chat}/labels', { labels: ['ok', ' '] }],
		['a blank first name', 'POST', '/workspace/invitations', { email: 'a@example.com', first_name: '' }],
		['download_url ftp://', 'POST', '/files', { download_url: 'ftp://files.example.com/a.pdf' }],
		['a reaction that is a word', 'PUT', '/messages/{message}/reactions', { reaction: 'ok' }],
		['plain http away from this machine', 'POST', '/webhooks', { event_type: 'chat:created', url: 'http://example.com/h' }],
	])('both refuse %s', async (_, method, path, body: unknown) => {
		const { findings, status } = await both(method, path, body);
		expect(findings).not.toEqual([]);
		expect(status).toBe(400);
	});

	it.each([
		[
			'a role in capitals (service notes: case-insensitive)',
			'POST',
			'/workspace/invitations',
			{ email: 'caps@example.com', role: 'Admin' },
		],
		['PATCH on reactions (service notes: an alias of PUT)', 'PATCH', '/messages/{message}/reactions', { reaction: '👍' }],
		['an unknown query parameter, ignored', 'GET', '/chats?colour=red', undefined],
		['a date-time with an offset', 'GET', `/chats?created_after=${encodeURIComponent('2025-01-01T10:00:00+01:00')}`, undefined],
	])('both allow %s', async (_, method, path, body: unknown) => {
		const { findings, status } = await both(method, path, body);
		expect(findings).toEqual([]);
		expect(status).toBe(200);
	});

	it("states validation items' fields as strings, as the spec does, and the sandbox sends them so", async () => {
		const { body } = await both('PUT', '/chats/{chat}/labels', { labels: ['ok', 42] });
		expect(body.errors).toEqual([{ fields: ['labels', '1'], msg: expect.any(String) }]);
		const error = (OPENAPI.components as { schemas: Record<string, any> }).schemas.Error;
		expect(error.properties.errors.items.properties.fields.items).toEqual({ type: 'string' });
	});
});

describe('what the spec and the service notes give, the document states', () => {
	const doc = OPENAPI as unknown as {
		paths: Record<string, Record<string, { responses: Record<string, any>; parameters?: Array<{ name: string; description: string }> }>>;
		components: { schemas: Record<string, any>; responses: Record<string, any> };
	};
	it('the statuses the service answers: 402 on sends, 404 where a name, JID, file or page finds nothing, 500 everywhere, Retry-After on 429', () => {
		for (const [path, methods] of Object.entries(doc.paths))
			for (const [method, op] of Object.entries(methods))
				expect([`${method} ${path}`, Object.keys(op.responses)]).toEqual([`${method} ${path}`, expect.arrayContaining(['500', '429'])]);
		for (const path of ['/messages', '/messages/to_chat_name', '/messages/to_jid', '/chats/{chat_id}/messages'])
			expect(Object.keys(doc.paths[path].post.responses)).toEqual(expect.arrayContaining(['402', '404']));
		expect(Object.keys(doc.paths['/files'].get.responses)).toContain('404');
		expect(doc.components.responses.RateLimited.headers['Retry-After'].schema.type).toBe('integer');
	});

	it('GET /webhooks/{id} includes errors_counter; event types, message statuses and record timestamps are constrained', () => {
		const one = doc.paths['/webhooks/{id}'].get.responses['200'].content['application/json'].schema.properties.data;
		expect(one.allOf[1].required).toEqual(['errors_counter']);
		expect(doc.components.schemas.Webhook.properties.event_type.enum).toEqual(['message:received:new', 'message:sent:new', 'chat:created']);
		expect(doc.components.schemas.StatusHistoryItem.properties.status.enum).toEqual(['queued', 'sent', 'delivered', 'read', 'failed']);
		const pattern = new RegExp(doc.components.schemas.Chat.properties.created_timestamp.pattern as string);
		expect(pattern.test('2025-06-02 10:00:00 +0200')).toBe(true);
		expect(pattern.test('2025-06-02T10:00:00Z')).toBe(false);
	});

	it('the message, account, workspace and teammate records hold every field the service notes give', () => {
		const fields = (name: string) => Object.keys(doc.components.schemas[name].properties);
		expect(fields('Message')).toEqual(
			expect.arrayContaining([
				'uid',
				'chat_id',
				'timestamp',
				'sender_phone',
				'sender_name',
				'recipient_phone',
				'recipient_name',
				'from_me',
				'status',
				'origin',
				'has_attachment',
				'message_type',
				'text',
				'attachment_url',
				'attachment_filename',
				'reply_to',
				'reactions',
			]),
		);
		expect(fields('Account')).toEqual(
			expect.arrayContaining(['id', 'phone', 'connected_on', 'status', 'owner_name', 'owner_email', 'account_name']),
		);
		expect(fields('Workspace')).toEqual(
			expect.arrayContaining([
				'workspace_id',
				'display_name',
				'plan',
				'messaging_quota',
				'api_calls_quota',
				'seats',
				'non_recurring_quota',
			]),
		);
		expect(fields('Teammate')).toEqual(
			expect.arrayContaining(['user_id', 'display_name', 'email', 'status', 'created_at', 'role', 'chatapp_accounts']),
		);
	});

	it('the page parameter speaks of the API, not of a node', () => {
		for (const path of ['/chats', '/files', '/chats/{chat_id}/messages']) {
			const page = doc.paths[path].get.parameters!.find((parameter) => parameter.name === 'page')!;
			expect(page.description).not.toMatch(/node/i);
			expect(page.description).toMatch(/has_more_pages/);
		}
	});
});
