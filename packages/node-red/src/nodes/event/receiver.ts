/**
 * Webhook mode's receiving end: one route per HTTP app, POST `<httpNodeRoot>/chat-messaging/events/<node id>/<secret>`,
 * serving every live event node of that app. It checks the secret in the path, reads the body (capped), parses the
 * delivery with the core, answers at once (the service wants a 2xx within 5 seconds) and hands the event to its node.
 */
import { timingSafeEqual } from 'node:crypto';
import { parseDelivery, type ChatEvent } from '@chat-messaging/core';
import type { Express as HttpApp, Request as HttpRequest, Response as HttpResponse } from 'express';

export const EVENT_ROUTE_PREFIX = '/chat-messaging/events';
const MAX_BODY_BYTES = 1024 * 1024;

export interface EventReceiver {
	/** Unknown until the configuration is read. */
	secret?: Buffer;
	/** False while starting (no secret yet) and once stopping: deliveries are answered 503, so the service retries. */
	accepting(): boolean;
	receive(event: ChatEvent): void;
}

/** The live event nodes of each HTTP app, by node id; one route per app serves them all. */
const receiversByApp = new WeakMap<HttpApp, Map<string, EventReceiver>>();

class BodyProblem extends Error {
	constructor(
		message: string,
		readonly status: number,
	) {
		super(message);
	}
}

const tooLarge = () => new BodyProblem(`body too large (the limit is ${MAX_BODY_BYTES} bytes)`, 413);

/** The size a body parser in front of this route read: its Content-Length, else the parsed body written out again. */
function parsedSize(req: HttpRequest, parsed: unknown): number {
	const declared = Number(req.headers['content-length']);
	if (Number.isFinite(declared) && declared >= 0) return declared;
	if (typeof parsed === 'string' || Buffer.isBuffer(parsed)) return Buffer.byteLength(parsed);
	return Buffer.byteLength(JSON.stringify(parsed ?? null));
}

function readBody(req: HttpRequest): Promise<unknown> {
	// A body parser in front of this route may have consumed the stream already: httpNodeMiddleware, or Node-RED's
	// admin parser (5 MB) when httpAdminRoot and httpNodeRoot are the same path. The cap holds all the same.
	if (req.readableEnded) {
		const parsed = req.body;
		if (parsedSize(req, parsed) > MAX_BODY_BYTES) return Promise.reject(tooLarge());
		if (typeof parsed !== 'string' && !Buffer.isBuffer(parsed)) return Promise.resolve(parsed);
		try {
			return Promise.resolve(JSON.parse(parsed.toString()));
		} catch {
			return Promise.reject(new BodyProblem('body is not JSON', 400));
		}
	}
	if (Number(req.headers['content-length']) > MAX_BODY_BYTES) return Promise.reject(tooLarge());
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		const collect = (chunk: Buffer) => {
			size += chunk.length;
			if (size > MAX_BODY_BYTES) {
				// Stop reading, but leave the socket for the 413 (Node closes the connection after it).
				req.off('data', collect);
				req.pause();
				reject(tooLarge());
				return;
			}
			chunks.push(chunk);
		};
		req.on('data', collect);
		req.on('end', () => {
			const text = Buffer.concat(chunks).toString('utf8');
			try {
				resolve(JSON.parse(text));
			} catch {
				reject(new BodyProblem('body is not JSON', 400));
			}
		});
		req.on('error', reject);
	});
}

function answer(res: HttpResponse, status: number, body: Record<string, unknown>): void {
	res.statusCode = status;
	if (status === 413) res.setHeader('Connection', 'close');
	res.setHeader('Content-Type', 'application/json');
	res.end(JSON.stringify(body));
}

export function receiversFor(app: HttpApp): Map<string, EventReceiver> {
	let receivers = receiversByApp.get(app);
	if (receivers) return receivers;
	const registry = new Map<string, EventReceiver>();
	receivers = registry;
	receiversByApp.set(app, registry);
	app.post(`${EVENT_ROUTE_PREFIX}/:nodeId/:secret`, (req, res) => {
		const receiver = registry.get(req.params.nodeId);
		// Not here (yet): a redeploy is between two instances, or the node is gone. Non-2xx, so the service retries.
		if (!receiver) return answer(res, 404, { status: 'error', message: 'No event node here' });
		const unavailable = () => answer(res, 503, { status: 'error', message: 'The event node is starting or stopping: retry' });
		const secret = receiver.secret;
		if (!secret || !receiver.accepting()) return unavailable();
		const given = Buffer.from(String(req.params.secret ?? ''));
		if (given.length !== secret.length || !timingSafeEqual(given, secret)) {
			return answer(res, 401, { status: 'error', message: 'Unknown secret' });
		}
		readBody(req).then(
			(body) => {
				const delivery = parseDelivery(body);
				if ('malformed' in delivery) return answer(res, 400, { status: 'error', message: `Malformed delivery: ${delivery.malformed}` });
				if (!receiver.accepting()) return unavailable(); // it began stopping while the body arrived
				// Answer first: the service wants a 2xx within 5 seconds, whatever the flow does next.
				answer(res, 200, { status: 'ok' });
				receiver.receive(delivery.event);
			},
			(error: Error) => answer(res, error instanceof BodyProblem ? error.status : 400, { status: 'error', message: error.message }),
		);
	});
	return registry;
}

/** `/` or `/red/` → `` or `/red`, so paths join without double slashes. */
export function nodeRootPrefix(httpNodeRoot: unknown): string {
	if (typeof httpNodeRoot !== 'string') return '';
	const trimmed = httpNodeRoot.trim().replace(/\/+$/, '');
	return trimmed === '' ? '' : trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/** Where the service should POST, for a node id (and secret); without a secret: the node's prefix. */
export function subscriptionUrl(publicUrl: string, httpNodeRoot: unknown, nodeId: string, secret = ''): string {
	return `${publicUrl.trim().replace(/\/+$/, '')}${nodeRootPrefix(httpNodeRoot)}${EVENT_ROUTE_PREFIX}/${encodeURIComponent(nodeId)}/${secret}`;
}
