/**
 * `chat-messaging-event`: emits one msg per event, received as webhook deliveries (Mode: Webhook, the
 * default, and what a flow saved before Mode existed runs) or found by polling (Mode: Polling: no public
 * URL, no subscription; the core's exactly-once cursor, stored per node as state.ts says). The inbox options
 * (human takeover, burst batching; packages/core/src/runtime/events/inbox.ts) apply in both modes.
 *
 * Webhook mode (webhook.ts):
 * Lifecycle: it serves POST `<httpNodeRoot>/chat-messaging/events/<node id>/<secret>` and holds one
 * subscription per chosen event type at `<publicUrl><that path>`. The secret is derived from the token
 * and the node id, so it is the same after every redeploy and restart: the subscriptions are reused
 * (syncSubscriptions re-points what needs it and deletes what is no longer chosen) and the service's
 * retries of deliveries that failed meanwhile still get in. A delivery that arrives while the node is
 * starting or stopping is answered 503, so the service retries it; none is acknowledged and dropped.
 * Only a node that is removed (deleted or disabled) deletes its subscriptions.
 * Catch-up: the service gives up on a delivery after three attempts, which a restart easily outlasts. So each
 * event taken on goes into the polling cursor of its type (state.ts), and every start reads what arrived
 * since then with the core's exactly-once cursor (the reading polling mode does) and hands it on the way a delivery
 * goes; the cursor's keys and the redelivery memory keep a delivery and the catch-up from both passing one event.
 * The first start of a node places the cursor at now. Event types a poll cannot read back (status changes and
 * the like) are not caught up.
 * Every event taken on (acknowledged, caught up, polled, released from a burst) waits in the outbox of the state
 * file until Node-RED delivered its msg; what a closing node still holds, its next instance hands on (outbox.ts).
 *
 * The service signs nothing (service notes), so the secret in the URL is what rejects forged calls.
 * Parsing, de-duplication keys, attachment downloads and subscription management are the core's
 * (packages/core/src/runtime/events/: delivery.ts, seenEvents.ts, subscriptions.ts);
 * what stays here is Node-RED's: the route and the secret in its path (receiver.ts), the config node's public URL.
 */
import { deleteSubscriptions, SeenEvents } from '@chat-messaging/core';
import type { Node, NodeAPI } from 'node-red';
import { asChatMessagingError } from '../../shared/errors';
import type { SavedNodeDef } from '../../shared/saved';
import { createInstance } from './instance';
import { migrateEvent } from './migrations';
import { startPollingMode } from './polling';
import { EVENT_ROUTE_PREFIX } from './receiver';
import { readEventNodeSettings } from './settings';
import { startWebhookMode } from './webhook';

export const EVENT_TYPE = 'chat-messaging-event';

/**
 * Redelivery memory per node id, kept across redeploys of the node (a new instance, the same memory)
 * for as long as this Node-RED runs.
 */
const seenByNode = new Map<string, SeenEvents>();

export function registerEventNode(RED: NodeAPI): void {
	RED.nodes.registerType(EVENT_TYPE, function (this: Node, definition: SavedNodeDef) {
		RED.nodes.createNode(this, definition);
		// A node saved before some of its settings existed gets them filled in first (migrations.ts).
		setUpEventNode(RED, this, migrateEvent(definition));
	});
}

function setUpEventNode(RED: NodeAPI, node: Node, definition: SavedNodeDef): void {
	const instance = createInstance(RED, node, readEventNodeSettings(definition));
	const { store, settings } = instance;
	let memory = seenByNode.get(node.id);
	const freshMemory = !memory;
	if (!memory) seenByNode.set(node.id, (memory = new SeenEvents()));
	if (!store.persistent && (settings.mode === 'polling' || instance.burstMs > 0)) {
		node.warn('Node-RED has no user directory: the polling cursor and held messages are kept in memory only, until Node-RED stops');
	}
	/** Every subscription of this node id, whatever public URL or secret it was made with. */
	const ownsUrl = (url: string) => url.includes(`${EVENT_ROUTE_PREFIX}/${encodeURIComponent(node.id)}/`);

	const webhook = settings.mode === 'webhook' ? startWebhookMode(instance, definition, memory, freshMemory, ownsUrl) : undefined;
	const polling = settings.mode === 'polling' ? startPollingMode(instance, definition, ownsUrl) : undefined;

	node.on('close', (removed: boolean, done: () => void) => {
		instance.closing = true;
		instance.stopWaiting();
		instance.outbox.closed();
		webhook?.stop();
		polling?.stop();
		// Stopped or redeployed: the subscriptions stay for the next start, which reuses them, and so does the
		// stored state (a poll under way finishes and stores its cursor first; what the outbox still holds goes to
		// the next instance, once every send under way knows whether Node-RED delivered it). Removed: wait for
		// subscribing to finish, then delete every subscription of this node (also those made before a subscribing
		// that failed part-way) and its stored state.
		Promise.resolve(webhook?.started)
			.then(() => polling?.current())
			.then(() => instance.chain().catch(() => undefined))
			.then(() => instance.outbox.settled())
			.then(async () => {
				if (!removed) return;
				seenByNode.delete(node.id);
				store.remove();
				if (instance.executor) await deleteSubscriptions(instance.executor, webhook?.subscriptionIds() ?? [], ownsUrl);
			})
			.catch((error: unknown) => node.warn(`Could not delete the event subscriptions: ${asChatMessagingError(error).message}`))
			.finally(() => {
				node.status({});
				done();
			});
	});
}
