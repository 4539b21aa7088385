import { createServer, type IncomingMessage, type ServerResponse } from 'http';
import type { AddressInfo } from 'net';
import { startSandbox, type SandboxOptions } from '../src';

/** Fast settings for tests: short pace and status delays, quick webhook retries. */
export const FAST: Partial<SandboxOptions> = {
	paceMs: 40,
	deliveredAfterMs: 80,
	readAfterMs: 160,
	webhookRetryMs: 30,
	webhookTimeoutMs: 1000,
	seed: 7,
	chats: 25,
};

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

export interface ApiResponse {
	status: number;
	headers: Headers;
	body: any;
	text: string;
}

export async function call(
	sandbox: Sandbox,
	method: string,
	path: string,
	body?: unknown,
	options: { token?: string | null; headers?: Record<string, string>; raw?: string } = {},
): Promise<ApiResponse> {
	const token = options.token === undefined ? sandbox.tokens[0] : options.token;
	const headers: Record<string, string> = { ...(options.headers ?? {}) };
	if (token !== null) headers.authorization = `Bearer ${token}`;
	let payload: string | undefined = options.raw;
	if (body !== undefined) {
		headers['content-type'] = 'application/json';
		payload = JSON.stringify(body);
	}
	const response = await fetch(`${sandbox.url}${path}`, { method, headers, body: payload });
	const text = await response.text();
	let parsed: unknown = undefined;
	try {
		parsed = JSON.parse(text);
	} catch {
		parsed = undefined;
	}
	return { status: response.status, headers: response.headers, body: parsed, text };
}

/** GET and unwrap `data` (asserting the ok envelope). */
export async function data(sandbox: Sandbox, path: string, token?: string): Promise<any> {
	const res = await call(sandbox, 'GET', path, undefined, token ? { token } : {});
	if (res.status !== 200 || res.body?.status !== 'ok') throw new Error(`GET ${path} → ${res.status} ${res.text}`);
	return res.body.data;
}

export async function waitFor<T>(probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 4000): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await probe();
		if (value) return value;
		if (Date.now() > deadline) throw new Error('waitFor: timed out');
		await new Promise((r) => setTimeout(r, 20));
	}
}

export interface Receiver {
	url: string;
	received: { body: any; headers: IncomingMessage['headers'] }[];
	/** Status to answer with (default 200). */
	status: number;
	stop(): Promise<void>;
}

/** A webhook receiver: a local HTTP server on 127.0.0.1 that records every POST. */
export async function startReceiver(status = 200): Promise<Receiver> {
	const receiver: Receiver = { url: '', received: [], status, stop: async () => undefined };
	const server = createServer((req: IncomingMessage, res: ServerResponse) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
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

export const SPEC_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [+-]\d{4}$/;
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

export { startSandbox };
