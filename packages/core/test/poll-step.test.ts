/**
 * packages/core/src/runtime/events/pollStep.ts against the sandbox over real HTTP: what both polling platforms do
 * with the events a poll read — a chat's messages held until it is quiet and released as one burst, a chat a
 * teammate handles skipped, and the held bursts handed back to store.
 */
import { HumanTakeover, INBOX_OFF, pollEvents, pollStep, type BurstEvent } from '../src';
import { startSandbox } from '@chat-messaging/sandbox';
import { sandboxClient } from '../../../test/support/harness';
import { sandboxExecutor } from '../../../test/support/sandbox-executor';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

let sandbox: Sandbox;
let executor: ReturnType<typeof sandboxExecutor>;
const TOKEN = 'poll-step-api-token';
const incoming = (body: Record<string, unknown>) => sandboxClient(sandbox.url, TOKEN).control('/_sandbox/incoming', body);

beforeAll(async () => {
	sandbox = await startSandbox({ tokens: [TOKEN], chats: 5, seed: 7, paceMs: 10, deliveredAfterMs: 0, readAfterMs: 0 });
	executor = sandboxExecutor(sandbox.url, TOKEN);
});

afterAll(async () => {
	await sandbox.stop();
});

test('holds a burst until its chat is quiet, releases it as one event, and skips a chat a teammate handles', async () => {
	const teammates = (await executor.run('teammate:getAll', {})) as Array<Record<string, unknown>>;
	const assigned = await incoming({ phone: '+4915100000201', text: 'assigned chat', name: 'Poll Step Assigned' });
	await executor.run('chat:update', { chat_id: assigned.chat_id, responsible: teammates[0].email });
	const first = await incoming({ phone: '+4915100000202', text: 'first line', name: 'Poll Step Burst' });
	await incoming({ chat_id: first.chat_id, text: 'second line' });

	const now = Date.now();
	const polled = await pollEvents(executor, { source: 'messageReceived', lookbackMs: 60_000, now });
	const found = polled.events.filter((event) => [assigned.chat_id, first.chat_id].includes(event.chat_id ?? ''));
	expect(found.map((event) => event.text).sort()).toEqual(['assigned chat', 'first line', 'second line']);
	const takeover = new HumanTakeover({ ...INBOX_OFF, skipAssigned: true, burstQuietSeconds: 30 }, Date.now);

	const held = await pollStep(executor, found, { burst: undefined, burstQuietMs: 30_000, takeover, now });
	expect(held.events).toEqual([]);
	expect(held.burst.chats.map((chat) => [chat.chat_id, chat.events.length]).sort()).toEqual(
		[
			[assigned.chat_id, 1],
			[first.chat_id, 2],
		].sort(),
	);

	// A later poll that found nothing new, once the chats have been quiet: each burst out, the assigned chat's skipped.
	const quiet = await pollStep(executor, [], {
		burst: JSON.parse(JSON.stringify(held.burst)),
		burstQuietMs: 30_000,
		takeover,
		now: now + 31_000,
	});
	expect(quiet.burst.chats).toEqual([]);
	expect(quiet.events).toHaveLength(1);
	const burst = quiet.events[0] as BurstEvent;
	expect(burst).toMatchObject({ chat_id: first.chat_id, text: 'first line\nsecond line' });
	expect(burst.message_uids).toHaveLength(2);
});

test('without batching, passes the events on through takeover alone, and releases what was held before it was turned off', async () => {
	const only = await incoming({ phone: '+4915100000203', text: 'no batching', name: 'Poll Step Plain' });
	const now = Date.now();
	const { events: found } = await pollEvents(executor, { source: 'messageReceived', lookbackMs: 5_000, now });
	const mine = found.filter((event) => event.chat_id === only.chat_id);
	const takeover = new HumanTakeover(INBOX_OFF, Date.now);
	const held = await pollStep(executor, mine, { burst: undefined, burstQuietMs: 60_000, takeover, now });
	expect(held.events).toEqual([]);

	const off = await pollStep(executor, [], { burst: held.burst, burstQuietMs: 0, takeover, now });
	expect(off.events.map((event) => event.text)).toEqual(['no batching']);
	expect(off.burst.chats).toEqual([]);
});
