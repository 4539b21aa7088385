/**
 * Webhook mode of one event node instance (index.ts says how it lives across redeploys): the receiver that takes
 * deliveries on (receiver.ts serves the route), subscribing, the catch-up at start (handed.ts) and the release of
 * held bursts. Every event taken on is recorded as handed on and put in the outbox in one write of the state file;
 * the outbox hands it to the flow (outbox.ts).
 */
import {
	ChatMessagingError,
	checkReceiverUrl,
	deliveryAnswer,
	holdBursts,
	nextBurstRelease,
	pollSourceOf,
	readBurstState,
	receiverSecret,
	releaseBursts,
	syncSubscriptions,
	type BurstState,
	type ChatEvent,
	type Executor,
	type PollSource,
	type SeenEvents,
} from '@chat-messaging/core';
import { asChatMessagingError } from '../../shared/errors';
import { resolveConfig, type ConfigNode } from '../config';
import { HandedEvents } from './handed';
import type { EventNodeInstance } from './instance';
import { withQueued, type OutboxEntry } from './outbox';
import { receiversFor, subscriptionUrl, type EventReceiver } from './receiver';
import { checkEventSettings } from './settings';
import type { SavedNodeDef } from '../../shared/saved';

const PUBLIC_URL_HELP =
	'Set the Public URL of the Chat Messaging configuration node to an https address the internet reaches, for example through a ' +
	'tunnel such as cloudflared or ngrok to this Node-RED; to try the event node locally, point the configuration at the sandbox instead';

/** After a failed catch-up (the service unreachable at start), the next try. */
const CATCH_UP_RETRY_MS = 30_000;

export interface WebhookMode {
	/** Settles when subscribing (and the first catch-up) is over, however it ended. */
	started: Promise<void>;
	/** The ids of the subscriptions made (deleted when the node is removed). */
	subscriptionIds(): number[];
	/** The node is closing: no more timers, no more deliveries. */
	stop(): void;
}

export function startWebhookMode(
	instance: EventNodeInstance,
	definition: SavedNodeDef,
	memory: SeenEvents,
	freshMemory: boolean,
	ownsUrl: (url: string) => boolean,
): WebhookMode {
	const { RED, node, store, outbox, settings, burstMs } = instance;
	const { events } = settings;
	/** The poll sources that stand for the chosen event types, caught up at every start. */
	const catchUpSources = [...new Set(events.map((type) => pollSourceOf(type)).filter((source): source is PollSource => !!source))];
	const handed = new HandedEvents(store, catchUpSources);
	if (freshMemory) handed.rememberDelivered(memory);
	const deliverAll = (entries: OutboxEntry[]) => {
		for (const entry of entries) void outbox.deliver(entry).catch(instance.fail);
	};
	// What the node's previous instance (a redeploy) or process (a restart) took on and did not hand to the flow.
	const leftOver = outbox.left();

	let releaseTimer: ReturnType<typeof setTimeout> | undefined;
	/** Burst batching: releases the quiet bursts into the outbox, then waits for the next to become quiet. */
	const releaseQuietBursts = () =>
		instance.serially(async () => {
			releaseTimer = undefined;
			const state = store.load();
			const { state: burst, released } = releaseBursts(readBurstState(state.burst), Date.now(), burstMs);
			const queued = withQueued({ ...state, burst }, released);
			store.save(queued.state);
			for (const entry of queued.entries) await outbox.deliver(entry);
			scheduleRelease(burst);
		});
	const scheduleRelease = (burst: BurstState) => {
		if (releaseTimer) clearTimeout(releaseTimer);
		releaseTimer = undefined;
		const at = nextBurstRelease(burst, burstMs);
		if (at === undefined || instance.closing) return;
		releaseTimer = setTimeout(() => void releaseQuietBursts().catch(instance.fail), Math.max(0, at - Date.now()) + 20);
	};

	const receivers = receiversFor(RED.httpNode);
	const take = (event: ChatEvent) => {
		try {
			record(event);
		} catch (error) {
			// The service had its 2xx and will not send the event again: say so where the user looks.
			node.status({ fill: 'red', shape: 'ring', text: 'an event could not be stored' });
			node.error(
				`Event ${event.message_uid ?? event.event_type} was acknowledged but could not be stored, so it does not reach the flow: ${asChatMessagingError(error).message}`,
			);
		}
	};
	const record = (event: ChatEvent) => {
		// Recorded as handed on, and held or queued, in one write: from here on a close or a restart loses nothing.
		const state = handed.record(store.load(), event);
		if (burstMs <= 0) {
			const queued = withQueued(state, [event]);
			store.save(queued.state);
			return deliverAll(queued.entries);
		}
		const { state: burst, passThrough } = holdBursts(readBurstState(state.burst), [event], Date.now(), 'arrival');
		const queued = withQueued({ ...state, burst }, passThrough);
		store.save(queued.state);
		for (const entry of queued.entries) void instance.serially(() => outbox.deliver(entry)).catch(instance.fail);
		scheduleRelease(burst);
	};
	const receiver: EventReceiver = {
		accepting: () => !instance.closing,
		// The chosen types and the redelivery memory (deliveryStep.ts); the catch-up's events pass the same way.
		answer: (event) => deliveryAnswer(event, { chosen: events, seen: memory }),
		take,
	};
	/** An event the catch-up read, taken on as a delivery is. */
	const receive = (event: ChatEvent) =>
		void receiver.answer(event).then(({ taken }) => {
			if (taken) take(event);
		}, instance.fail);
	receivers.set(node.id, receiver);

	let catchUpTimer: ReturnType<typeof setTimeout> | undefined;
	/** The catch-up (handed.ts); a failure is retried while the node runs. */
	const catchUp = async (poller: Executor): Promise<void> => {
		try {
			await handed.catchUp(poller, () => instance.closing, receive);
		} catch (error) {
			node.warn(
				`Could not catch up on the events that arrived while stopped (retrying in ${CATCH_UP_RETRY_MS / 1000} s): ${asChatMessagingError(error).message}`,
			);
			if (!instance.closing) catchUpTimer = setTimeout(() => void catchUp(poller), CATCH_UP_RETRY_MS);
		}
	};

	let subscriptionIds: number[] = [];
	const subscribe = async () => {
		checkEventSettings(settings);
		const config: ConfigNode = resolveConfig(RED, definition.config);
		if (!config.publicUrl) {
			throw new ChatMessagingError('publicUrl: set the public URL the service can reach this Node-RED at in the configuration node', {
				kind: 'input',
				field: 'publicUrl',
			});
		}
		const executor = (instance.executor = config.getExecutor());
		const prefix = subscriptionUrl(config.publicUrl, RED.settings.httpNodeRoot, node.id);
		checkReceiverUrl(executor.baseUrl, prefix, PUBLIC_URL_HELP, 'publicUrl');
		deliverAll(leftOver.splice(0));
		const secretText = receiverSecret(String(config.credentials?.token ?? ''), `node-red event node ${node.id}`);
		receiver.secret = Buffer.from(secretText);
		node.status({ fill: 'yellow', shape: 'ring', text: 'subscribing' });
		const url = subscriptionUrl(config.publicUrl, RED.settings.httpNodeRoot, node.id, secretText);
		subscriptionIds = await syncSubscriptions(executor, { ownsUrl, url, events });
		if (instance.closing) return;
		node.status({ fill: 'green', shape: 'dot', text: `listening: ${events.length} event type${events.length === 1 ? '' : 's'}` });
		// Bursts held before a restart or redeploy are released when their quiet time is up.
		if (burstMs > 0) scheduleRelease(readBurstState(store.load().burst));
		await catchUp(executor);
	};
	return {
		started: subscribe().catch(instance.fail),
		subscriptionIds: () => subscriptionIds.splice(0),
		stop() {
			if (releaseTimer) clearTimeout(releaseTimer);
			if (catchUpTimer) clearTimeout(catchUpTimer);
			if (receivers.get(node.id) === receiver) receivers.delete(node.id);
		},
	};
}
