/**
 * Credentials given as functions (the Chat SDK's rule for vendor-official adapters: a rotating, short-lived token from
 * Vercel Connect or a vault), asked for at each use and never kept: the token is asked at each request to the
 * service, the webhook secret at each delivery.
 */
import { Executor, pacingKey, redactText, type Transport } from '@chat-messaging/core';
import { fetchTransport, realTiming } from '@chat-messaging/client';

import type { Credential } from './configuration';

/** The credential's value now; a function that gives nothing is an error naming no value. */
export async function askFor(credential: Credential): Promise<string> {
	const value = typeof credential === 'function' ? await credential() : credential;
	if (typeof value !== 'string' || value.trim() === '') throw new Error('A credential function gave no value');
	return value.trim();
}

/**
 * A transport that adds the token, asked for at each request, to the requests for the service's own origin (a
 * download link elsewhere goes without it, as the executor sends it). An error answer that repeats the token has it
 * taken out: the executor, which redacts the token it was given, never saw this one.
 */
function authenticating(transport: Transport, baseUrl: string, token: () => string | Promise<string>): Transport {
	const origin = new URL(baseUrl).origin;
	return async (request) => {
		if (request.authenticate === false || new URL(request.url).origin !== origin) return transport(request);
		const value = await askFor(token);
		const response = await transport({ ...request, headers: { ...request.headers, Authorization: `Bearer ${value}` } });
		if (response.status < 400) return response;
		if (typeof response.body === 'string') return { ...response, body: redactText(response.body, [value]) };
		if (response.body instanceof Uint8Array) return response;
		const text = JSON.stringify(response.body ?? null);
		if (!text.includes(value)) return response;
		const redacted = redactText(text, [value]);
		let body: unknown = redacted;
		try {
			body = JSON.parse(redacted);
		} catch {
			// the token's own characters broke the JSON: the redacted text is the answer
		}
		return { ...response, body };
	};
}

/**
 * The executor of an adapter. A token given as a function is added by the transport, asked for at each request; the
 * service limits per workspace and a process serves one bot's workspace, so every adapter of one base URL with a
 * token function shares one pace.
 */
export function executorFor(baseUrl: string, token: Credential): Executor {
	if (typeof token === 'string') {
		return new Executor({ baseUrl, token, transport: fetchTransport, timing: realTiming, pacingKey: pacingKey(baseUrl, token) });
	}
	return new Executor({
		baseUrl,
		transport: authenticating(fetchTransport, baseUrl, token),
		timing: realTiming,
		pacingKey: pacingKey(baseUrl, 'chat-sdk-adapter token function'),
	});
}
