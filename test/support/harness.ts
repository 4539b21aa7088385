/**
 * What every suite and end-to-end script needs around the code under test, once: waiting for something to
 * happen, calling the sandbox (its public API with a token and its /_sandbox control API) as a user's own
 * script would, and a webhook receiver that records what reaches it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface WaitOptions {
	timeoutMs?: number;
	intervalMs?: number;
}

/**
 * Asks `probe` until it returns something (anything but undefined, null or false) and returns that. A probe that
 * throws is asked again; on time-out the error names `what` and the probe's last error, if any.
 */
export async function waitFor<T>(
	what: string,
	probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
	{ timeoutMs = 5000, intervalMs = 25 }: WaitOptions = {},
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	let lastError: unknown;
	for (;;) {
		try {
			const value = await probe();
			if (value !== undefined && value !== null && value !== false) return value;
		} catch (error) {
			lastError = error;
		}
		if (Date.now() > deadline) {
			const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
			throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
		}
		await sleep(intervalMs);
	}
}

export interface HttpAnswer<T = any> {
	status: number;
	headers: Headers;
	/** The parsed JSON body, or the text when it is not JSON. */
	body: T;
	text: string;
}

/** One HTTP exchange with a JSON body (if any); never throws on a status. */
export async function httpJson<T = any>(
	method: string,
	url: string,
	body?: unknown,
	headers: Record<string, string> = {},
	raw?: string,
): Promise<HttpAnswer<T>> {
	const response = await fetch(url, {
		method,
		headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
		body: body === undefined ? raw : JSON.stringify(body),
		signal: AbortSignal.timeout(60_000),
	});
	const text = await response.text();
	let parsed: unknown = text;
	try {
		parsed = JSON.parse(text);
	} catch {
		// not JSON: the text stands
	}
	return { status: response.status, headers: response.headers, body: parsed as T, text };
}

export interface SandboxCallOptions {
	/** Another workspace's token; null sends no Authorization header. */
	token?: string | null;
	headers?: Record<string, string>;
	/** A body sent as is (malformed JSON, say) instead of `body`. */
	raw?: string;
}

/** The sandbox as a user's own script sees it, with one workspace's token. */
export interface SandboxClient {
	readonly url: string;
	/** Any call; the answer whatever its status. */
	call(method: string, path: string, body?: unknown, options?: SandboxCallOptions): Promise<HttpAnswer>;
	/** A call that must succeed: its `data` (or the whole body when there is no envelope). */
	data<T = any>(method: string, path: string, body?: unknown, token?: string): Promise<T>;
	/** GET that must succeed: its `data`. */
	get<T = any>(path: string, token?: string): Promise<T>;
	/** POST to the control API (`/_sandbox/<path>`): its `data`. */
	control<T = any>(path: string, body?: unknown): Promise<T>;
}

/**
 * `token` is never put into an error message: a failing call reports method, path, status and body only.
 */
export function sandboxClient(url: string, token: string): SandboxClient {
	const call: SandboxClient['call'] = (method, path, body, options = {}) => {
		const used = options.token === undefined ? token : options.token;
		const headers = { ...(used === null ? {} : { authorization: `Bearer ${used}` }), ...(options.headers ?? {}) };
		return httpJson(method, `${url}${path}`, body, headers, options.raw);
	};
	const data = async <T>(method: string, path: string, body?: unknown, other?: string): Promise<T> => {
		const answer = await call(method, path, body, other === undefined ? {} : { token: other });
		if (answer.status < 200 || answer.status >= 300) {
			throw new Error(`sandbox ${method} ${path} answered ${answer.status}: ${answer.text.slice(0, 300).split(token).join('<token>')}`);
		}
		const parsed = answer.body as { status?: string; data?: unknown };
		return (parsed && typeof parsed === 'object' && 'data' in parsed ? parsed.data : parsed) as T;
	};
	return {
		url,
		call,
		data,
		get: (path, other) => data('GET', path, undefined, other),
		control: (path, body = {}) => data('POST', `/_sandbox/${path.replace(/^\/?(_sandbox\/)?/, '')}`, body),
	};
}

export interface Receiver {
	url: string;
	received: { body: any; headers: IncomingMessage['headers'] }[];
	/** Status to answer with (default 200). */
	status: number;
	stop(): Promise<void>;
}

/** A webhook receiver: an HTTP server on 127.0.0.1 that records every POST's JSON body. */
export async function startReceiver(status = 200): Promise<Receiver> {
	const receiver: Receiver = { url: '', received: [], status, stop: async () => undefined };
	const server = createServer((req: IncomingMessage, res: ServerResponse) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			receiver.received.push({ body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'), headers: req.headers });
			res.writeHead(receiver.status, { 'content-type': 'text/plain' });
			res.end('ok');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
	receiver.stop = () =>
		new Promise<void>((resolve) => {
			server.close(() => resolve());
			server.closeAllConnections();
		});
	return receiver;
}
