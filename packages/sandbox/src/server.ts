import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'http';
import { ApiError } from './errors';
import { Random, hashSeed } from './random';
import { RawReply, matchRoute, type PublicRequestContext, type Route } from './router';
import { chatRoutes } from './routes/chats';
import { controlRoutes } from './routes/control';
import { fileRoutes } from './routes/files';
import { messageRoutes } from './routes/messages';
import { webhookRoutes } from './routes/webhooks';
import { workspaceRoutes } from './routes/workspace';
import { referenceRoutes } from './routes/reference';
import type { SandboxRuntime } from './runtime';
import type { Workspace } from './workspace';
import { RateLimiter, pickFault } from './traffic';

export const ROUTES: Route[] = [
	...chatRoutes,
	...messageRoutes,
	...fileRoutes,
	...workspaceRoutes,
	...webhookRoutes,
	...controlRoutes,
	...referenceRoutes,
];

const NOT_FOUND_HTML =
	'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>404 Not Found</title></head>' +
	'<body><h1>Not Found</h1><p>The requested URL was not found on this server.</p></body></html>\n';

const BAD_GATEWAY_HTML = '<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>\n';

class BodyTooLarge extends Error {}

/** The body, or BodyTooLarge as soon as it passes `limit` (announced by Content-Length, or counted). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		if (Number(req.headers['content-length'] ?? 0) > limit) return reject(new BodyTooLarge());
		const chunks: Buffer[] = [];
		let size = 0;
		const onData = (chunk: Buffer) => {
			size += chunk.length;
			if (size > limit) {
				req.off('data', onData);
				reject(new BodyTooLarge());
				return;
			}
			chunks.push(chunk);
		};
		req.on('data', onData);
		req.on('end', () => resolve(Buffer.concat(chunks)));
		req.on('error', reject);
	});
}

/** 413 with the error envelope; the rest of the body is not read, and the connection closes after the answer. */
function sendTooLarge(req: IncomingMessage, res: ServerResponse, limit: number): void {
	const body = JSON.stringify(new ApiError(413, `Request body too large (more than ${limit} bytes)`).toBody());
	res.writeHead(413, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
	res.end(body, () => req.destroy());
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
	const text = JSON.stringify(body);
	res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
	res.end(text);
}

function sendError(res: ServerResponse, error: ApiError): void {
	sendJson(res, error.httpStatus, error.toBody(), error.headers);
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
	res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
	res.end(html);
}

function parseJsonBody(raw: Buffer, contentType: string): unknown {
	if (raw.length === 0) return undefined;
	if (!/\bjson\b/i.test(contentType)) throw ApiError.field([], 'Request body must be JSON (Content-Type: application/json)');
	let parsed: unknown;
	try {
		parsed = JSON.parse(raw.toString('utf8'));
	} catch {
		throw ApiError.field([], 'Request body is not valid JSON');
	}
	if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
		throw ApiError.field([], 'Request body must be a JSON object');
	}
	return parsed;
}

/** Wires HTTP to the runtime: routing, auth, rate limit, faults, latency, envelopes. */
export function createSandboxServer(runtime: SandboxRuntime): Server {
	const { options } = runtime;
	const limiter = new RateLimiter(options.rateLimit);
	const faultRng = new Random(hashSeed(`${options.seed}:faults`));

	const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
		const method = (req.method ?? 'GET').toUpperCase();
		const host = req.headers.host ?? `${options.host}:${options.port}`;
		const baseUrl = options.publicUrl?.replace(/\/+$/, '') ?? `http://${host}`;
		const url = new URL(req.url ?? '/', 'http://sandbox.local');
		const path = url.pathname;

		// Like the live service: a trailing slash is an unknown page, answered with HTML.
		if (path.length > 1 && path.endsWith('/')) return sendHtml(res, 404, NOT_FOUND_HTML);

		const match = matchRoute(ROUTES, method, path);
		if (match === null) return sendError(res, new ApiError(404, `Unknown path: ${method} ${path}`));
		if (!('route' in match)) {
			return sendError(
				res,
				new ApiError(405, `Method ${method} not allowed on ${path}`, undefined, undefined, { allow: match.allowed.join(', ') }),
			);
		}
		const { route, params } = match;

		let ws: Workspace | null = null;
		if (route.kind !== 'public') {
			const header = req.headers.authorization ?? '';
			const token = /^Bearer[ ]+(?<token>\S.*)$/i.exec(header.trim())?.groups?.token;
			if (token === undefined)
				return sendError(res, ApiError.coded('missing_credentials', 'Missing credentials: send Authorization: Bearer <API_TOKEN>'));
			ws = runtime.directory.byToken.get(token.trim()) ?? null;
			if (!ws) return sendError(res, ApiError.coded('invalid_token', 'Invalid token'));
		}

		let fault = null;
		if (route.kind === 'api' && ws) {
			ws.data.apiCalls += 1;
			const wait = limiter.take(ws.token);
			if (wait > 0) {
				ws.rateLimited += 1;
				return sendError(res, ApiError.coded('rate_limit_exceeded', 'Rate limit exceeded, retry later', { 'retry-after': String(wait) }));
			}
			fault = pickFault(faultRng, options.faultRate, options.faultKinds);
			if (options.latencyMs > 0 && !(await runtime.scheduler.sleep(options.latencyMs))) return void req.socket.destroy();
			if (fault === 'drop-before') return void req.socket.destroy();
			if (fault === 'http-500') return sendError(res, ApiError.coded('internal_error', 'Internal server error'));
			if (fault === 'http-502') return sendHtml(res, 502, BAD_GATEWAY_HTML);
			if (fault === 'http-429') {
				return sendError(res, ApiError.coded('rate_limit_exceeded', 'Rate limit exceeded, retry later', { 'retry-after': '1' }));
			}
		}

		let status = 200;
		let reply: RawReply | null = null;
		let payload: unknown;
		try {
			const rawBody = await readBody(req, options.maxBodyBytes);
			const contentType = req.headers['content-type'] ?? '';
			const ctx: PublicRequestContext = {
				runtime,
				params,
				query: Object.fromEntries(url.searchParams.entries()),
				body: route.body === 'json' && method !== 'GET' && method !== 'DELETE' ? parseJsonBody(rawBody, contentType) : undefined,
				rawBody,
				contentType,
				baseUrl,
			};
			let result: unknown;
			if (route.kind === 'public') result = await route.handler(ctx);
			else if (ws) result = await route.handler({ ...ctx, ws });
			else throw new Error(`sandbox invariant: ${route.kind} route ${route.pattern} reached without a workspace`);
			if (result instanceof RawReply) reply = result;
			else payload = { status: 'ok', data: result };
		} catch (error) {
			let apiError: ApiError;
			if (error instanceof BodyTooLarge) return sendTooLarge(req, res, options.maxBodyBytes);
			if (error instanceof ApiError) apiError = error;
			else {
				if (options.log) console.error(error);
				apiError = ApiError.coded('internal_error', 'Internal server error');
			}
			status = apiError.httpStatus;
			payload = apiError.toBody();
			if (Object.keys(apiError.headers).length > 0)
				reply = new RawReply(status, { ...apiError.headers, 'content-type': 'application/json; charset=utf-8' }, JSON.stringify(payload));
		}
		// Durable before it is answered: a write the client heard "ok" for survives a kill -9.
		if (method !== 'GET') await runtime.persist();
		// The request took effect; the client never hears about it, hears a 500, or hears too late.
		if (fault === 'drop-after') return void req.socket.destroy();
		if (fault === 'http-500-after') return sendError(res, ApiError.coded('internal_error', 'Internal server error'));
		if (fault === 'slow' && !(await runtime.scheduler.sleep(options.slowMs))) return void req.socket.destroy();
		if (reply) {
			res.writeHead(reply.status, { 'content-length': Buffer.byteLength(reply.body), ...reply.headers });
			res.end(reply.body);
		} else {
			sendJson(res, status, payload);
		}
	};

	return createServer((req, res) => {
		const started = Date.now();
		if (options.log) res.on('finish', () => console.error(`${req.method} ${req.url} → ${res.statusCode} (${Date.now() - started} ms)`));
		handle(req, res).catch((error: unknown) => {
			if (options.log) console.error(error);
			if (!res.headersSent) sendError(res, ApiError.coded('internal_error', 'Internal server error'));
			else res.destroy();
		});
	});
}
