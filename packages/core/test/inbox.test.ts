/**
 * packages/core/src/runtime/events/takeover.ts and bursts.ts against the sandbox over real HTTP: human takeover (a chat assigned to
 * a teammate, a teammate's recent message; the workflow's own API sends do not count; one lookup per
 * chat while cached) and burst batching over polled events (one event per chat once quiet, texts joined,
 * every uid kept, the held messages surviving JSON as a restart would).
 */
import { Executor } from '../src';
import {
	HumanTakeover,
	INBOX_OFF,
	INBOX_OPTIONS,
	burstInWrittenOrder,
	holdBursts,
	nextBurstRelease,
	readBurstState,
	readInboxOptions,
	releaseBursts,
	withoutTakenOver,
	type BurstEvent,
	type BurstState,
} from '../src';
import { pollEvents, type PollCursor } from '../src';
import { startSandbox } from '@chat-messaging/sandbox';
import { fetchTransport, realTiming } from '../../../test/support/fetch-transport';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

let sandbox: Sandbox;
let executor: Executor;
const TOKEN = 'inbox-api-token';

async function control(path: string, body: unknown = {}): Promise<Record<string, unknown>> {
	const response = await fetch(`${sandbox.url}${path}`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
		body: JSON.stringify(body),
	});
	if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
	return ((await response.json()) as { data: Record<string, unknown> }).data;
}

const incoming = (body: Record<string, unknown>) => control('/_sandbox/incoming', body);
const uidOf = (answer: Record<string, unknown>) => String((answer.message as Record<string, unknown>).uid);
const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

beforeAll(async () => {
	sandbox = await startSandbox({ tokens: [TOKEN], chats: 20, seed: 5, seedTime: 'now', paceMs: 50, deliveredAfterMs: 0, readAfterMs: 0 });
	executor = new Executor({
		baseUrl: sandbox.url,
		transport: fetchTransport,
		timing: realTiming,
		token: TOKEN,
		retry: { baseDelayMs: 20 },
	});
});

afterAll(async () => {
	await sandbox.stop();
});

beforeEach(async () => {
	await control('/_sandbox/reset');
});

/** A poll from a fresh cursor placed a minute back, so the messages just written are new. */
async function pollReceived(cursor?: PollCursor) {
	const result = await pollEvents(executor, { source: 'messageReceived', cursor, lookbackMs: cursor ? 0 : 60_000, now: Date.now() });
	return { ...result, cursor: json(result.cursor) };
}

describe('readInboxOptions', () => {
	it('reads nothing saved as everything off, and names a wrong value', () => {
		expect(readInboxOptions({})).toEqual(INBOX_OFF);
		expect(readInboxOptions({ skipAssigned: 'true', teammateQuietMinutes: '5', burstQuietSeconds: 20 })).toEqual({
			skipAssigned: true,
			teammateQuietMinutes: 5,
			burstQuietSeconds: 20,
		});
		expect(() => readInboxOptions({ burstQuietSeconds: -1 })).toThrow(
			/^Batch a Customer's Burst \(Quiet Seconds\): must be a number of 0 or more, got -1/,
		);
		expect(() => readInboxOptions({ teammateQuietMinutes: 'soon' })).toThrow(expect.objectContaining({ field: 'teammateQuietMinutes' }));
	});

	it('defines every option off by default, once', () => {
		expect(INBOX_OPTIONS.map((option) => [option.name, option.default])).toEqual([
			['skipAssigned', false],
			['teammateQuietMinutes', 0],
			['burstQuietSeconds', 0],
		]);
	});
});

describe('human takeover', () => {
	it('skips the messages of a chat assigned to a teammate, from the polled chat record, with no lookup', async () => {
		const teammates = (await executor.run('teammate:getAll', {})) as Array<Record<string, unknown>>;
		const mate = teammates.find((teammate) => teammate.status === 'active') ?? teammates[0];
		const assigned = await incoming({ phone: '+4915100000101', text: 'assigned chat', name: 'Takeover Assigned' });
		await executor.run('chat:update', { chat_id: assigned.chat_id, responsible: mate.email });
		await incoming({ phone: '+4915100000102', text: 'free chat', name: 'Takeover Free' });

		const { events } = await pollReceived();
		expect(events.map((event) => event.text).sort()).toEqual(['assigned chat', 'free chat']);
		const takeover = new HumanTakeover({ ...INBOX_OFF, skipAssigned: true }, Date.now);
		const kept = await withoutTakenOver(executor, takeover, events);
		expect(kept.map((event) => event.text)).toEqual(['free chat']);
		expect(takeover.lookups).toBe(0);
	});

	it('looks the chat up once for an event without the chat record, and caches it', async () => {
		const teammates = (await executor.run('teammate:getAll', {})) as Array<Record<string, unknown>>;
		const answer = await incoming({ phone: '+4915100000103', text: 'webhook-shaped', name: 'Takeover Lookup' });
		await executor.run('chat:update', { chat_id: answer.chat_id, responsible: teammates[0].email });
		const event = {
			event_type: 'message:received:new',
			chat_id: answer.chat_id as number,
			chat_name: 'Takeover Lookup',
			text: 'webhook-shaped',
			message_uid: uidOf(answer),
			unattended: true,
			raw: { event_type: 'message:received:new', data: { chat_id: answer.chat_id, message_uid: uidOf(answer) } },
		};
		const takeover = new HumanTakeover({ ...INBOX_OFF, skipAssigned: true }, Date.now);
		expect(await takeover.skipReason(executor, event)).toBe('assigned');
		expect(await takeover.skipReason(executor, { ...event, message_uid: 'another' })).toBe('assigned');
		expect(takeover.lookups).toBe(1);
		// Unassigned: a fresh takeover (no cache) lets it through.
		await executor.run('chat:update', { chat_id: answer.chat_id, responsible: '' });
		expect(await new HumanTakeover({ ...INBOX_OFF, skipAssigned: true }, Date.now).skipReason(executor, event)).toBeUndefined();
	});

	it("skips chats where a teammate wrote within the window; the workflow's own API sends do not count", async () => {
		const byTeammate = await incoming({ phone: '+4915100000104', text: 'a teammate answers me', name: 'Takeover Mate' });
		await control('/_sandbox/teammate-message', { chat_id: byTeammate.chat_id, text: 'Hi, Anna here, I take this one' });
		await incoming({ chat_id: byTeammate.chat_id, text: 'thanks Anna' });
		const byApi = await incoming({ phone: '+4915100000105', text: 'the bot answers me', name: 'Takeover Bot' });
		await executor.sendMessage('message:sendToChat', { chat_id: byApi.chat_id, text: 'an automatic answer' });
		await incoming({ chat_id: byApi.chat_id, text: 'thanks bot' });

		const { events } = await pollReceived();
		expect(events).toHaveLength(4);
		const takeover = new HumanTakeover({ ...INBOX_OFF, teammateQuietMinutes: 10 }, Date.now);
		const kept = await withoutTakenOver(executor, takeover, events);
		expect(kept.map((event) => event.text)).toEqual(['the bot answers me', 'thanks bot']);
		// One lookup per chat: the second event of each chat is answered from the cache.
		expect(takeover.lookups).toBe(2);
		// A window that ended before the teammate wrote lets the chat through (clock an hour ahead).
		const later = new HumanTakeover({ ...INBOX_OFF, teammateQuietMinutes: 10 }, () => Date.now() + 3_600_000);
		expect(await withoutTakenOver(executor, later, events)).toHaveLength(4);
	});
});

describe('burst batching over polled events', () => {
	it('emits one event per chat once the customer is quiet: texts joined, every uid kept, held state through JSON', async () => {
		const a1 = await incoming({ phone: '+4915100000111', text: 'Hello', name: 'Burst A' });
		const a2 = await incoming({ chat_id: a1.chat_id, text: 'I have a question' });
		const b1 = await incoming({ phone: '+4915100000112', text: 'Other chat', name: 'Burst B' });
		const a3 = await incoming({ chat_id: a1.chat_id, text: 'about my order' });

		const first = await pollReceived();
		expect(first.events).toHaveLength(4);
		const now = Date.now();
		let state: BurstState = readBurstState(undefined);
		const held = holdBursts(state, first.events, now, 'record');
		expect(held.passThrough).toEqual([]);
		state = readBurstState(json(held.state)); // stored and read back, as across a restart
		expect(state.chats).toHaveLength(2);

		// Not quiet long enough yet: nothing goes out.
		const early = releaseBursts(state, now, 30_000);
		expect(early.released).toEqual([]);
		expect(nextBurstRelease(state, 30_000)).toBeGreaterThan(now);

		// The customer of chat A writes again before the window ends: the burst grows, nothing repeats.
		const a4 = await incoming({ chat_id: a1.chat_id, text: 'order 42' });
		const second = await pollReceived(first.cursor);
		expect(second.events.map((event) => event.text)).toEqual(['order 42']);
		state = holdBursts(state, second.events, Date.now(), 'record').state;
		// A redelivered event already held is not held twice.
		state = holdBursts(state, second.events, Date.now(), 'record').state;

		const out = releaseBursts(readBurstState(json(state)), Date.now() + 31_000, 30_000);
		expect(out.state.chats).toEqual([]);
		const byChat = new Map(out.released.map((event: BurstEvent) => [String(event.chat_id), event]));
		const burstA = byChat.get(String(a1.chat_id));
		expect(burstA?.text).toBe('Hello\nI have a question\nabout my order\norder 42');
		expect(burstA?.message_uids).toEqual([a1, a2, a3, a4].map(uidOf));
		expect(burstA?.message_uid).toBe(uidOf(a4));
		expect(burstA?.messages).toHaveLength(4);
		expect(byChat.get(String(b1.chat_id))?.message_uids).toEqual([uidOf(b1)]);
	});

	it('puts a burst held from deliveries that arrived out of order in the order written, by one read of the chat', async () => {
		const texts = ['hi', 'my order', 'is late'];
		const first = await incoming({ phone: '+4915100000113', text: texts[0], name: 'Burst C' });
		for (const text of texts.slice(1)) await incoming({ chat_id: first.chat_id, text });
		const { events } = await pollReceived();
		expect(events.map((event) => event.text)).toEqual(texts);
		// Delivered last first, as concurrent deliveries may arrive; the spec's delivery has no timestamp to sort by.
		const delivered = [events[2]!, events[0]!, events[1]!].map((event) => ({ ...event, raw: { event_type: event.event_type, data: {} } }));
		const held = holdBursts(readBurstState(null), delivered, Date.now(), 'arrival').state;
		const [burst] = releaseBursts(held, Date.now() + 10_000, 5_000).released;
		expect(burst!.text).toBe('is late\nhi\nmy order');

		const ordered = await burstInWrittenOrder(executor, burst!);
		expect(ordered.text).toBe(texts.join('\n'));
		expect(ordered.message_uids).toEqual(events.map((event) => event.message_uid));
		expect(ordered.message_uid).toBe(events[2]!.message_uid);

		// A held message the chat's first page does not show is older than all on it; a burst of one needs no read.
		const older = { ...delivered[0]!, message_uid: 'older-than-the-page', text: 'earlier' };
		const withOlder = await burstInWrittenOrder(executor, { ...burst!, messages: [...burst!.messages, older] });
		expect(withOlder.text).toBe(['earlier', ...texts].join('\n'));
		const alone = { ...burst!, messages: [burst!.messages[0]!] };
		const missing = { ...alone, chat_id: 987_654_321 };
		expect(await burstInWrittenOrder(executor, missing)).toBe(missing);
		// A chat that cannot be read is an error for the caller to report, never a silent order.
		await expect(burstInWrittenOrder(executor, { ...burst!, chat_id: 987_654_321 })).rejects.toThrow();
	});

	it('passes events that are not received messages straight through', () => {
		const created = { event_type: 'chat:created', chat_id: 7, chat_name: 'x', text: null, message_uid: null, unattended: null, raw: {} };
		const { passThrough, state } = holdBursts(readBurstState(null), [created], Date.now(), 'arrival');
		expect(passThrough).toEqual([created]);
		expect(state.chats).toEqual([]);
	});
});
