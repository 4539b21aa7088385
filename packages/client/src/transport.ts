/**
 * Node's fetch as the executor's Transport, and real time: the one copy the client, the MCP server (which
 * bundles it) and the tests use. The core holds neither (it is compiled into the n8n package, where fetch
 * and timers are forbidden). Every HTTP status is an answer; no answer at all is a TransportFailure saying
 * whether the request may have reached the service (the core's toTransportFailure), which decides whether
 * a send may be retried.
 */
import { toTransportFailure, type Timing, type Transport } from '@chat-messaging/core';

export const fetchTransport: Transport = async (request) => {
	let response: Response;
	try {
		response = await fetch(request.url, {
			method: request.method,
			headers: request.headers,
			body: request.body as BodyInit | undefined,
			signal: AbortSignal.timeout(request.timeoutMs),
		});
	} catch (error) {
		throw toTransportFailure(error);
	}
	const headers = Object.fromEntries(response.headers.entries());
	if (request.responseType === 'bytes' && response.ok)
		return { status: response.status, headers, body: new Uint8Array(await response.arrayBuffer()) };
	const text = await response.text();
	let body: unknown = text;
	if ((response.headers.get('content-type') ?? '').includes('json') && text) {
		try {
			body = JSON.parse(text);
		} catch {
			body = text;
		}
	}
	return { status: response.status, headers, body };
};

/** Real time: the executor's pauses (pacing, back-off, polling) as timers. */
export const realTiming: Timing = {
	sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
	now: () => Date.now(),
	random: () => Math.random(),
};
