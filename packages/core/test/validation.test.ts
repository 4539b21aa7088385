/** Bad input gets an error naming the field, before any request is sent. */
import { ChatMessagingError, Executor, FIELD_KINDS, findOperation, isHttpUrl, normalizeBaseUrl } from '../src';
import { ok, scripted, virtualTiming } from '../../../test/support/scripted-transport';

type Row = [operation: string, input: Record<string, unknown>, field: string, message: RegExp];

const BAD: Row[] = [
	['message:sendToPhone', { text: 'hi' }, 'phone', /is required/],
	['message:sendToPhone', { phone: '+49 151 1234567', text: 'hi' }, 'phone', /Invalid phone number format/],
	['message:sendToPhone', { phone: '(0151) 1234567', text: 'hi' }, 'phone', /Invalid phone number format/],
	['message:sendToPhone', { phone: '49-151-1234567', text: 'hi' }, 'phone', /Invalid phone number format/],
	['message:sendToPhone', { phone: '++4915112345678', text: 'hi' }, 'phone', /Invalid phone number format/],
	['message:sendToPhone', { phone: '12345', text: 'hi' }, 'phone', /Invalid phone number format/],
	['message:sendToPhone', { phone: '4915112345678' }, 'text or file_uid', /at least one of Text, File UID/],
	['message:sendToPhone', { phone: '4915112345678', text: 'x', chatapp_account_id: 'nope' }, 'chatapp_account_id', /<id>@<server>/],
	['message:sendToJid', { jid: '4915112345678', text: 'x' }, 'jid', /<id>@<server>/],
	['message:sendToJid', { jid: 'a b@c.us', text: 'x' }, 'jid', /<id>@<server>/],
	['message:sendToChat', { chat_id: 'abc', text: 'x' }, 'chat_id', /whole number/],
	['message:sendToChat', { chat_id: 1.5, text: 'x' }, 'chat_id', /whole number/],
	['message:sendToChat', { chat_id: 1, text: { nested: true } }, 'text', /must be a string/],
	['chat:getAll', { group: 'yes' }, 'group', /true or false/],
	['chat:getAll', { page: 0 }, 'page', /at least 1/],
	['chat:getAll', { created_after: 'last tuesday' }, 'created_after', /date-time/],
	['chat:getAll', { created_after: '1 2 3' }, 'created_after', /date-time with a time zone/],
	['chat:getAll', { created_after: '1' }, 'created_after', /date-time with a time zone/],
	['chat:getAll', { created_after: '99999-01-01' }, 'created_after', /date-time with a time zone/],
	['chat:getAll', { created_after: '0099-01-01' }, 'created_after', /years 1970 to 9999/],
	['chat:getAll', { created_after: '1969-12-31T23:59:59Z' }, 'created_after', /years 1970 to 9999/],
	['chat:getAll', { created_after: '2026-02-30' }, 'created_after', /not a real date/],
	['chat:getAll', { created_after: '2026-01-31T24:00:00Z' }, 'created_after', /not a real date/],
	['chat:getAll', { created_after: '2026-01-31T09:00:00+24:00' }, 'created_after', /impossible time-zone offset/],
	['chat:getAll', { created_before: '2026-01-31T09:00:00' }, 'created_before', /add Z or an offset/],
	['chat:getAll', { created_before: new Date(Number.NaN) }, 'created_before', /invalid Date/],
	['message:getAll', { chat_id: 1, after: 'Tue, 31 Jan 2026 09:00:00 GMT' }, 'after', /date-time with a time zone/],
	['chat:getAll', { phone: '+49 151' }, 'phone', /digits/],
	['chat:getAll', { label: [1, { a: 1 }] }, 'label[1]', /must be a string/],
	['chat:assign', { chat_id: 1, responsible: 'not-an-email' }, 'responsible', /email/],
	['chat:assign', { chat_id: 1 }, 'responsible', /is required/],
	['chat:rename', { chat_id: 1, name: '' }, 'name', /is required/],
	['label:add', { chat_id: 1, labels: ' , ' }, 'labels', /at least one/],
	['label:replace', { chat_id: 1, labels: 42 }, 'labels', /list of strings/],
	['invitation:create', { email: 'x@y.io', role: 'owner' }, 'role', /one of admin, team_supervisor, teammate, agent, collaborator/],
	['invitation:create', { email: 'x@' }, 'email', /email/],
	['webhook:create', { event_type: 'message:new', url: 'https://x.io' }, 'event_type', /one of message:received:new/],
	['webhook:create', { event_type: 'chat:created', url: 'ftp://x.io' }, 'url', /http\(s\) URL/],
	['file:uploadFromUrl', { download_url: 'not a url' }, 'download_url', /http\(s\) URL/],
	['file:upload', { file: 'just text' }, 'file', /file bytes/],
	['file:upload', { file: { data: new Uint8Array(1) } }, 'file', /file name/],
	['webhook:update', { id: 'x' }, 'id', /whole number/],
	// A reaction is one emoji (the sandbox and the API document say the same).
	['reaction:set', { uid: 'u1', reaction: 'ok' }, 'reaction', /must be one emoji/],
	['reaction:set', { uid: 'u1', reaction: '👍 👍' }, 'reaction', /must be one emoji/],
	// The receiver-URL rule (a public service posts only to public HTTPS addresses); addresses here are data, never targets.
	['webhook:create', { event_type: 'chat:created', url: 'http://hooks.example.com/in' }, 'url', /public HTTPS address.*is not HTTPS/],
	['webhook:create', { event_type: 'chat:created', url: 'https://192.168.1.20/in' }, 'url', /is on this machine or a private network/],
	['webhook:update', { id: 5, url: 'https://localhost:5678/in' }, 'url', /is on this machine or a private network/],
	['webhook:update', { id: 5, url: 'https://n8n/webhook/in' }, 'url', /is on this machine or a private network/],
	// Whitespace alone is no value.
	['message:sendToChat', { chat_id: 1, text: '   ' }, 'text or file_uid', /at least one of Text, File UID/],
	['chat:rename', { chat_id: 1, name: ' \t ' }, 'name', /is required/],
	['message:sendToChatName', { chat_name: '  ', text: 'x' }, 'chat_name', /is required/],
	['chat:update', { chat_id: 1, responsible: '  ' }, 'responsible', /only whitespace/],
	// Ids: positive, and exact (safe integers only).
	['chat:get', { chat_id: 0 }, 'chat_id', /at least 1/],
	['chat:get', { chat_id: -5 }, 'chat_id', /at least 1/],
	['chat:get', { chat_id: 2 ** 53 + 2 }, 'chat_id', /too large to be exact/],
	['chat:get', { chat_id: '9007199254740993' }, 'chat_id', /too large to be exact/],
	['webhook:delete', { id: 0 }, 'id', /at least 1/],
	// Path segments that URL rules would resolve away.
	['reaction:set', { uid: '..', reaction: '👍' }, 'uid', /not a valid Message UID/],
	['message:get', { message_uid: '.' }, 'message_uid', /not a valid Message UID/],
	['file:delete', { uid: ' .. ' }, 'uid', /not a valid File UID/],
	['invitation:revoke', { user_id: '..' }, 'user_id', /not a valid User ID/],
	// Sizes the service bounds.
	[
		'file:upload',
		{ file: { data: new Uint8Array(16 * 1024 * 1024 + 1), filename: 'a.png', mimeType: 'image/png' } },
		'file',
		/up to 16 MB/,
	],
	['reaction:set', { uid: 'm', reaction: '' }, 'reaction', /is required \(to take your reaction back, use the Remove operation\)/],
	['reaction:set', { uid: 'm' }, 'reaction', /use the Remove operation/],
];

const GOOD: Array<[string, Record<string, unknown>]> = [
	['message:sendToPhone', { phone: '+4915112345678', text: 'hi' }],
	['message:sendToPhone', { phone: 4915112345678, text: 'hi' }],
	['message:sendToPhone', { phone: '4915112345678', file_uid: 'f1' }],
	['message:sendToJid', { jid: '120363041234567890@g.us', text: 'x' }],
	['message:sendToChat', { chat_id: '12', text: 'x' }],
	['chat:getAll', { group: 'true', read: false, phone: '0151', label: 'a,b', created_after: '2026-03-01' }],
	['chat:update', { chat_id: 1, responsible: '' }],
	['invitation:create', { email: 'x@y.io', role: 'Team_Supervisor' }],
	['webhook:create', { event_type: 'message:sent:new', url: 'https://hooks.example.com/in' }],
	['reaction:remove', { uid: 'm' }],
];

function executorWithRecorder() {
	const recorder = scripted(ok({ has_more_pages: false, chats: [] }));
	return {
		executor: new Executor({ baseUrl: 'https://api.example.com', transport: recorder.transport, timing: virtualTiming() }),
		recorder,
	};
}

/** The editors' label of a wire name ("chat_id" → "Chat ID", "labels[1]" → "Labels [1]", "a or b" → "A or B"). */
function label(operation: string, wireName: string): string {
	const fields = findOperation(operation).fields;
	return wireName
		.split(' or ')
		.map((name) => {
			const [, base, index] = /^(\w+)(?:\[(\d+)\])?$/.exec(name) ?? [];
			const displayName = fields.find((field) => field.name === base)?.displayName ?? name;
			return index === undefined ? displayName : `${displayName} [${index}]`;
		})
		.join(' or ');
}

describe('input validation', () => {
	it.each(BAD)('%s rejects %j naming %s', async (operation, input, field, message) => {
		const { executor, recorder } = executorWithRecorder();
		const error = await executor.run(operation, input).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ChatMessagingError);
		expect((error as ChatMessagingError).kind).toBe('input');
		expect((error as ChatMessagingError).field).toBe(field);
		// The message names the field as the editors label it; `.field` keeps the wire name.
		expect((error as ChatMessagingError).message.startsWith(`${label(operation, field)}: `)).toBe(true);
		expect((error as ChatMessagingError).message).toMatch(message);
		expect(recorder.requests).toHaveLength(0);
	});

	it.each(GOOD)('%s accepts %j', async (operation, input) => {
		const { executor, recorder } = executorWithRecorder();
		await executor.run(operation, input);
		expect(recorder.requests).toHaveLength(1);
	});

	it('lets a service on this machine (the sandbox) post to plain http on this machine, as the trigger and the event node do', async () => {
		const recorder = scripted(ok({ id: 1 }), ok({ id: 1 }));
		const executor = new Executor({ baseUrl: 'http://127.0.0.1:4010', transport: recorder.transport, timing: virtualTiming() });
		await executor.run('webhook:create', { event_type: 'chat:created', url: 'http://127.0.0.1:5678/hook' });
		await executor.run('webhook:update', { id: 1, url: 'http://localhost:1880/hook' });
		expect(recorder.requests.map((request) => JSON.parse(String(request.body)).url)).toEqual([
			'http://127.0.0.1:5678/hook',
			'http://localhost:1880/hook',
		]);
	});

	it.each([
		['webhook:create', { event_type: 'chat:created', url: 'http://example.com/h' }],
		['webhook:update', { id: 1, url: 'http://example.com/h' }],
		['webhook:update', { id: 1, url: 'http://10.0.0.5/h' }],
	])('refuses %s to plain http away from this machine even with the sandbox (which refuses it too): %j', async (operation, input) => {
		const recorder = scripted(ok({ id: 1 }));
		const executor = new Executor({ baseUrl: 'http://127.0.0.1:4010', transport: recorder.transport, timing: virtualTiming() });
		const error = await executor.run(operation, input).catch((e: unknown) => e);
		expect(error).toMatchObject({
			kind: 'input',
			field: 'url',
			message: expect.stringMatching(/^URL: .*plain http away from this machine/),
		});
		expect(recorder.requests).toHaveLength(0);
	});

	it('lets a service on this machine post to https anywhere, private addresses included', async () => {
		const recorder = scripted(ok({ id: 1 }));
		const executor = new Executor({ baseUrl: 'http://127.0.0.1:4010', transport: recorder.transport, timing: virtualTiming() });
		await executor.run('webhook:update', { id: 1, url: 'https://10.0.0.5/h' });
		expect(recorder.requests).toHaveLength(1);
	});

	it('validates a remove-labels input before reading the current set', async () => {
		const { executor, recorder } = executorWithRecorder();
		await expect(executor.run('label:remove', { chat_id: 'x', labels: 'a' })).rejects.toMatchObject({ field: 'chat_id' });
		expect(recorder.requests).toHaveLength(0);
	});

	it('validates a send before uploading its attachment', async () => {
		const { executor, recorder } = executorWithRecorder();
		await expect(
			executor.sendMessage('message:sendToPhone', { phone: '+49 151' }, { binary: { data: new Uint8Array(3), filename: 'a.png' } }),
		).rejects.toMatchObject({ field: 'phone' });
		expect(recorder.requests).toHaveLength(0);
	});

	it('rejects a bad limit', async () => {
		const { executor } = executorWithRecorder();
		await expect(executor.run('chat:getAll', {}, { returnAll: false, limit: 0 })).rejects.toMatchObject({ field: 'limit' });
	});

	it.each([
		['2026-01-31', '2026-01-31T00:00:00Z'],
		['2026-01-31T09:00:00Z', '2026-01-31T09:00:00Z'],
		['2026-01-31t09:00z', '2026-01-31T09:00:00Z'],
		['2026-01-31T10:00:00+01:00', '2026-01-31T09:00:00Z'],
		['2026-01-31T04:30:00-0430', '2026-01-31T09:00:00Z'],
		['2026-01-31 10:00:00 +0100', '2026-01-31T09:00:00Z'],
		['2026-01-31T09:00:00.25Z', '2026-01-31T09:00:00.250Z'],
		[new Date(Date.UTC(2026, 0, 31, 9)), '2026-01-31T09:00:00Z'],
	])('sends the date-time %j as RFC 3339 UTC %s', async (value, sent) => {
		const { executor, recorder } = executorWithRecorder();
		await executor.run('chat:getAll', { created_after: value });
		expect(new URL(recorder.requests[0].url).searchParams.get('created_after')).toBe(sent);
	});

	it.each([
		['2026-01-31T10:00:00', '2026-01-31T09:00:00Z'],
		['2026-07-01T10:00', '2026-07-01T08:00:00Z'],
		['2026-03-29T03:30:00', '2026-03-29T01:30:00Z'],
	])('reads the wall time %s in the platform zone (Europe/Berlin) as %s', async (value, sent) => {
		const recorder = scripted(ok({ has_more_pages: false, chats: [] }));
		const executor = new Executor({
			baseUrl: 'https://api.example.com',
			transport: recorder.transport,
			timing: virtualTiming(),
			timeZone: 'Europe/Berlin',
		});
		await executor.run('chat:getAll', { created_after: value });
		expect(new URL(recorder.requests[0].url).searchParams.get('created_after')).toBe(sent);
	});

	it.each([
		// A date alone is midnight in the platform's zone, not in UTC.
		['2026-01-31', '2026-01-30T23:00:00Z'],
		['2026-07-01', '2026-06-30T22:00:00Z'],
		// A date with a time and a zone, or a Date, is the same instant in every zone.
		['2026-01-31T09:00:00Z', '2026-01-31T09:00:00Z'],
		['2026-01-31 10:00:00 +0100', '2026-01-31T09:00:00Z'],
		[new Date(Date.UTC(2026, 0, 31, 9)), '2026-01-31T09:00:00Z'],
	])('in the platform zone (Europe/Berlin) sends %j as %s', async (value, sent) => {
		const recorder = scripted(ok({ has_more_pages: false, chats: [] }));
		const executor = new Executor({
			baseUrl: 'https://api.example.com',
			transport: recorder.transport,
			timing: virtualTiming(),
			timeZone: 'Europe/Berlin',
		});
		await executor.run('chat:getAll', { created_after: value });
		expect(new URL(recorder.requests[0].url).searchParams.get('created_after')).toBe(sent);
	});

	it.each([
		[
			'chat:update',
			{ chat_id: 1 },
			'Update a chat (chat:update) needs at least one change: Responsible Email, Closed, Read, Name or AI Auto-Response Enabled',
		],
		['webhook:update', { id: 5, url: '' }, 'Update a webhook subscription (webhook:update) needs at least one change: Enabled or URL'],
	])('%s with nothing to change is refused before any request, naming the operation', async (operation, input, message) => {
		const { executor, recorder } = executorWithRecorder();
		const error = (await executor.run(operation, input).catch((e: unknown) => e)) as ChatMessagingError;
		expect(error).toBeInstanceOf(ChatMessagingError);
		expect(error).toMatchObject({ kind: 'input', operation, message });
		expect(recorder.requests).toHaveLength(0);
	});

	it.each([
		['message:sendToPhone', { phone: '+49 151 1234567', text: 'hi' }, 'phone', 'phone'],
		['chat:getAll', { phone: '+49 151' }, 'phone', 'phoneFilter'],
		['message:sendToJid', { jid: 'no-server', text: 'x' }, 'jid', 'jid'],
		['message:sendToPhone', { phone: '4915112345678', text: 'x', chatapp_account_id: 'nope' }, 'chatapp_account_id', 'wid'],
		['invitation:create', { email: 'x@' }, 'email', 'email'],
		['file:uploadFromUrl', { download_url: 'https://exa mple.com/a.pdf' }, 'download_url', 'url'],
		['chat:get', { chat_id: 'twelve' }, 'chat_id', 'integer'],
		['chat:getAll', { created_after: 'last tuesday' }, 'created_after', 'dateTime'],
	] as const)('%s refuses %j with the words of the table of field kinds (%s is %s)', async (operation, input, field, kind) => {
		const { executor } = executorWithRecorder();
		const error = (await executor.run(operation, input).catch((e: unknown) => e)) as ChatMessagingError;
		expect(error.message.startsWith(`${label(operation, field)}: ${FIELD_KINDS[kind].message}, got `)).toBe(true);
	});

	it('holds each rule once: what a pattern accepts, validation accepts', () => {
		expect(FIELD_KINDS.phone.pattern!.test('+14155550123')).toBe(true);
		expect(FIELD_KINDS.phone.pattern!.test('0151 1234567')).toBe(false);
		expect(isHttpUrl('HTTPS://example.com/a.pdf')).toBe(true);
		for (const url of ['ftp://x.io', 'https://', 'https:// x.io', 'https://[x/a']) expect(isHttpUrl(url)).toBe(false);
	});

	describe('base URL', () => {
		it.each([
			['https://api.example.com/', 'https://api.example.com'],
			['https://api.example.com/v1///', 'https://api.example.com/v1'],
			['  http://127.0.0.1:4010 ', 'http://127.0.0.1:4010'],
		])('normalises %j', (given, expected) => expect(normalizeBaseUrl(given)).toBe(expected));

		it.each(['', 'api.example.com', 'ftp://x'])('rejects %j naming baseUrl', (given) => {
			expect(() => normalizeBaseUrl(given)).toThrow(/^Base URL: /);
		});
	});
});
