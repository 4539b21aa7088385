/**
 * An AI agent on the same channel: each customer message, with the chat's conversation so far, goes to an AI SDK
 * model, and its answer is posted back. Without a model configured it says so and stops (the echo bot needs none).
 *
 *   AI_GATEWAY_API_KEY=… AI_MODEL=openai/gpt-5-mini \
 *   CHAT_MESSAGING_BASE_URL=… CHAT_MESSAGING_TOKEN=… CHAT_MESSAGING_PUBLIC_URL=… \
 *   npx tsx examples/chat-sdk-bot/agent.mts
 *
 * The model is named as the AI SDK's gateway names it (`provider/model`); its key is AI_GATEWAY_API_KEY.
 */
import { createMemoryState } from '@chat-adapter/state-memory';
import { createChatMessagingAdapter, serveWebhooks, syncWebhooks } from '@chat-messaging/chat-adapter';
import { generateText, type ModelMessage } from 'ai';
import { Chat } from 'chat';

const model = process.env.AI_MODEL ?? 'openai/gpt-5-mini';
if (!process.env.AI_GATEWAY_API_KEY) {
	console.log('SKIPPED: set AI_GATEWAY_API_KEY (and AI_MODEL, default openai/gpt-5-mini) to run the agent; the echo bot needs no key');
	process.exit(0);
}

const adapter = createChatMessagingAdapter();
const bot = new Chat({ userName: 'agent', adapters: { chatMessaging: adapter }, state: createMemoryState(), logger: 'warn' });

bot.onDirectMessage(async (thread, message) => {
	// The conversation before this message, oldest first: the customer's words as the user's, the bot's as its own.
	const history = await adapter.fetchMessages(thread.id, { limit: 20 });
	const messages: ModelMessage[] = history.messages
		.filter((entry) => entry.id !== message.id && entry.text)
		.map((entry) => ({ role: entry.author.isMe ? 'assistant' : 'user', content: entry.text }));
	messages.push({ role: 'user', content: message.text });
	const { text } = await generateText({
		model,
		system: 'You answer customers of a small business in their chat app: briefly, kindly, in their language.',
		messages,
	});
	await thread.post(text);
});

await bot.initialize();
const server = await serveWebhooks((request) => bot.webhooks.chatMessaging(request), { port: Number(process.env.PORT ?? 0) });
const subscriptions = await syncWebhooks(adapter, {
	publicUrl: process.env.CHAT_MESSAGING_PUBLIC_URL ?? `${server.url}/api/webhooks/chat-messaging`,
});
console.log(`agent (${model}) listening on ${server.url}`);
process.once('SIGINT', async () => {
	await subscriptions.remove();
	await server.close();
	process.exit(0);
});
