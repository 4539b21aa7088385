/** A transport over Node's fetch, for tests of the executor against the sandbox over real HTTP. */
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
	if (request.responseType === 'bytes' && response.ok) {
		return {
			status: response.status,
			headers: Object.fromEntries(response.headers.entries()),
			body: new Uint8Array(await response.arrayBuffer()),
		};
	}
	const text = await response.text();
	let body: unknown = text;
	if ((response.headers.get('content-type') ?? '').includes('json')) {
		try {
			body = JSON.parse(text);
		} catch {
			body = text;
		}
	}
	return { status: response.status, headers: Object.fromEntries(response.headers.entries()), body };
};

/** Real time, for tests that run against the real sandbox. */
export const realTiming: Timing = {
	sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
	now: () => Date.now(),
	random: () => Math.random(),
};
