/**
 * packages/core/src/runtime/composites/replySubscription.ts against the sandbox over real HTTP: Send and Wait for Reply
 * for a platform woken by a delivery — the message sent, a temporary subscription at the receiver's URL that the
 * sandbox delivers the reply to, a reply that came before the subscription found at once (and the subscription
 * removed), leftovers of earlier waits removed first, a receiver the service cannot reach refused.
 */
import { createServer, type Server } from 'http';
import type { AddressInfo } from 'net';
import { Executor, replyInDelivery, sendAndSubscribeForReply, type ReplyReceiver, type ReplyWatch } from '../src';
import { startSandbox } from '@chat-messaging/sandbox';
import { realTiming } from '../../../test/support/fetch-transport';
import { sandboxClient } from '../../../test/support/harness';
import { sandboxExecutor } from '../../../test/support/sandbox-executor';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

let sandbox: Sandbox;
let executor: Executor;
let receiver: Server;
let receiverBase: string;
const delivered: Array<{ url: string; body: unknown }> = [];
const TOKEN = 'reply-subscription-api-token';
const incoming = (body: Record<string, unknown>) => sandboxClient(sandbox.url, TOKEN).control('/_sandbox/incoming', body);
const subscriptionUrls = async () => ((await executor.run('webhook:getAll')) as Array<{ url: string }>).map((item) => item.url);

/** A receiver as a platform gives it: one URL per wait, naming the sent message. */
const receiverFor = (extra: Partial<ReplyReceiver> = {}): ReplyReceiver => ({
	url: (watch: ReplyWatch) => `${receiverBase}/wait?after=${watch.message_uid}`,
	ownsUrl: (url: string, watch: ReplyWatch) => url.endsWith(`after=${watch.message_uid}`),
	howToFix: 'Use a public HTTPS address',
	...extra,
});

beforeAll(async () => {
	sandbox = await startSandbox({ tokens: [TOKEN], chats: 4, seed: 9, paceMs: 10, deliveredAfterMs: 0, readAfterMs: 0 });
	executor = sandboxExecutor(sandbox.url, TOKEN);
	receiver = createServer((request, response) => {
		let text = '';
		request.on('data', (chunk: Buffer) => (text += chunk.toString()));
		request.on('end', () => {
			delivered.push({ url: request.url ?? '', body: JSON.parse(text) as unknown });
			response.end('ok');
		});
	});
	await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
	receiverBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
	await new Promise((resolve) => receiver.close(resolve));
	await sandbox.stop();
});

test('sends, subscribes the receiver until the deadline, and the reply is delivered to it', async () => {
	const chat = ((await executor.run('chat:getAll', { group: false })) as Array<Record<string, unknown>>)[0];
	const before = realTiming.now();
	const started = await sendAndSubscribeForReply(
		executor,
		{ sendTo: 'chat', chat_id: chat.id, text: 'Shall we deliver tomorrow?', replyTimeout: 600 },
		receiverFor(),
	);
	if (!('subscribed' in started)) throw new Error('expected a subscription, got a reply');
	expect(started.watch).toEqual({ chat_id: chat.id, message_uid: started.sent.message_uid });
	expect(started.deadline).toBeGreaterThanOrEqual(before + 600_000);
	const url = `${receiverBase}/wait?after=${started.watch.message_uid}`;
	expect(await subscriptionUrls()).toContain(url);

	const answer = await incoming({ chat_id: chat.id, text: 'Yes please' });
	for (let tries = 0; tries < 100 && !delivered.some((item) => item.url.endsWith(started.watch.message_uid)); tries++)
		await realTiming.sleep(50);
	const delivery = delivered.find((item) => item.url.endsWith(started.watch.message_uid));
	expect(replyInDelivery(delivery?.body, started.watch)).toMatchObject({
		chat_id: chat.id,
		text: 'Yes please',
		message_uid: String((answer.message as Record<string, unknown>).uid),
	});
});

test('a reply that came before the subscription is found at once, and the subscription removed', async () => {
	const chat = ((await executor.run('chat:getAll', { group: false })) as Array<Record<string, unknown>>)[1];
	const started = await sendAndSubscribeForReply(
		executor,
		{ sendTo: 'chat', chat_id: chat.id, text: 'Quick question' },
		receiverFor({
			// The customer answers while the platform makes its URL, before the subscription exists.
			url: async (watch) => {
				await incoming({ chat_id: chat.id, text: 'Quick answer' });
				return `${receiverBase}/wait?after=${watch.message_uid}`;
			},
		}),
	);
	expect('reply' in started && started.reply).toMatchObject({ chat_id: chat.id, text: 'Quick answer' });
	expect((await subscriptionUrls()).filter((url) => url.endsWith(`after=${started.watch.message_uid}`))).toEqual([]);
});

test("removes the leftovers of earlier waits first, and refuses a receiver the service cannot reach, naming the platform's advice", async () => {
	const stale = `${receiverBase}/wait?after=stale-one`;
	await executor.run('webhook:create', { event_type: 'message:received:new', url: stale, enabled: true });
	const chat = ((await executor.run('chat:getAll', { group: false })) as Array<Record<string, unknown>>)[2];
	await sendAndSubscribeForReply(
		executor,
		{ sendTo: 'chat', chat_id: chat.id, text: 'Cleaning up' },
		receiverFor({ isStale: (url) => url === stale }),
	);
	expect(await subscriptionUrls()).not.toContain(stale);

	await expect(
		sendAndSubscribeForReply(
			executor,
			{ sendTo: 'chat', chat_id: chat.id, text: 'Unreachable' },
			receiverFor({ url: () => 'http://example.com/wait' }),
		),
	).rejects.toThrow(
		/public HTTPS address, and this receiver's address http:\/\/example\.com\/wait is plain http away from this machine.*Use a public HTTPS address/,
	);
	await expect(sendAndSubscribeForReply(executor, { sendTo: 'chat', chat_id: chat.id }, receiverFor())).rejects.toThrow(
		/^Message: is required/,
	);
});
