/**
 * `chat-messaging-event`: receives the service's webhook deliveries and emits one msg per event.
 *
 * Lifecycle: on start it picks a random secret, serves POST
 * `<httpNodeRoot>/chat-messaging/events/<node id>/<secret>` and holds one subscription per chosen event
 * type at `<publicUrl><that path>`: syncSubscriptions (api/events) re-points what an earlier run of this
 * node left behind (same path prefix: a crash or a kill skips 'close'), creates what is missing and deletes
 * the rest. On close it deletes every subscription of this node before reporting done, so redeploys never
 * leave orphans.
 *
 * The service signs nothing (service notes), so the secret in the URL is what rejects forged calls.
 * Parsing, de-duplication keys and subscription management are api/events; what stays here is
 * Node-RED's: the route, the secret in its path, the config node's public URL.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import {
	ChatMessagingError,
	checkReceiverUrl,
	deleteSubscriptions,
	EVENT_TYPES,
	eventKey,
	parseDelivery,
	SeenEvents,
	syncSubscriptions,
	type ChatEvent,
	type Executor,
} from '../api';
import { resolveConfig, type ConfigNode } from './config';
import { asChatMessagingError, errorStatusText } from './errors';
import type { HttpApp, HttpRequest, HttpResponse, NodeAPI, NodeDefinition, NodeInstance, NodeMessage } from './types';

export const EVENT_TYPE = 'chat-messaging-event';
export const EVENT_ROUTE_PREFIX = '/chat-messaging/events';
const PUBLIC_URL_HELP =
	'Set the Public URL of the Chat Messaging configuration node to an https address the internet reaches, for example through a ' +
	'tunnel such as cloudflared or ngrok to this Node-RED; to try the event node locally, point the configuration at the sandbox instead';
const MAX_BODY_BYTES = 1024 * 1024;

const SUPPORTED_EVENTS = new Set(EVENT_TYPES.map((option) => option.value));

interface EventReceiver {
	secret: Buffer;
	receive(event: ChatEvent): void;
}

/** The live event nodes of each HTTP app, by node id; one route per app serves them all. */
const receiversByApp = new WeakMap<HttpApp, Map<string, EventReceiver>>();

function readBody(req: HttpRequest): Promise<unknown> {
	// A body parser in front of httpNode (httpNodeMiddleware) may have consumed the stream already.
	if (req.readableEnded) {
		const parsed = req.body;
		if (typeof parsed !== 'string' && !Buffer.isBuffer(parsed)) return Promise.resolve(parsed);
		try {
			return Promise.resolve(JSON.parse(parsed.toString()));
		} catch {
			return Promise.reject(new Error('body is not JSON'));
		}
	}
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		req.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size > MAX_BODY_BYTES) {
				reject(new Error('body too large'));
				req.destroy();
				return;
			}
			chunks.push(chunk);
		});
		req.on('end', () => {
			const text = Buffer.concat(chunks).toString('utf8');
			try {
				resolve(JSON.parse(text));
			} catch {
				reject(new Error('body is not JSON'));
			}
		});
		req.on('error', reject);
	});
}

function answer(res: HttpResponse, status: number, body: Record<string, unknown>): void {
	res.statusCode = status;
	res.setHeader('Content-Type', 'application/json');
	res.end(JSON.stringify(body));
}

function receiversFor(app: HttpApp): Map<string, EventReceiver> {
	let receivers = receiversByApp.get(app);
	if (receivers) return receivers;
	const registry = new Map<string, EventReceiver>();
	receivers = registry;
	receiversByApp.set(app, registry);
	app.post(`${EVENT_ROUTE_PREFIX}/:nodeId/:secret`, (req, res) => {
		const receiver = registry.get(req.params.nodeId);
		if (!receiver) return answer(res, 404, { status: 'error', message: 'No event node here' });
		const given = Buffer.from(String(req.params.secret ?? ''));
		if (given.length !== receiver.secret.length || !timingSafeEqual(given, receiver.secret)) {
			return answer(res, 401, { status: 'error', message: 'Unknown secret' });
		}
		readBody(req).then(
			(body) => {
				const delivery = parseDelivery(body);
				if ('malformed' in delivery) return answer(res, 400, { status: 'error', message: `Malformed delivery: ${delivery.malformed}` });
				// Answer first: the service wants a 2xx within 5 seconds, whatever the flow does next.
				answer(res, 200, { status: 'ok' });
				receiver.receive(delivery.event);
			},
			(error: Error) => answer(res, 400, { status: 'error', message: error.message }),
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

export function registerEventNode(RED: NodeAPI): void {
	RED.nodes.registerType(EVENT_TYPE, function (this: NodeInstance, definition: NodeDefinition) {
		RED.nodes.createNode(this, definition);
		setUpEventNode(RED, this, definition);
	});
}

function setUpEventNode(RED: NodeAPI, node: NodeInstance, definition: NodeDefinition): void {
	const events = (Array.isArray(definition.events) ? definition.events : [definition.events])
		.map((value) => String(value ?? '').trim())
		.filter((value, index, all) => value !== '' && all.indexOf(value) === index);
	const secretText = randomBytes(24).toString('hex');
	const seen = new SeenEvents();
	let subscriptionIds: number[] = [];
	let closing = false;
	// Kept for 'close': the config node may already be closed by then (Node-RED closes nodes concurrently).
	let executor: Executor | undefined;
	let ownsUrl: ((url: string) => boolean) | undefined;

	const receivers = receiversFor(RED.httpNode);
	const receiver: EventReceiver = {
		secret: Buffer.from(secretText),
		receive(event) {
			if (closing || !events.includes(event.event_type)) return;
			const key = eventKey(event);
			if (key !== undefined && !seen.remember(key)) return; // a redelivery of an event already emitted
			const msg: NodeMessage = { topic: event.event_type, payload: event };
			node.send(msg);
		},
	};
	receivers.set(node.id, receiver);

	const fail = (error: unknown) => {
		const problem = asChatMessagingError(error);
		node.status({ fill: 'red', shape: 'ring', text: errorStatusText(problem) });
		node.error(`Could not subscribe to events: ${problem.message}`);
	};

	const register = async () => {
		const unknown = events.filter((type) => !SUPPORTED_EVENTS.has(type));
		if (events.length === 0) throw new ChatMessagingError('events: choose at least one event type', { kind: 'input', field: 'events' });
		if (unknown.length)
			throw new ChatMessagingError(`events: unknown event type ${unknown.join(', ')}`, { kind: 'input', field: 'events' });
		const config: ConfigNode = resolveConfig(RED, definition.config);
		if (!/^https?:\/\/\S+$/i.test(config.publicUrl)) {
			throw new ChatMessagingError('publicUrl: set the public URL the service can reach this Node-RED at in the configuration node', {
				kind: 'input',
				field: 'publicUrl',
			});
		}
		executor = config.getExecutor();
		const prefix = subscriptionUrl(config.publicUrl, RED.settings.httpNodeRoot, node.id);
		checkReceiverUrl(executor.baseUrl, prefix, PUBLIC_URL_HELP);
		node.status({ fill: 'yellow', shape: 'ring', text: 'subscribing' });
		ownsUrl = (url) => url.startsWith(prefix);
		const url = subscriptionUrl(config.publicUrl, RED.settings.httpNodeRoot, node.id, secretText);
		subscriptionIds = await syncSubscriptions(executor, { ownsUrl, url, events });
		if (closing) return;
		node.status({ fill: 'green', shape: 'dot', text: `listening: ${events.length} event type${events.length === 1 ? '' : 's'}` });
	};
	const registered = register().catch(fail);

	node.on('close', (_removed, done) => {
		closing = true;
		if (receivers.get(node.id) === receiver) receivers.delete(node.id);
		// Wait for subscribing to finish, then delete this node's subscriptions: those it holds, and any found by
		// URL (created before a subscribing that failed part-way).
		registered
			.then(async () => {
				if (executor) await deleteSubscriptions(executor, subscriptionIds.splice(0), ownsUrl);
			})
			.catch((error: unknown) => node.warn(`Could not delete the event subscriptions: ${asChatMessagingError(error).message}`))
			.finally(() => {
				node.status({});
				done();
			});
	});
}
