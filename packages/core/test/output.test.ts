/**
 * The Output choice (Simplified / Raw / Selected Fields), deletes' output and the tool descriptions,
 * defined once in the catalogue: the simplified fields are checked against the records the sandbox
 * returns over real HTTP, so a misspelt field name fails here rather than going missing in a workflow.
 */
import {
	DEFAULT_OUTPUT,
	Executor,
	OPERATIONS,
	OUTPUT_WHEN_UNSET,
	RECORD_SHAPES,
	findOperation,
	operationOutput,
	outputChoiceProblem,
	shapeOutput,
	toolDescription,
	type RecordKind,
} from '../src';
import { startSandbox } from '@chat-messaging/sandbox';
import { fetchTransport, realTiming } from '../../../test/support/fetch-transport';

const chat = {
	id: 7,
	name: 'Alice',
	phone: '+14155550123',
	jid: '14155550123@c.us',
	is_group: false,
	closed: false,
	read: true,
	labels: ['vip'],
	ai_autoresponse_enabled: false,
	responsible_email: null,
	responsible_name: null,
	chatapp_account_id: '1@c.us',
	chat_url: 'https://app.example/chats/7',
	created_timestamp: '2026-01-01 10:00:00 +0000',
	last_message_uid: 'M1',
	last_message_timestamp: '2026-01-02 10:00:00 +0000',
	unattended: false,
	photo: 'https://app.example/p.jpg',
	is_allowed_to_message: true,
};

describe('Output choice', () => {
	const getChat = findOperation('chat:get');

	it("Simplified keeps the kind's fields, about ten, ids first", () => {
		const out = shapeOutput(getChat, chat, { mode: 'simplified' }) as Record<string, unknown>;
		expect(Object.keys(out)).toEqual(RECORD_SHAPES.chat.simplified);
		expect(out.id).toBe(7);
		for (const shape of Object.values(RECORD_SHAPES)) {
			expect(shape.simplified.length).toBeLessThanOrEqual(12);
			for (const id of shape.ids) expect(shape.simplified).toContain(id);
		}
	});

	it('Selected Fields keeps the ids and the named fields, from a list or a comma string', () => {
		expect(shapeOutput(getChat, chat, { mode: 'selected', fields: 'name, labels ,nope' })).toEqual({
			id: 7,
			name: 'Alice',
			labels: ['vip'],
		});
		expect(shapeOutput(getChat, [chat, chat], { mode: 'selected', fields: ['phone'] })).toEqual([
			{ id: 7, phone: '+14155550123' },
			{ id: 7, phone: '+14155550123' },
		]);
	});

	it('Raw, and no choice at all (a node saved before the option existed), return the record unchanged', () => {
		expect(OUTPUT_WHEN_UNSET).toBe('raw');
		expect(DEFAULT_OUTPUT).toBe('simplified');
		expect(shapeOutput(getChat, chat, { mode: 'raw' })).toBe(chat);
		expect(shapeOutput(getChat, chat)).toBe(chat);
	});

	it("a record of an unknown shape (none of its kind's ids) passes whole, never emptied", () => {
		const odd = { something: 1, other: 2 };
		expect(shapeOutput(getChat, odd, { mode: 'simplified' })).toBe(odd);
		expect(shapeOutput(findOperation('label:get'), ['a', 'b'], { mode: 'simplified' })).toEqual(['a', 'b']);
	});

	it('rejects an unknown choice, naming it', () => {
		expect(() => shapeOutput(getChat, chat, { mode: 'short' })).toThrow(/Output must be one of simplified, raw, selected, got "short"/);
	});

	it('tells what keeps a choice from being applied, before any request: an unknown mode, Selected Fields without a name', () => {
		expect(outputChoiceProblem({ mode: 'short' })).toEqual({
			part: 'mode',
			message: 'must be one of simplified, raw, selected, got "short"',
		});
		expect(outputChoiceProblem({ mode: 'selected', fields: ' , ' })).toEqual({
			part: 'fields',
			message: 'is empty: name the fields to output, separated by commas',
		});
		expect(outputChoiceProblem({ mode: 'selected', fields: 'name' })).toBeUndefined();
		expect(outputChoiceProblem({})).toBeUndefined();
		for (const mode of ['simplified', 'raw']) expect(outputChoiceProblem({ mode })).toBeUndefined();
	});

	it('deletes output { deleted: true } whatever the service answered', () => {
		for (const op of OPERATIONS.filter((candidate) => candidate.method === 'DELETE'))
			expect(operationOutput(op, { uid: 'x', revoked: true })).toEqual({ deleted: true });
		expect(operationOutput(getChat, chat, { mode: 'raw' })).toBe(chat);
	});
});

describe('tool descriptions', () => {
	it('every operation says what it does, to what, each required input with its format, and what it returns', () => {
		for (const op of OPERATIONS) {
			const text = toolDescription(op);
			expect(text.startsWith(op.action)).toBe(true);
			expect(text.length).toBeLessThan(1024);
			for (const field of op.fields.filter((candidate) => candidate.required && candidate.kind !== 'binary'))
				expect(text).toContain(`${field.name}: `);
			if (op.returns) expect(text).toContain(RECORD_SHAPES[op.returns].simplified.join(', '));
		}
		expect(toolDescription(findOperation('message:sendToPhone'))).toMatch(
			/^Send a message to a phone number\. .*Required: phone: .*\+14155550123.*At least one of: text: .*file_uid: /,
		);
	});
});

describe('simplified fields against the sandbox', () => {
	let sandbox: Awaited<ReturnType<typeof startSandbox>>;
	let executor: Executor;
	beforeAll(async () => {
		sandbox = await startSandbox({ paceMs: 20, deliveredAfterMs: 40, readAfterMs: 80, seed: 5, chats: 12, tokens: ['output-token'] });
		executor = new Executor({ baseUrl: `${sandbox.url}/`, timing: realTiming, token: sandbox.tokens[0], transport: fetchTransport });
	});
	afterAll(() => sandbox.stop());

	it('every simplified field of every kind is a field the records have', async () => {
		const [direct] = (await executor.run('chat:getAll', { group: false }, { limit: 1 })) as Array<Record<string, unknown>>;
		await executor.run('message:sendToChat', { chat_id: direct.id, text: 'output check' });
		await executor.run('file:upload', { file: { data: new TextEncoder().encode('hi'), filename: 'hi.txt', mimeType: 'text/plain' } });
		const samples: Record<RecordKind, unknown> = {
			chat: direct,
			message: ((await executor.run('message:getAll', { chat_id: direct.id }, { limit: 1 })) as unknown[])[0],
			file: ((await executor.run('file:getAll', {}, { limit: 1 })) as unknown[])[0],
			account: ((await executor.run('account:getAll')) as unknown[])[0],
			teammate: ((await executor.run('teammate:getAll')) as unknown[])[0],
		};
		for (const [kind, record] of Object.entries(samples) as Array<[RecordKind, Record<string, unknown>]>) {
			const missing = RECORD_SHAPES[kind].simplified.filter((name) => !(name in record));
			expect({ kind, missing }).toEqual({ kind, missing: [] });
		}
	});
});
