/**
 * packages/core/src/runtime/events/polling.ts and cursor.ts against the sandbox over real HTTP: new inbound messages, sent messages and new chats
 * since a cursor, each exactly once across polls, a restart (the cursor through JSON) and items that
 * share a second; the first activation replays nothing unless a look-back is asked; the request cost.
 */
import { Executor } from '../src';
import {
	CATCH_UP_HORIZON_MS,
	cursorAfterDelivery,
	deliveredKeysOf,
	mergeCursors,
	parseRecordTime,
	pollEvents,
	pollSample,
	type PollCursor,
	type PollOptions,
} from '../src';
import { parseDelivery } from '../src';
import { startSandbox } from '@chat-messaging/sandbox';
import { realTiming } from '../../../test/support/fetch-transport';
import { sandboxClient } from '../../../test/support/harness';
import { sandboxExecutor } from '../../../test/support/sandbox-executor';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

let sandbox: Sandbox;
let executor: Executor;
const TOKEN = 'polling-api-token';

const control = (path: string, body: unknown = {}): Promise<Record<string, unknown>> =>
	sandboxClient(sandbox.url, TOKEN).control(path, body);
const incoming = (body: Record<string, unknown>) => control('/_sandbox/incoming', body);
const uidOf = (answer: Record<string, unknown>) => String((answer.message as Record<string, unknown>).uid);

/** A poll whose cursor goes through JSON, as n8n's static data and Node-RED's context store it. */
async function poll(options: Omit<PollOptions, 'now'>) {
	const result = await pollEvents(executor, { ...options, now: Date.now() });
	return { ...result, cursor: JSON.parse(JSON.stringify(result.cursor)) as PollCursor };
}

/** Waits until early in a second, so what follows shares one record timestamp. */
async function startOfASecond(): Promise<void> {
	const into = Date.now() % 1000;
	if (into > 50) await realTiming.sleep(1000 - into + 5);
}

beforeAll(async () => {
	sandbox = await startSandbox({ tokens: [TOKEN], chats: 60, seed: 7, seedTime: 'now', paceMs: 800, deliveredAfterMs: 0, readAfterMs: 0 });
	executor = sandboxExecutor(sandbox.url, TOKEN);
});

afterAll(async () => {
	await sandbox.stop();
});

beforeEach(async () => {
	await control('/_sandbox/reset');
});

describe('pollEvents: received messages', () => {
	it('places the cursor on the first activation without replaying history, in one request', async () => {
		const first = await poll({ source: 'messageReceived' });
		expect(first.primed).toBe(true);
		expect(first.events).toEqual([]);
		expect(first.requests).toBe(1);
		const again = await poll({ source: 'messageReceived', cursor: first.cursor });
		expect(again.events).toEqual([]);
		expect(again.requests).toBe(1);
	});

	it('emits each new inbound message once, oldest first, across polls and a restart', async () => {
		const { cursor } = await poll({ source: 'messageReceived' });
		const chats = (await executor.run('chat:getAll', {}, { returnAll: false, limit: 50 })) as Array<Record<string, unknown>>;
		const quiet = chats[chats.length - 1]; // an old chat far down the list
		const a = await incoming({ chat_id: quiet.id, text: 'first' });
		const b = await incoming({ phone: '+4915100000001', text: 'second, from a new number', name: 'Poll Newcomer' });
		// An outbound message is not an inbound event.
		await executor.sendMessage('message:sendToChat', { chat_id: quiet.id, text: 'our answer' });
		const c = await incoming({ chat_id: quiet.id, text: 'third' });

		const polled = await poll({ source: 'messageReceived', cursor });
		// Oldest first; messages of one second in different chats have no order the service tells.
		const uids = polled.events.map((event) => event.message_uid);
		expect([...uids].sort()).toEqual([uidOf(a), uidOf(b), uidOf(c)].sort());
		expect(uids.indexOf(uidOf(a))).toBeLessThan(uids.indexOf(uidOf(c)));
		const first = polled.events.find((event) => event.message_uid === uidOf(a));
		expect(first).toMatchObject({ event_type: 'message:received:new', chat_id: quiet.id, chat_name: quiet.name, text: 'first' });
		expect(polled.events.find((event) => event.message_uid === uidOf(b))?.chat_name).toBe('Poll Newcomer');
		// Two changed chats: one chat page and one message page for each.
		expect(polled.requests).toBe(3);

		const afterRestart = await poll({ source: 'messageReceived', cursor: polled.cursor });
		expect(afterRestart.events).toEqual([]);
		// Chats whose latest message was emitted are not read again, even in the cursor's own second.
		expect(afterRestart.requests).toBe(1);
		const d = await incoming({ chat_id: quiet.id, text: 'fourth' });
		const next = await poll({ source: 'messageReceived', cursor: afterRestart.cursor });
		expect(next.events.map((event) => event.message_uid)).toEqual([uidOf(d)]);
	});

	it('emits messages that share the cursor second exactly once', async () => {
		const { cursor } = await poll({ source: 'messageReceived' });
		await startOfASecond();
		const a = await incoming({ phone: '+4915100000002', text: 'same second A' });
		const afterA = await poll({ source: 'messageReceived', cursor });
		const b = await incoming({ phone: '+4915100000002', text: 'same second B' });
		const c = await incoming({ phone: '+4915100000003', text: 'same second C' });
		const afterC = await poll({ source: 'messageReceived', cursor: afterA.cursor });
		const stamps = [a, b, c].map((answer) => (answer.message as Record<string, unknown>).timestamp);
		expect(new Set(stamps).size).toBe(1); // the premise: all three share one record timestamp
		expect(afterA.events.map((event) => event.message_uid)).toEqual([uidOf(a)]);
		expect(afterC.events.map((event) => event.message_uid).sort()).toEqual([uidOf(b), uidOf(c)].sort());
		expect(afterC.cursor.at).toBe(parseRecordTime(stamps[0]));
		expect((await poll({ source: 'messageReceived', cursor: afterC.cursor })).events).toEqual([]);
	});

	it('emits existing messages on the first activation when a look-back is asked', async () => {
		const a = await incoming({ phone: '+4915100000004', text: 'before activation' });
		const withLookback = await poll({ source: 'messageReceived', lookbackMs: 60_000 });
		expect(withLookback.primed).toBe(false);
		expect(withLookback.events.map((event) => event.message_uid)).toContain(uidOf(a));
		const without = await poll({ source: 'messageReceived' });
		expect(without.events).toEqual([]);
	});

	it('narrows by group and label on the service side', async () => {
		const { cursor } = await poll({ source: 'messageReceived' });
		const groups = (await executor.run('chat:getAll', { group: true }, { returnAll: false, limit: 1 })) as Array<Record<string, unknown>>;
		expect(groups.length).toBe(1);
		await incoming({ chat_id: groups[0].id, text: 'in a group' });
		const direct = await incoming({ phone: '+4915100000005', text: 'direct' });
		await executor.run('label:add', { chat_id: direct.chat_id, labels: ['vip'] });
		const directOnly = await poll({ source: 'messageReceived', cursor, filter: { group: false } });
		expect(directOnly.events.map((event) => event.text)).toEqual(['direct']);
		const vip = await poll({ source: 'messageReceived', cursor, filter: { labels: ['vip'] } });
		expect(vip.events.map((event) => event.text)).toEqual(['direct']);
		const all = await poll({ source: 'messageReceived', cursor });
		expect(all.events.map((event) => event.text).sort()).toEqual(['direct', 'in a group']);
	});

	it('starts afresh from a cursor of another source or an unreadable one', async () => {
		const sent = await poll({ source: 'messageSent' });
		await incoming({ phone: '+4915100000006', text: 'not replayed' });
		for (const cursor of [sent.cursor, { v: 9 }, 'garbage']) {
			const result = await poll({ source: 'messageReceived', cursor });
			expect(result.primed).toBe(true);
			expect(result.events).toEqual([]);
		}
	});
});

describe('pollEvents: sent messages and new chats', () => {
	it('emits a sent message once it is sent, holding the cursor behind one still queued', async () => {
		const { cursor } = await poll({ source: 'messageSent' });
		const chats = (await executor.run('chat:getAll', { group: false }, { returnAll: false, limit: 2 })) as Array<Record<string, unknown>>;
		const first = await executor.sendMessage('message:sendToChat', { chat_id: chats[0].id, text: 'one' });
		const second = await executor.sendMessage('message:sendToChat', { chat_id: chats[1].id, text: 'two' });
		await executor.waitForStatus(String(first.message_uid), 'sent', { timeoutMs: 10_000, intervalMs: 100 });
		const statusOfSecond = ((await executor.run('message:get', { message_uid: second.message_uid })) as Record<string, unknown>).status;
		expect(statusOfSecond).toBe('queued'); // the premise: paced 800 ms behind the first
		const early = await poll({ source: 'messageSent', cursor });
		expect(early.events.map((event) => event.message_uid)).toEqual([first.message_uid]);
		expect(early.events[0].event_type).toBe('message:sent:new');

		await executor.waitForStatus(String(second.message_uid), 'sent', { timeoutMs: 10_000, intervalMs: 100 });
		const later = await poll({ source: 'messageSent', cursor: early.cursor });
		expect(later.events.map((event) => event.message_uid)).toEqual([second.message_uid]);
		expect((await poll({ source: 'messageSent', cursor: later.cursor })).events).toEqual([]);
	});

	it('emits each new chat once', async () => {
		const { cursor } = await poll({ source: 'chatCreated' });
		const created = await incoming({ phone: '+4915100000007', text: 'hello', name: 'Brand New Chat' });
		await incoming({ chat_id: created.chat_id, text: 'a second message does not make a new chat' });
		const polled = await poll({ source: 'chatCreated', cursor });
		expect(polled.events).toHaveLength(1);
		expect(polled.events[0]).toMatchObject({ event_type: 'chat:created', chat_id: created.chat_id, chat_name: 'Brand New Chat' });
		expect(polled.requests).toBe(1);
		expect((await poll({ source: 'chatCreated', cursor: polled.cursor })).events).toEqual([]);
	});
});

describe('pollSample', () => {
	it('returns a real recent item of each kind', async () => {
		const inbound = await incoming({ phone: '+4915100000008', text: 'sample me' });
		const received = await pollSample(executor, 'messageReceived');
		expect(received).toMatchObject({ event_type: 'message:received:new', message_uid: uidOf(inbound), text: 'sample me' });
		const chat = await pollSample(executor, 'chatCreated');
		expect(chat).toMatchObject({ event_type: 'chat:created', chat_id: inbound.chat_id });
		const sent = await pollSample(executor, 'messageSent');
		expect(sent?.event_type).toBe('message:sent:new');
		expect((sent?.raw.message as Record<string, unknown>).from_me).toBe(true);
	});

	it('names the field of an unknown source before any request', async () => {
		await expect(pollEvents(executor, { source: 'nonsense' as never, now: Date.now() })).rejects.toThrow(/event/);
	});
});

describe('catch-up for webhook receivers: the cursor follows what deliveries handed on', () => {
	const delivered = (answer: Record<string, unknown>) => {
		const parsed = parseDelivery({ event_type: 'message:received:new', data: { chat_id: answer.chat_id, message_uid: uidOf(answer) } });
		if (!('event' in parsed)) throw new Error(parsed.malformed);
		return parsed.event;
	};

	test('a start reads only what no delivery handed on; a quiet start costs one request', async () => {
		const placed = await poll({ source: 'messageReceived' });
		expect(placed).toMatchObject({ events: [], primed: true, requests: 1 });
		const handed = await incoming({ phone: '+4915177730001', text: 'handed on by a delivery' });
		const missed = await incoming({ phone: '+4915177730001', text: 'missed while stopped' });
		const cursor = cursorAfterDelivery(placed.cursor, delivered(handed), Date.now());
		expect(cursor?.seen.map(([key]) => key)).toContain(`message|${uidOf(handed)}`);
		expect(deliveredKeysOf(cursor, 'messageReceived')).toContain(`message:received:new|${uidOf(handed)}`);

		const caughtUp = await poll({ source: 'messageReceived', cursor });
		expect(caughtUp.events.map((event) => event.message_uid)).toEqual([uidOf(missed)]);
		const merged = mergeCursors(cursor, caughtUp.cursor);
		const quiet = await poll({ source: 'messageReceived', cursor: JSON.parse(JSON.stringify(merged)) });
		expect([quiet.events, quiet.requests]).toEqual([[], 1]);
	});

	test('no cursor yet: nothing recorded (the first start places it); keys bounded by the limit, the cursor moved past the dropped ones', () => {
		const event = (uid: string) => {
			const parsed = parseDelivery({ event_type: 'message:received:new', data: { chat_id: 1, message_uid: uid } });
			if (!('event' in parsed)) throw new Error(parsed.malformed);
			return parsed.event;
		};
		expect(cursorAfterDelivery(undefined, event('a'), Date.now())).toBeUndefined();
		let cursor: PollCursor | undefined = { v: 1, source: 'messageReceived', at: 1_000_000, seen: [] };
		for (let index = 0; index < 12; index++)
			cursor = cursorAfterDelivery(cursor, event(`u${index}`), 2_000_000 + index * 1000, { limit: 5 });
		expect(cursor?.seen.map(([key]) => key)).toEqual(['message|u7', 'message|u8', 'message|u9', 'message|u10', 'message|u11']);
		expect(cursor?.at).toBe(2_007_000);
		// The horizon: keys older than it are forgotten and the cursor follows it.
		const later = cursorAfterDelivery(cursor, event('late'), 2_011_000 + CATCH_UP_HORIZON_MS + 5000);
		expect(later?.seen.map(([key]) => key)).toEqual(['message|late']);
	});
});
