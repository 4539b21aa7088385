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

/** A credential given as it is, or as a function asked for it at each use (a rotating, short-lived one). */
export type Credential = string | (() => string | Promise<string>);

/**
 * Decides alone whether a delivery is admitted, in place of the secret in the webhook URL (a bot behind Vercel Connect
 * or an organisation's gateway): given the request and its raw body; a throw or a falsy answer refuses it (401).
 */
export type WebhookVerifier = (request: Request, body: string) => unknown;

export interface ChatMessagingAdapterOptions {
	/** The service's base URL, e.g. https://api.example.com. Default: CHAT_MESSAGING_BASE_URL. */
	baseUrl?: string;
	/** The service's bearer token, or a function that gives it, asked at each request. Default: CHAT_MESSAGING_TOKEN. */
	token?: Credential;
	/**
	 * The public address of the bot's webhook route (what the service POSTs to), without a query. Needed only to
	 * register the subscriptions (`syncWebhooks`). Default: CHAT_MESSAGING_PUBLIC_URL.
	 */
	publicUrl?: string;
	/** The name the bot goes by. Default: the Chat's `userName`. */
	userName?: string;
	/**
	 * The secret the webhook URL carries, or a function that gives it, asked at each delivery. Default: derived from
	 * a token given as text, so every instance of one bot (and a restarted one) accepts the same deliveries without
	 * storing anything. Needed with a token given as a function, unless a `webhookVerifier` is.
	 */
	webhookSecret?: Credential;
	/** Admits or refuses each delivery in place of the webhook secret: when given, it alone decides. */
	webhookVerifier?: WebhookVerifier;
}

export interface ResolvedConfiguration {
	baseUrl: string;
	token: Credential;
	publicUrl?: string;
}

function input(field: string, message: string): ChatMessagingError {
	return new ChatMessagingError(`${field}: ${message}`, { kind: 'input', field });
}

/** The options completed from the environment; a missing or malformed value is named, the token never shown. */
export function resolveConfiguration(options: ChatMessagingAdapterOptions, env: NodeJS.ProcessEnv = process.env): ResolvedConfiguration {
	const given = options.token ?? env[ENVIRONMENT.token] ?? '';
	const token = typeof given === 'function' ? given : given.trim();
	const rawBaseUrl = (options.baseUrl ?? env[ENVIRONMENT.baseUrl] ?? '').trim();
	if (!rawBaseUrl) throw input('baseUrl', `is not set (option baseUrl or ${ENVIRONMENT.baseUrl}): the service's base URL`);
	if (!token) throw input('token', `is not set (option token or ${ENVIRONMENT.token}): the service's bearer token`);
	if (typeof token === 'function' && options.webhookSecret === undefined && !options.webhookVerifier) {
		throw input(
			'webhookSecret',
			'is needed when the token is a function (or a webhookVerifier): a rotating token cannot make a lasting secret',
		);
	}
	let baseUrl: string;
	try {
		baseUrl = normalizeBaseUrl(rawBaseUrl);
	} catch (error) {
		throw input('baseUrl', redactText((error as Error).message, typeof token === 'string' ? [token] : []));
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
