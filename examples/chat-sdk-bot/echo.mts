/**
 * An echo bot: every customer who writes to the workspace gets their words back. The Chat SDK with the Chat Messaging
 * adapter, its webhook route on Node's HTTP server, the subscriptions made at start and removed at Ctrl-C.
 *
 *   CHAT_MESSAGING_BASE_URL=https://api.example.com CHAT_MESSAGING_TOKEN=… \
 *   CHAT_MESSAGING_PUBLIC_URL=https://bot.example.com/api/webhooks/chat-messaging PORT=3000 \
 *   npx tsx examples/chat-sdk-bot/echo.mts
 *
 * Without CHAT_MESSAGING_PUBLIC_URL the route's own loopback address is subscribed (enough for the sandbox:
 * `npm run demo:bot`).
 */
import { createMemoryState } from '@chat-adapter/state-memory';
import { createChatMessagingAdapter, serveWebhooks, syncWebhooks } from '@chat-messaging/chat-adapter';
import { Chat } from 'chat';

const adapter = createChatMessagingAdapter(); // CHAT_MESSAGING_BASE_URL and CHAT_MESSAGING_TOKEN, as the MCP server reads them
const bot = new Chat({ userName: 'echo', adapters: { chatMessaging: adapter }, state: createMemoryState(), logger: 'warn' });

bot.onDirectMessage(async (thread, message) => {
	console.log(`${message.author.fullName}: ${message.text}`);
	const answer = `You said: ${message.text}`;
	await thread.post(answer);
	console.log(`echo: ${answer}`);
});

await bot.initialize();
const server = await serveWebhooks((request) => bot.webhooks.chatMessaging(request), { port: Number(process.env.PORT ?? 0) });
const publicUrl = process.env.CHAT_MESSAGING_PUBLIC_URL ?? `${server.url}/api/webhooks/chat-messaging`;
const subscriptions = await syncWebhooks(adapter, { publicUrl });
console.log(`echo bot listening on ${server.url}, subscribed at ${publicUrl}`);

process.once('SIGINT', stop);
process.once('SIGTERM', stop);
async function stop(): Promise<void> {
	await subscriptions.remove();
	await server.close();
	await bot.shutdown();
	process.exit(0);
}
