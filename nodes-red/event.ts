/**
 * `chat-messaging-event`: receives the service's webhook deliveries and emits one msg per event.
 *
 * Lifecycle: on start it picks a random secret, serves POST
 * `<httpNodeRoot>/chat-messaging/events/<node id>/<secret>`, deletes subscriptions left behind by an
 * earlier run of this node (same path prefix: a crash or a kill skips 'close'), then subscribes once
 * per chosen event type at `<publicUrl><that path>`. On close it deletes its subscriptions before
 * reporting done, so redeploys never leave orphans.
 *
 * The service signs nothing (service notes), so the secret in the URL is what rejects forged calls.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { ChatMessagingError, EVENT_TYPES, type Executor } from '../api';
import { resolveConfig, type ConfigNode } from './config';
import { asChatMessagingError, errorStatusText } from './errors';
import type { HttpApp, HttpRequest, HttpResponse, NodeAPI, NodeDefinition, NodeInstance, NodeMessage } from './types';

export const EVENT_TYPE = 'chat-messaging-event';
export const EVENT_ROUTE_PREFIX = '/chat-messaging/events';
/** Ids remembered for de-duplication; the service redelivers within seconds, so the newest 1000 suffice. */
export const SEEN_EVENTS_LIMIT = 1000;
const MAX_BODY_BYTES = 1024 * 1024;

const SUPPORTED_EVENTS = new Set(EVENT_TYPES.map((option) => option.value));

export interface EventPayload {
	event_type: string;
	chat_id?: number | string;
	chat_name?: string;
	text?: string;
	message_uid?: string;
	unattended?: boolean;
	raw: Record<string, unknown>;
}

interface EventReceiver {
	secret: Buffer;
	receive(payload: EventPayload): void;
}

const isRecord = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);
const firstDefined = (...values: unknown[]): unknown => values.find((value) => value !== undefined && value !== null);

/**
 * Flattens both delivery shapes: the spec's `{event_type, data: {chat_id, chat_name, text, message_uid,
 * unattended_customer}}` and the live service's `{event_type, chat: {chat_id, full_name}, message: {text, message_uid}}`.
 * Returns undefined for a body that is not an event.
 */
export function normalizeEvent(body: unknown): EventPayload | undefined {
	if (!isRecord(body) || typeof body.event_type !== 'string' || !body.event_type) return undefined;
	const data = isRecord(body.data) ? body.data : {};
	const chat = isRecord(body.chat) ? body.chat : isRecord(data.chat) ? data.chat : {};
	const message = isRecord(body.message) ? body.message : isRecord(data.message) ? data.message : {};
	const payload: EventPayload = { event_type: body.event_type, raw: body };
	const chatId = firstDefined(data.chat_id, chat.chat_id, chat.id, message.chat_id);
	if (typeof chatId === 'number' || typeof chatId === 'string') payload.chat_id = chatId;
	const chatName = firstDefined(data.chat_name, chat.full_name, chat.name);
	if (typeof chatName === 'string') payload.chat_name = chatName;
	const text = firstDefined(data.text, message.text);
	if (typeof text === 'string') payload.text = text;
	const messageUid = firstDefined(data.message_uid, message.message_uid, message.uid);
	if (typeof messageUid === 'string') payload.message_uid = messageUid;
	const unattended = firstDefined(data.unattended_customer, data.unattended, chat.unattended_customer, chat.unattended, body.unattended_customer);
	if (typeof unattended === 'boolean') payload.unattended = unattended;
	return payload;
}

/** What makes two deliveries the same event: the message for message events, the chat for chat:created. */
export function dedupKey(event: EventPayload): string | undefined {
	const data = isRecord(event.raw.data) ? event.raw.data : {};
	const subject = event.event_type === 'chat:created' ? event.chat_id : firstDefined(event.message_uid, data.event_id);
	return subject === undefined ? undefined : `${event.event_type}|${String(subject)}`;
}

/** Remembers the newest `limit` keys; `add` answers whether the key is new. */
export class SeenSet {
	private readonly keys = new Set<string>();
	constructor(private readonly limit: number) {}
	add(key: string): boolean {
		if (this.keys.has(key)) return false;
		this.keys.add(key);
		if (this.keys.size > this.limit) this.keys.delete(this.keys.values().next().value as string);
		return true;
	}
	get size(): number {
		return this.keys.size;
	}
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
				const event = normalizeEvent(body);
				if (!event) return answer(res, 400, { status: 'error', message: 'Expected a JSON object with an event_type' });
				// Answer first: the service wants a 2xx within 5 seconds, whatever the flow does next.
				answer(res, 200, { status: 'ok' });
				receiver.receive(event);
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
	const seen = new SeenSet(SEEN_EVENTS_LIMIT);
	const subscriptionIds: number[] = [];
	let closing = false;
	// Kept for 'close': the config node may already be closed by then (Node-RED closes nodes concurrently).
	let executor: Executor | undefined;

	const receivers = receiversFor(RED.httpNode);
	const receiver: EventReceiver = {
		secret: Buffer.from(secretText),
		receive(event) {
			if (closing || !events.includes(event.event_type)) return;
			const key = dedupKey(event);
			if (key !== undefined && !seen.add(key)) return; // a redelivery of an event already emitted
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

	/** Deletes one subscription; one already gone (deleted by hand, or by a concurrent clean-up) is fine. */
	const remove = async (client: Executor, id: unknown) => {
		try {
			await client.run('webhook:delete', { id });
		} catch (error) {
			if (!(error instanceof ChatMessagingError && error.httpStatus === 404)) throw error;
		}
	};

	const register = async () => {
		const unknown = events.filter((type) => !SUPPORTED_EVENTS.has(type));
		if (events.length === 0) throw new ChatMessagingError('events: choose at least one event type', { kind: 'input', field: 'events' });
		if (unknown.length) throw new ChatMessagingError(`events: unknown event type ${unknown.join(', ')}`, { kind: 'input', field: 'events' });
		const config: ConfigNode = resolveConfig(RED, definition.config);
		if (!/^https?:\/\/\S+$/i.test(config.publicUrl)) {
			throw new ChatMessagingError('publicUrl: set the public URL the service can reach this Node-RED at in the configuration node', { kind: 'input', field: 'publicUrl' });
		}
		executor = config.getExecutor();
		node.status({ fill: 'yellow', shape: 'ring', text: 'subscribing' });
		const prefix = subscriptionUrl(config.publicUrl, RED.settings.httpNodeRoot, node.id);
		const existing = await executor.run('webhook:getAll', {});
		for (const hook of Array.isArray(existing) ? existing : []) {
			if (isRecord(hook) && typeof hook.url === 'string' && hook.url.startsWith(prefix)) await remove(executor, hook.id);
		}
		const url = subscriptionUrl(config.publicUrl, RED.settings.httpNodeRoot, node.id, secretText);
		for (const eventType of events) {
			if (closing) return;
			const created = (await executor.run('webhook:create', { event_type: eventType, url, enabled: true })) as Record<string, unknown>;
			subscriptionIds.push(Number(created.id));
		}
		node.status({ fill: 'green', shape: 'dot', text: `listening: ${events.length} event type${events.length === 1 ? '' : 's'}` });
	};
	const registered = register().catch(fail);

	node.on('close', (_removed, done) => {
		closing = true;
		if (receivers.get(node.id) === receiver) receivers.delete(node.id);
		// Wait for a subscription still being created, then delete everything this run created.
		registered
			.then(async () => {
				if (subscriptionIds.length === 0 || !executor) return;
				for (const id of subscriptionIds.splice(0)) await remove(executor, id);
			})
			.catch((error: unknown) => node.warn(`Could not delete the event subscriptions: ${asChatMessagingError(error).message}`))
			.finally(() => {
				node.status({});
				done();
			});
	});
}
