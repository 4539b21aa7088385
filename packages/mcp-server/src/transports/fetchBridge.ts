/**
 * node:http to the web's Request and Response and back, for the 2026-07-28 handler (the v2 SDK speaks fetch, the v1 transport of 2025-11-25 node:http): a
 * few lines rather than an adapter package and its web framework. The request's signal is aborted when the client
 * closes the connection before the answer is written, which the revision counts as a cancel.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The request as the web sees it, its body the JSON already read; its signal aborted when the client goes away. */
export function webRequest(req: IncomingMessage, res: ServerResponse, body: unknown): Request {
	const closed = new AbortController();
	res.once('close', () => {
		if (!res.writableFinished) closed.abort(new Error('The client closed the response stream'));
	});
	const headers = new Headers();
	for (const [name, value] of Object.entries(req.headers))
		if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
	// The host was checked before (access.ts); the URL's own host only has to parse.
	return new Request(new URL(req.url ?? '/', 'http://localhost'), {
		method: req.method ?? 'POST',
		headers,
		body: JSON.stringify(body),
		signal: closed.signal,
	});
}

/** Writes the web's response, streaming an event stream as it comes; stops reading when the client goes away. */
export async function sendResponse(response: Response, res: ServerResponse): Promise<void> {
	const headers: Record<string, string> = {};
	response.headers.forEach((value, name) => (headers[name] = value));
	res.writeHead(response.status, headers);
	if (!response.body) return void res.end();
	const reader = response.body.getReader();
	res.once('close', () => void reader.cancel().catch(() => undefined));
	try {
		for (;;) {
			const { done, value } = await reader.read();
			if (done) break;
			if (res.destroyed) break;
			res.write(value);
		}
	} catch {
		// The stream ended early (the client went away): nothing more to write.
	}
	res.end();
}
