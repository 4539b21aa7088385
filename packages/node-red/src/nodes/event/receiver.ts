/**
 * Webhook mode's receiving end: one route per HTTP app, `<httpNodeRoot>/chat-messaging/events/<node id>/<secret>`,
 * serving every live event node of that app. What is Node-RED's stays here: finding the node, reading the body off
 * the request (capped, or as a parser in front of the route left it), writing the answer. The method, the secret in
 * the path, the size and the body are the core's way in (admitDelivery); the answer is given at once (the service
 * wants a 2xx within 5 seconds), then the event goes to its node.
 */
import { admitDelivery, DELIVERY_ANSWERS, type ChatEvent, type DeliveryAnswer, type DeliveryBody } from '@chat-messaging/core';
import type { Express as HttpApp, Request as HttpRequest, Response as HttpResponse } from 'express';

export const EVENT_ROUTE_PREFIX = '/chat-messaging/events';

export interface EventReceiver {
	/** Unknown until the configuration is read. */
	secret?: Buffer;
	/** False while starting (no secret yet) and once stopping: deliveries are answered 503, so the service retries. */
	accepting(): boolean;
	/** The answer to an admitted delivery (deliveryStep.ts's `deliveryAnswer`: chosen, redelivered), and whether it is taken on. */
	answer(event: ChatEvent): Promise<{ answer: DeliveryAnswer; taken: boolean }>;
	/** Takes the event on, once it is answered. */
	take(event: ChatEvent): void;
}

/** The live event nodes of each HTTP app, by node id; one route per app serves them all. */
const receiversByApp = new WeakMap<HttpApp, Map<string, EventReceiver>>();

/** The size a body parser in front of this route read: its Content-Length, else the parsed body written out again. */
function parsedSize(req: HttpRequest, parsed: unknown): number {
	const declared = Number(req.headers['content-length']);
	if (Number.isFinite(declared) && declared >= 0) return declared;
	return Buffer.byteLength(JSON.stringify(parsed ?? null));
}

function readBody(req: HttpRequest, limit: number): Promise<DeliveryBody> {
	// A body parser in front of this route may have consumed the stream already: httpNodeMiddleware, or Node-RED's
	// admin parser (5 MB) when httpAdminRoot and httpNodeRoot are the same path. The cap holds all the same.
	if (req.readableEnded) {
		const parsed: unknown = req.body;
		if (typeof parsed === 'string' || Buffer.isBuffer(parsed)) return Promise.resolve({ raw: parsed });
		return Promise.resolve({ parsed, size: parsedSize(req, parsed) });
	}
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		const collect = (chunk: Buffer) => {
			size += chunk.length;
			if (size > limit) {
				// Stop reading, but leave the socket for the 413 (Node closes the connection after it).
				req.off('data', collect);
				req.pause();
				resolve({ tooLarge: true });
				return;
			}
			chunks.push(chunk);
		};
		req.on('data', collect);
		req.on('end', () => resolve({ raw: Buffer.concat(chunks) }));
		req.on('error', reject);
	});
}

function answer(res: HttpResponse, sent: DeliveryAnswer): void {
	res.statusCode = sent.status;
	for (const [name, value] of Object.entries(sent.headers ?? {})) res.setHeader(name, value);
	if (sent.status === 413) res.setHeader('Connection', 'close');
	res.setHeader('Content-Type', 'application/json');
	res.end(JSON.stringify(sent.body));
}

const NOT_READY = DELIVERY_ANSWERS.unavailable('the event node is starting or stopping');

/** One delivery: which node, whether it runs, then the core's way in (admission.ts) and the node's answer. */
async function serve(registry: Map<string, EventReceiver>, req: HttpRequest, res: HttpResponse): Promise<void> {
	const receiver = registry.get(String(req.params.nodeId));
	// Not here (yet): a redeploy is between two instances, or the node is gone. Non-2xx, so the service retries.
	if (!receiver) return answer(res, { status: 404, body: { status: 'error', message: 'No event node here' } });
	const secret = receiver.secret;
	if (!secret || !receiver.accepting()) return answer(res, NOT_READY);
	const declared = Number(req.headers['content-length']);
	const admission = await admitDelivery(
		{
			method: req.method,
			secret: typeof req.params.secret === 'string' ? req.params.secret : null,
			declaredSize: Number.isFinite(declared) ? declared : undefined,
			readBody: (limit) => readBody(req, limit),
		},
		{ secret },
	);
	if ('refused' in admission) return answer(res, admission.refused);
	if (!receiver.accepting()) return answer(res, NOT_READY); // it began stopping while the body arrived
	const { answer: sent, taken } = await receiver.answer(admission.event);
	try {
		// Answer first: the service wants a 2xx within 5 seconds, whatever the flow does next.
		answer(res, sent);
	} finally {
		// Remembered as taken: taken on even if the answer could not be written, or a redelivery would be refused.
		if (taken) receiver.take(admission.event);
	}
}

export function receiversFor(app: HttpApp): Map<string, EventReceiver> {
	let receivers = receiversByApp.get(app);
	if (receivers) return receivers;
	const registry = new Map<string, EventReceiver>();
	receivers = registry;
	receiversByApp.set(app, registry);
	// Every method, with or without a secret: the core's way in answers each (405, 401) as the other platforms do.
	app.all([`${EVENT_ROUTE_PREFIX}/:nodeId/:secret`, `${EVENT_ROUTE_PREFIX}/:nodeId`], (req, res) => {
		serve(registry, req, res).catch((error: unknown) => {
			// After the answer went out, what failed is the node's to report (its take does); a second answer would throw.
			if (!res.headersSent) answer(res, { status: 400, body: { status: 'error', message: (error as Error).message } });
		});
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
