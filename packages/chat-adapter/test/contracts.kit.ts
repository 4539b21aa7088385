/**
 * The Chat SDK's own adapter contracts (`@chat-adapter/tests`, which the official adapters run), held to this adapter
 * under vitest (`npm run test:chat-kit`): thread ids, the bot's own messages, and the webhook verifier that alone
 * decides when given. The adapter's token is a function here, as Vercel Connect gives it; no request leaves the
 * process (the base URL is a closed loopback port, and none of these deliveries needs a lookup).
 */
import { inspect } from 'node:util';

import { connectWebhookContract, createMockChatInstance, selfMessageContract, threadIdContract } from '@chat-adapter/tests';
import { beforeAll, expect, it } from 'vitest';

import { createChatMessagingAdapter, SECRET_PARAMETER, type ChatMessagingAdapterOptions } from '../src';

const BASE_URL = 'http://127.0.0.1:9';
const SECRET = 'kit-webhook-secret-5a0c';
const ROUTE = 'https://bot.example/api/webhooks/chat-messaging';

const adapterWith = (options: ChatMessagingAdapterOptions) =>
	createChatMessagingAdapter({ baseUrl: BASE_URL, token: () => Promise.resolve('kit-rotating-token'), userName: 'kit-bot', ...options });

const deliveryRequest = (body: Record<string, unknown>, secret?: string) =>
	new Request(secret ? `${ROUTE}?${SECRET_PARAMETER}=${secret}` : ROUTE, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});

const customerMessage = (uid: string, chat: Record<string, unknown> = { chat_id: 42, full_name: 'Ada', is_group: false }) => ({
	event_type: 'message:received:new',
	chat,
	message: { text: 'hello', message_uid: uid, direction: 'inbound', sender: { full_name: 'Ada' } },
});

/** An adapter that knows one chat to be a group: a delivery said so. */
const grouped = adapterWith({ webhookSecret: SECRET });
beforeAll(async () => {
	await grouped.initialize(createMockChatInstance());
	const answer = await grouped.handleWebhook(
		deliveryRequest(customerMessage('KIT-G1', { chat_id: 77, full_name: 'Team', is_group: true }), SECRET),
	);
	expect(answer.status).toBe(200);
});

threadIdContract({
	name: 'chat-messaging',
	encode: (decoded: { chatId: number }) => grouped.encodeThreadId(decoded),
	decode: (id) => grouped.decodeThreadId(id),
	cases: [
		{ decoded: { chatId: 42 }, encoded: 'chat-messaging:42' },
		{ decoded: { chatId: 1 }, encoded: 'chat-messaging:1' },
		{ decoded: { chatId: 9_007_199_254 } },
	],
	isDM: { fn: (id) => grouped.isDM(id), dmThreadId: 'chat-messaging:42', nonDmThreadId: 'chat-messaging:77' },
});

selfMessageContract({
	name: 'chat-messaging',
	setup: async () => {
		const chat = createMockChatInstance();
		const adapter = adapterWith({ webhookSecret: SECRET });
		// A teammate handler, so that a message sent is judged (the bot's own sends are not a teammate's) and not skipped.
		adapter.onTeammateMessage(() => undefined);
		await adapter.initialize(chat);
		return { adapter, chat };
	},
	makeOtherMessageRequest: () => deliveryRequest(customerMessage('KIT-O1'), SECRET),
	// What the bot sent comes back as message:sent:new with the origin the service gives API sends.
	makeSelfMessageRequest: () =>
		deliveryRequest(
			{
				event_type: 'message:sent:new',
				chat: { chat_id: 42, full_name: 'Ada', is_group: false },
				message: { text: 'an answer', message_uid: 'KIT-S1', direction: 'outbound', origin: 'Public API' },
			},
			SECRET,
		),
});

connectWebhookContract({
	name: 'chat-messaging',
	createAdapter: ({ webhookVerifier }) => adapterWith({ webhookVerifier }),
	createAdapterWithSecretAndVerifier: ({ webhookVerifier }) => adapterWith({ webhookVerifier, webhookSecret: SECRET }),
	// No secret in the URL: the verifier is the only gate.
	makeWebhookRequest: () => deliveryRequest(customerMessage('KIT-C1')),
});

it('keeps credentials given as text or as functions out of JSON and inspection of the adapter', async () => {
	const token = 'kit-token-never-shown-7d1';
	for (const adapter of [
		createChatMessagingAdapter({ baseUrl: BASE_URL, token, webhookSecret: SECRET }),
		createChatMessagingAdapter({ baseUrl: BASE_URL, token: () => token, webhookSecret: () => SECRET }),
	]) {
		await adapter.initialize(createMockChatInstance());
		for (const shown of [JSON.stringify(adapter), inspect(adapter, { depth: 8, showHidden: true })]) {
			expect(shown).not.toContain(token);
			expect(shown).not.toContain(SECRET);
		}
	}
});
