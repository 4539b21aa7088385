/**
 * What the adapter is made from: the service's address and token, given or read from the environment variables the
 * MCP server reads, and the public address the service delivers events to. An error names the option or variable,
 * never the token.
 */
import { ChatMessagingError, normalizeBaseUrl, redactText } from '@chat-messaging/core';

/** The environment variables, named as the MCP server names them, so one environment serves both. */
export const ENVIRONMENT = {
	baseUrl: 'CHAT_MESSAGING_BASE_URL',
	token: 'CHAT_MESSAGING_TOKEN',
	/** The adapter's own: where the service reaches the bot's webhook route. */
	publicUrl: 'CHAT_MESSAGING_PUBLIC_URL',
} as const;

export interface ChatMessagingAdapterOptions {
	/** The service's base URL, e.g. https://api.example.com. Default: CHAT_MESSAGING_BASE_URL. */
	baseUrl?: string;
	/** The service's bearer token. Default: CHAT_MESSAGING_TOKEN. */
	token?: string;
	/**
	 * The public address of the bot's webhook route (what the service POSTs to), without a query. Needed only to
	 * register the subscriptions (`syncWebhooks`). Default: CHAT_MESSAGING_PUBLIC_URL.
	 */
	publicUrl?: string;
	/** The name the bot goes by. Default: the Chat's `userName`. */
	userName?: string;
	/**
	 * The secret the webhook URL carries. Default: derived from the token, so every instance of one bot (and a
	 * restarted one) accepts the same deliveries without storing anything.
	 */
	webhookSecret?: string;
}

export interface ResolvedConfiguration {
	baseUrl: string;
	token: string;
	publicUrl?: string;
}

function input(field: string, message: string): ChatMessagingError {
	return new ChatMessagingError(`${field}: ${message}`, { kind: 'input', field });
}

/** The options completed from the environment; a missing or malformed value is named, the token never shown. */
export function resolveConfiguration(options: ChatMessagingAdapterOptions, env: NodeJS.ProcessEnv = process.env): ResolvedConfiguration {
	const token = (options.token ?? env[ENVIRONMENT.token] ?? '').trim();
	const rawBaseUrl = (options.baseUrl ?? env[ENVIRONMENT.baseUrl] ?? '').trim();
	if (!rawBaseUrl) throw input('baseUrl', `is not set (option baseUrl or ${ENVIRONMENT.baseUrl}): the service's base URL`);
	if (!token) throw input('token', `is not set (option token or ${ENVIRONMENT.token}): the service's bearer token`);
	let baseUrl: string;
	try {
		baseUrl = normalizeBaseUrl(rawBaseUrl);
	} catch (error) {
		throw input('baseUrl', redactText((error as Error).message, [token]));
	}
	const publicUrl = (options.publicUrl ?? env[ENVIRONMENT.publicUrl] ?? '').trim() || undefined;
	if (publicUrl) {
		let parsed: URL;
		try {
			parsed = new URL(publicUrl);
		} catch {
			throw input(
				'publicUrl',
				'is not a URL: give the full address of the webhook route, e.g. https://bot.example.com/api/webhooks/chat-messaging',
			);
		}
		if (parsed.search) throw input('publicUrl', 'must have no query: the adapter adds the secret itself');
	}
	return { baseUrl, token, publicUrl };
}
