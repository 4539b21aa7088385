/**
 * A webhook route on Node's own HTTP server, for bots that run without a framework (the examples, the tests): each
 * request becomes the Web `Request` the SDK's webhook handler takes, and its `Response` is written back.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type WebhookHandler = (request: Request) => Promise<Response>;

export interface WebhookServer {
	/** http://host:port, without a path. */
	url: string;
	port: number;
	close(): Promise<void>;
}

async function toRequest(req: IncomingMessage, origin: string): Promise<Request> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	const headers = new Headers();
	for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
	const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks);
	return new Request(new URL(req.url ?? '/', origin), { method: req.method, headers, body });
}

/** Serves `handler` on host:port (port 0: a free one). */
export function serveWebhooks(handler: WebhookHandler, options: { port?: number; host?: string } = {}): Promise<WebhookServer> {
	const host = options.host ?? '127.0.0.1';
	const server: Server = createServer((req, res) => {
		const origin = `http://${req.headers.host ?? host}`;
		toRequest(req, origin)
			.then(handler)
			.then(async (response) => {
				res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
				res.end(Buffer.from(await response.arrayBuffer()));
			})
			.catch(() => {
				res.writeHead(500, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ status: 'error', message: 'The webhook handler failed' }));
			});
	});
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, host, () => {
			const port = (server.address() as AddressInfo).port;
			resolve({
				url: `http://${host === '::1' ? '[::1]' : host}:${port}`,
				port,
				close: () => new Promise((done) => server.close(() => done())),
			});
		});
	});
}
