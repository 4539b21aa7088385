/**
 * Adapts n8n's authenticated HTTP helper to the api `Transport` contract: resolve for every HTTP
 * status, reject (with a TransportFailure) only when no response arrived. n8n adds the bearer
 * header from the credential, so the token never passes through this code or the executor.
 */
import { sleep } from 'n8n-workflow';
import type {
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	IPollFunctions,
	ISupplyDataFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

import { Executor, pacingKey, toTransportFailure } from '@chat-messaging/core';
import type { Timing, Transport, TransportResponse } from '@chat-messaging/core';

export const CREDENTIAL_TYPE = 'chatMessagingApi';

type RequestContext =
	IExecuteFunctions | IHookFunctions | IWebhookFunctions | ILoadOptionsFunctions | IPollFunctions | ISupplyDataFunctions;

/** n8n-approved time: its `sleep`, the clock and Math.random (timers are not allowed in nodes). */
export const n8nTiming: Timing = {
	sleep: async (ms) => await sleep(ms),
	now: () => Date.now(),
	random: () => Math.random(),
};

/**
 * n8n wraps a failed request in a NodeApiError whose `cause` is the HTTP library's error; the
 * network code (ECONNREFUSED, ETIMEDOUT, ...) that tells whether the request left lives there.
 */
function networkError(error: unknown): unknown {
	let current: unknown = error;
	for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
		if (typeof (current as { code?: unknown }).code === 'string') return current;
		current = (current as { cause?: unknown }).cause;
	}
	return error;
}

function headerValue(headers: TransportResponse['headers'], name: string): string {
	const value = headers[name] ?? headers[name.toLowerCase()];
	return String(Array.isArray(value) ? value[0] : (value ?? ''));
}

/** The helper parses JSON itself when it can; text, bytes and unparsed JSON are normalised here. */
function responseBody(body: unknown, headers: TransportResponse['headers']): unknown {
	let text: string | undefined;
	if (typeof body === 'string') text = body;
	else if (body instanceof ArrayBuffer) text = new TextDecoder().decode(new Uint8Array(body));
	else if (ArrayBuffer.isView(body)) text = new TextDecoder().decode(new Uint8Array(body.buffer, body.byteOffset, body.byteLength));
	if (text === undefined) return body ?? '';
	if (headerValue(headers, 'content-type').includes('json') && text.trim()) {
		try {
			return JSON.parse(text) as unknown;
		} catch {
			return text; // not JSON after all: the executor reports it as a non-JSON answer
		}
	}
	return text;
}

function asBytes(body: unknown): Uint8Array {
	if (body instanceof Uint8Array) return body;
	if (body instanceof ArrayBuffer) return new Uint8Array(body);
	if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
	return new TextEncoder().encode(typeof body === 'string' ? body : JSON.stringify(body ?? ''));
}

export function n8nTransport(context: RequestContext): Transport {
	return async (request) => {
		const options: IHttpRequestOptions = {
			method: request.method,
			url: request.url,
			headers: { ...request.headers },
			// Multipart bytes go out as a Buffer view of the same memory, so the helper sends them as
			// they are (a plain object body would be re-encoded as JSON).
			body:
				request.body instanceof Uint8Array
					? Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength)
					: request.body,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: request.timeoutMs,
			...(request.responseType === 'bytes' ? { encoding: 'arraybuffer' as const } : {}),
		};
		// A URL outside the service (a signed download link) is fetched without the credential.
		const send =
			request.authenticate === false
				? context.helpers.httpRequest(options)
				: context.helpers.httpRequestWithAuthentication.call(context, CREDENTIAL_TYPE, options);
		// The executor turns this rejection into a ChatMessagingError, which the node reports as a
		// NodeApiError; a TransportFailure never reaches the n8n UI itself.
		const response = (await send.then(
			(full: unknown) => full,
			async (error: unknown) => await Promise.reject(toTransportFailure(networkError(error))),
		)) as IN8nHttpFullResponse;
		const headers = (response.headers ?? {}) as TransportResponse['headers'];
		if (request.responseType === 'bytes' && response.statusCode >= 200 && response.statusCode < 300) {
			return { status: response.statusCode, headers, body: asBytes(response.body) };
		}
		return { status: response.statusCode, headers, body: responseBody(response.body, headers) };
	};
}

/**
 * One executor per execution; its pacing is shared with every other execution on the same token. n8n's date picker
 * gives wall time without a zone: it is read in the workflow's time zone, as n8n's own nodes do.
 */
export async function createExecutor(context: RequestContext): Promise<Executor> {
	const credentials = await context.getCredentials<{ baseUrl?: string; apiToken?: string }>(CREDENTIAL_TYPE);
	const baseUrl = String(credentials.baseUrl ?? '');
	const token = String(credentials.apiToken ?? '');
	return new Executor({
		baseUrl,
		transport: n8nTransport(context),
		timing: n8nTiming,
		timeZone: context.getTimezone(),
		// The transport adds the token; the executor still keeps it out of errors and paces per token,
		// shared by every execution of this n8n process.
		secrets: [token],
		pacingKey: pacingKey(baseUrl.trim().replace(/\/+$/, ''), token),
	});
}
