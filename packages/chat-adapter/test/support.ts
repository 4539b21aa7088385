/** A bot on the real Chat SDK with this adapter, its webhook route served on loopback, against a sandbox. */
import { Chat, type StateAdapter } from 'chat';
import { createMemoryState } from '@chat-adapter/state-memory';

import { createChatMessagingAdapter, serveWebhooks, syncWebhooks, type ChatMessagingAdapter, type WebhookServer } from '../src';

export interface TestBot {
	bot: Chat;
	adapter: ChatMessagingAdapter;
	server: WebhookServer;
	publicUrl: string;
	stop(): Promise<void>;
}

/** Starts the route first (its port makes the public URL), then the adapter and the Chat behind it. */
export async function startBot(options: {
	baseUrl: string;
	token: string;
	state?: StateAdapter;
	subscribe?: boolean;
	userName?: string;
}): Promise<TestBot> {
	let handle: (request: Request) => Promise<Response> = async () => new Response('starting', { status: 503 });
	const server = await serveWebhooks((request) => handle(request));
	const publicUrl = `${server.url}/api/webhooks/chat-messaging`;
	const adapter = createChatMessagingAdapter({ baseUrl: options.baseUrl, token: options.token, publicUrl });
	const bot = new Chat({
		userName: options.userName ?? 'testbot',
		adapters: { chatMessaging: adapter },
		state: options.state ?? createMemoryState(),
		logger: 'silent',
	});
	await bot.initialize();
	handle = (request) => bot.webhooks.chatMessaging(request);
	if (options.subscribe !== false) await syncWebhooks(adapter);
	return {
		bot,
		adapter,
		server,
		publicUrl,
		stop: async () => {
			await server.close();
			await bot.shutdown();
		},
	};
}

/** A call to the sandbox's control API. */
export async function control(baseUrl: string, token: string, path: string, body?: unknown): Promise<any> {
	const response = await fetch(`${baseUrl}${path}`, {
		method: body === undefined ? 'GET' : 'POST',
		headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	if (!response.ok) throw new Error(`${path}: ${response.status} ${text}`);
	const parsed = text ? JSON.parse(text) : undefined;
	return parsed && typeof parsed === 'object' && 'data' in parsed ? parsed.data : parsed;
}

/** Waits until `check` holds (a real service answers when it answers), failing with `what` after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!(await check())) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
}

/** The messages the sandbox holds in a chat, newest first (the public API, as a user reads them). */
export async function chatMessages(baseUrl: string, token: string, chatId: number): Promise<Array<Record<string, any>>> {
	const out: Array<Record<string, any>> = [];
	for (let page = 1; ; page++) {
		let response = await fetch(`${baseUrl}/chats/${chatId}/messages?page=${page}`, { headers: { authorization: `Bearer ${token}` } });
		// Under the sandbox's rate limit this reader is refused like any other client: it waits and reads again.
		while (response.status === 429) {
			await new Promise((resolve) => setTimeout(resolve, 400));
			response = await fetch(`${baseUrl}/chats/${chatId}/messages?page=${page}`, { headers: { authorization: `Bearer ${token}` } });
		}
		const body = (await response.json()) as any;
		out.push(...(body.data?.messages ?? []));
		if (!body.data?.has_more_pages) return out;
	}
}
