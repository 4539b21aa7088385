/**
 * A plain HTTP proxy in front of the sandbox that records each request's method and URL (never its
 * headers, so never the token): end-to-end and editor checks assert on what n8n or Node-RED actually sent.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordingProxy {
	url: string;
	/** `GET /chats?page=1`, in arrival order. */
	requests: string[];
	/** While set, every request is recorded and answered with this status and the service's error body, not forwarded. */
	failWith?: number;
	stop(): Promise<void>;
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
	const upstream = new URL(target);
	const requests: string[] = [];
	const proxy = { requests } as RecordingProxy;
	const server: Server = createServer((req, res) => {
		requests.push(`${req.method ?? ''} ${req.url ?? ''}`);
		if (proxy.failWith !== undefined) {
			res.writeHead(proxy.failWith, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ status: 'error', message: `failing on purpose (${proxy.failWith})` }));
			return;
		}
		const forward = httpRequest(
			{ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
			(answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			},
		);
		forward.on('error', () => {
			res.writeHead(502);
			res.end();
		});
		req.pipe(forward);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return Object.assign(proxy, {
		url: `http://127.0.0.1:${port}`,
		stop: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	});
}
