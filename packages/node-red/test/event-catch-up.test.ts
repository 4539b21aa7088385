/**
 * Webhook mode's catch-up at start (src/nodes/event/handed.ts) against the sandbox over real HTTP: the messages a chat
 * got while the node was stopped are read back even when a delivery of the chat's newest message was taken while the
 * node subscribed, before the catch-up read (a poll skips a chat whose newest message was handed on).
 */
import { parseDelivery, SeenEvents, type ChatEvent } from '@chat-messaging/core';
import { startSandbox } from '@chat-messaging/sandbox';

import { HandedEvents } from '../src/nodes/event/handed';
import { NodeStateStore } from '../src/nodes/event/state';
import { sandboxClient } from '../../../test/support/harness';
import { sandboxExecutor } from '../../../test/support/sandbox-executor';

const TOKEN = 'catch-up-token-3f81';
let sandbox: Awaited<ReturnType<typeof startSandbox>>;

beforeAll(async () => {
	sandbox = await startSandbox({ tokens: [TOKEN], chats: 3, seed: 5, paceMs: 5, deliveredAfterMs: 0, readAfterMs: 0 });
});
afterAll(() => sandbox.stop());

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a delivery taken while the node subscribes does not make the catch-up skip what its chat got while stopped', async () => {
	const executor = sandboxExecutor(sandbox.url, TOKEN);
	const incoming = (body: Record<string, unknown>) => sandboxClient(sandbox.url, TOKEN).control('/_sandbox/incoming', body);
	const store = new NodeStateStore(undefined, `catch-up-${Date.now()}`);

	// The node's first start places its cursor at now.
	await new HandedEvents(store, ['messageReceived']).catchUp(
		executor,
		() => false,
		() => undefined,
	);
	await pause(1100); // record times have whole seconds

	// Stopped: two messages arrive, then (at the start) the newest is delivered and taken before the catch-up reads.
	const first = await incoming({ phone: '+4915100000871', text: 'while stopped 1', name: 'Catch Up' });
	const second = await incoming({ chat_id: first.chat_id, text: 'while stopped 2' });
	await pause(1100);
	const newest = await incoming({ chat_id: first.chat_id, text: 'at the start' });
	const handed = new HandedEvents(store, ['messageReceived']);
	const memory = new SeenEvents();
	handed.rememberDelivered(memory);
	const delivered = parseDelivery({
		event_type: 'message:received:new',
		data: { chat_id: first.chat_id, text: 'at the start', message_uid: newest.message.uid, timestamp: newest.message.timestamp },
	});
	if (!('event' in delivered)) throw new Error(delivered.malformed);
	memory.remember(`message:received:new|${String(newest.message.uid)}`);
	store.save(handed.record(store.load(), delivered.event));

	const caughtUp: ChatEvent[] = [];
	await handed.catchUp(
		executor,
		() => false,
		(event) => {
			if (memory.remember(`${event.event_type}|${String(event.message_uid)}`)) caughtUp.push(event);
		},
	);
	expect(caughtUp.map((event) => event.message_uid)).toEqual([first.message.uid, second.message.uid]);
});
