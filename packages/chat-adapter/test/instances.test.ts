/**
 * Two instances of one bot behind one URL (a proxy in front of two webhook routes), the sandbox sending every
 * delivery twice, and the proxy sending a delivery and its redelivery to different instances. On the SDK's Redis
 * state (a real redis-server) each customer message gets one answer; on each instance's own memory state, the same
 * traffic gets two, which is what the Redis case proves it prevents.
 */
import { createMemoryState } from '@chat-adapter/state-memory';
import { createRedisState } from '@chat-adapter/state-redis';
import type { StateAdapter } from 'chat';
import { startSandbox } from '@chat-messaging/sandbox';

import { serveWebhooks, syncWebhooks } from '../src';
import { hasRedisServer, startRedis, type RunningRedis } from '../../../test/support/redis';
import { chatMessages, control, startBot, until, type TestBot } from './support';

const TOKEN = 'chat-adapter-instances';
const MESSAGES = 8;

interface Figures {
	deliveries: number;
	handled: number;
	answers: number;
	duplicates: number;
}

async function twoInstances(state: () => StateAdapter, seed: number): Promise<Figures> {
	const sandbox = await startSandbox({ tokens: [TOKEN], paceMs: 10, deliveredAfterMs: 0, readAfterMs: 0, duplicateRate: 1, seed });
	const bots: TestBot[] = [];
	try {
		let handled = 0;
		for (let i = 0; i < 2; i++) {
			const testBot = await startBot({ baseUrl: sandbox.url, token: TOKEN, state: state(), subscribe: false });
			testBot.bot.onDirectMessage(async (thread, message) => {
				handled++;
				await thread.post(`answer to ${message.text}`);
			});
			bots.push(testBot);
		}
		// One public URL. A delivery's first copy goes to one instance and its second to the other: the case where
		// only a state the instances share can tell the second copy is a redelivery.
		const copies = new Map<string, number>();
		const proxy = await serveWebhooks(async (request) => {
			const body = await request.text();
			const copy = copies.get(body) ?? 0;
			copies.set(body, copy + 1);
			const target = bots[copy % bots.length];
			const url = new URL(request.url);
			return fetch(`${target.server.url}${url.pathname}${url.search}`, { method: 'POST', headers: request.headers, body });
		});
		try {
			await syncWebhooks(bots[0].adapter, { publicUrl: `${proxy.url}/api/webhooks/chat-messaging` });
			const chats: number[] = [];
			for (let i = 0; i < MESSAGES; i++) {
				const incoming = await control(sandbox.url, TOKEN, '/_sandbox/incoming', {
					phone: `+49151000004${String(i).padStart(2, '0')}`,
					text: `question ${i}`,
				});
				chats.push(incoming.chat_id);
			}
			const answersIn = async (chatId: number) => (await chatMessages(sandbox.url, TOKEN, chatId)).filter((m) => m.from_me).length;
			await until('an answer in every chat', async () => (await Promise.all(chats.map(answersIn))).every((count) => count >= 1), 20_000);
			const deliveriesDone = async () =>
				(await control(sandbox.url, TOKEN, '/_sandbox/deliveries?event_type=message:received:new')).deliveries.filter(
					(d: { ok: boolean }) => d.ok,
				).length;
			await until('every delivery and redelivery', async () => (await deliveriesDone()) >= 2 * MESSAGES, 20_000);
			await new Promise((resolve) => setTimeout(resolve, 500)); // a late second answer would show by now
			const counts = await Promise.all(chats.map(answersIn));
			return {
				deliveries: await deliveriesDone(),
				handled,
				answers: counts.reduce((sum, count) => sum + count, 0),
				duplicates: counts.reduce((sum, count) => sum + Math.max(0, count - 1), 0),
			};
		} finally {
			await proxy.close();
		}
	} finally {
		for (const testBot of bots) await testBot.stop();
		await sandbox.stop();
	}
}

const describeWithRedis = hasRedisServer() ? describe : describe.skip;
if (!hasRedisServer()) {
	console.warn('SKIPPED: the two-instance test needs redis-server (Debian: apt-get install -y redis-server; test/run-all.sh installs it)');
}

describeWithRedis('two instances of one bot behind one URL', () => {
	let redis: RunningRedis;
	beforeAll(async () => {
		redis = await startRedis();
	});
	afterAll(async () => {
		await redis?.stop();
	});

	it('on the Redis state: one answer per message, every redelivery recognised', async () => {
		const figures = await twoInstances(() => createRedisState({ url: redis.url }), 41);
		console.log(`two instances on Redis: ${JSON.stringify(figures)}`);
		expect(figures).toEqual({ deliveries: 2 * MESSAGES, handled: MESSAGES, answers: MESSAGES, duplicates: 0 });
	});

	it('on separate memory states the same traffic is answered twice (what the shared state prevents)', async () => {
		const figures = await twoInstances(() => createMemoryState(), 42);
		console.log(`two instances on memory: ${JSON.stringify(figures)}`);
		expect(figures).toEqual({ deliveries: 2 * MESSAGES, handled: 2 * MESSAGES, answers: 2 * MESSAGES, duplicates: MESSAGES });
	});
});
