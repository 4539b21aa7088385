/**
 * `chat-messaging-event`: emits one msg per event, received as webhook deliveries (Mode: Webhook, the
 * default, and what a flow saved before Mode existed runs) or found by polling (Mode: Polling: no public
 * URL, no subscription; the core's exactly-once cursor, stored per node as state.ts says). The inbox options
 * (human takeover, burst batching; packages/core/src/runtime/inbox.ts) apply in both modes.
 *
 * Webhook mode:
 * Lifecycle: it serves POST `<httpNodeRoot>/chat-messaging/events/<node id>/<secret>` and holds one
 * subscription per chosen event type at `<publicUrl><that path>`. The secret is derived from the token
 * and the node id, so it is the same after every redeploy and restart: the subscriptions are reused
 * (syncSubscriptions re-points what needs it and deletes what is no longer chosen) and the service's
 * retries of deliveries that failed meanwhile still get in. A delivery that arrives while the node is
 * starting or stopping is answered 503, so the service retries it; none is acknowledged and dropped.
 * Only a node that is removed (deleted or disabled) deletes its subscriptions.
 * Catch-up: the service gives up on a delivery after three attempts, which a restart easily outlasts. So each
 * event handed to the flow goes into the polling cursor of its type (state.ts), and every start reads what arrived
 * since then with the core's exactly-once cursor (the reading polling mode does) and hands it on the way a delivery
 * goes; the cursor's keys and the redelivery memory keep a delivery and the catch-up from both passing one event.
 * The first start of a node places the cursor at now. Event types a poll cannot read back (status changes and
 * the like) are not caught up.
 *
 * The service signs nothing (service notes), so the secret in the URL is what rejects forged calls.
 * Parsing, de-duplication keys, attachment downloads and subscription management are packages/core/src/runtime/events.ts;
 * what stays here is Node-RED's: the route and the secret in its path (receiver.ts), the config node's public URL.
 */
import {
	ChatMessagingError,
	checkReceiverUrl,
	deleteSubscriptions,
	EVENT_TYPES,
	eventKey,
	holdBursts,
	HumanTakeover,
	INBOX_OFF,
	nextBurstRelease,
	pollSourceOf,
	readBurstState,
	readInboxOptions,
	receiverSecret,
	releaseBursts,
	SeenEvents,
	syncSubscriptions,
	type BurstState,
	type ChatEvent,
	type Executor,
	type InboxOptions,
	type PollSource,
} from '@chat-messaging/core';
import { asChatMessagingError, errorStatusText } from '../../shared/errors';
import type { Node, NodeAPI, NodeMessage } from 'node-red';
import type { SavedNodeDef } from '../../shared/saved';
import { resolveConfig, type ConfigNode } from '../config';
import { EVENT_ROUTE_PREFIX, receiversFor, subscriptionUrl, type EventReceiver } from './receiver';
import { DEFAULT_EVENT_MODE, DEFAULT_POLL_SECONDS, eventFilterGate, readEventMode, readPollSeconds, type EventMode } from './settings';
import { attachFiles } from './attachments';
import { CONVERSATION_OFF, readConversationSetting, withConversation } from './conversation';
import { HandedEvents } from './handed';
import { migrateEvent } from './migrations';
import { pollStep } from './polling';
import { NodeStateStore } from './state';

export const EVENT_TYPE = 'chat-messaging-event';
const PUBLIC_URL_HELP =
	'Set the Public URL of the Chat Messaging configuration node to an https address the internet reaches, for example through a ' +
	'tunnel such as cloudflared or ngrok to this Node-RED; to try the event node locally, point the configuration at the sandbox instead';

const SUPPORTED_EVENTS = new Set(EVENT_TYPES.map((option) => option.value));
/** After a failed catch-up (the service unreachable at start), the next try. */
const CATCH_UP_RETRY_MS = 30_000;

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
	const events = (Array.isArray(definition.events) ? definition.events : [definition.events])
		.map((value) => String(value ?? '').trim())
		.filter((value, index, all) => value !== '' && all.indexOf(value) === index);
	const downloadAttachments = definition.downloadAttachments === true || definition.downloadAttachments === 'true';
	let seen = seenByNode.get(node.id);
	const freshMemory = !seen;
	if (!seen) {
		seen = new SeenEvents();
		seenByNode.set(node.id, seen);
	}
	const memory = seen;
	/** Webhook mode: the poll sources that stand for the chosen event types, caught up at every start. */
	const catchUpSources = [...new Set(events.map((type) => pollSourceOf(type)).filter((source): source is PollSource => !!source))];
	let subscriptionIds: number[] = [];
	let closing = false;
	// Kept for 'close': the config node may already be closed by then (Node-RED closes nodes concurrently).
	let executor: Executor | undefined;
	/** Every subscription of this node id, whatever public URL or secret it was made with. */
	const ownsUrl = (url: string) => url.includes(`${EVENT_ROUTE_PREFIX}/${encodeURIComponent(node.id)}/`);

	// Until the settings are read (a wrong one is reported at start): webhook mode, every inbox option off.
	let mode: EventMode = DEFAULT_EVENT_MODE;
	let pollSeconds = DEFAULT_POLL_SECONDS;
	let inbox: InboxOptions = INBOX_OFF;
	let passesFilter = eventFilterGate({});
	let conversation = CONVERSATION_OFF;
	let settingsProblem: unknown;
	try {
		mode = readEventMode(definition.mode);
		pollSeconds = readPollSeconds(definition.pollSeconds);
		inbox = readInboxOptions(definition);
		passesFilter = eventFilterGate(definition);
		conversation = readConversationSetting(definition);
	} catch (error) {
		settingsProblem = error;
	}
	const takeover = new HumanTakeover(inbox, Date.now);
	const burstMs = inbox.burstQuietSeconds * 1000;
	// Polling cursors and held bursts, kept across redeploys and restarts (state.ts says where and why).
	const store = new NodeStateStore(RED.settings.userDir, node.id);
	const needsStore = mode === 'polling' || burstMs > 0;
	if (needsStore && !store.persistent) {
		node.warn('Node-RED has no user directory: the polling cursor and held messages are kept in memory only, until Node-RED stops');
	}
	const handed = new HandedEvents(store, catchUpSources);
	if (freshMemory && mode === 'webhook') handed.rememberDelivered(memory);

	/** With Download Attachments, the files of an inbound message go along as `msg.attachments`; a failed download loses nothing. */
	const emit = async (event: ChatEvent, extra: Record<string, unknown> = {}) => {
		const verdict = await passesFilter(executor, event);
		if (!verdict) return;
		const msg: NodeMessage = { topic: event.event_type, payload: event, ...extra, ...verdict };
		if (downloadAttachments && executor) await attachFiles(executor, event, msg, (text) => node.warn(text));
		if (!(await withConversation(executor, event, msg, conversation, (text, failed) => node.error(text, failed)))) return;
		node.send(msg);
	};

	/** One step at a time: the held bursts and the stored state are read and written by one step only. */
	let chain: Promise<void> = Promise.resolve();
	const serially = (step: () => Promise<void>): Promise<void> => (chain = chain.then(step, step));

	// Webhook mode: events already answered 200 go through human takeover; a failed lookup does not lose the
	// event: it is emitted with msg.takeoverError, and the flow decides.
	const emitUnlessTakenOver = async (event: ChatEvent) => {
		if (!executor || takeover.off) return void (await emit(event));
		let reason;
		try {
			reason = await takeover.skipReason(executor, event);
		} catch (error) {
			const problem = asChatMessagingError(error).message;
			node.warn(`Could not check whether a teammate handles chat ${String(event.chat_id)}: ${problem}`);
			return void (await emit(event, { takeoverError: problem }));
		}
		if (reason === undefined) await emit(event);
	};

	let releaseTimer: ReturnType<typeof setTimeout> | undefined;
	/** Webhook mode with burst batching: releases the quiet bursts, then waits for the next to become quiet. */
	const releaseQuietBursts = () =>
		serially(async () => {
			releaseTimer = undefined;
			const state = store.load();
			const { state: burst, released } = releaseBursts(readBurstState(state.burst), Date.now(), burstMs);
			store.save({ ...state, burst });
			for (const event of released) await emitUnlessTakenOver(event);
			scheduleRelease(burst);
		});
	const scheduleRelease = (burst: BurstState) => {
		if (releaseTimer) clearTimeout(releaseTimer);
		releaseTimer = undefined;
		const at = nextBurstRelease(burst, burstMs);
		if (at === undefined || closing) return;
		releaseTimer = setTimeout(() => void releaseQuietBursts().catch(fail), Math.max(0, at - Date.now()) + 20);
	};

	const receivers = receiversFor(RED.httpNode);
	const receiver: EventReceiver = {
		accepting: () => !closing,
		receive(event) {
			if (!events.includes(event.event_type)) return;
			const key = eventKey(event);
			if (key !== undefined && !memory.remember(key)) return; // a redelivery of an event already emitted
			handed.record(event);
			if (burstMs <= 0) return void emitUnlessTakenOver(event);
			// Held in the state file before anything else happens: a restart from here on loses nothing.
			const state = store.load();
			const { state: burst, passThrough } = holdBursts(readBurstState(state.burst), [event], Date.now(), 'arrival');
			store.save({ ...state, burst });
			for (const other of passThrough) void serially(() => emitUnlessTakenOver(other)).catch(fail);
			scheduleRelease(burst);
		},
	};
	if (mode === 'webhook') receivers.set(node.id, receiver);

	const fail = (error: unknown) => {
		const problem = asChatMessagingError(error);
		node.status({ fill: 'red', shape: 'ring', text: errorStatusText(problem) });
		node.error(`${mode === 'polling' ? 'Could not poll for events' : 'Could not subscribe to events'}: ${problem.message}`);
	};

	const checkEvents = () => {
		if (settingsProblem) throw settingsProblem;
		const unknown = events.filter((type) => !SUPPORTED_EVENTS.has(type));
		if (events.length === 0) throw new ChatMessagingError('events: choose at least one event type', { kind: 'input', field: 'events' });
		if (unknown.length)
			throw new ChatMessagingError(`events: unknown event type ${unknown.join(', ')}`, { kind: 'input', field: 'events' });
	};

	const register = async () => {
		checkEvents();
		const config: ConfigNode = resolveConfig(RED, definition.config);
		if (!config.publicUrl) {
			throw new ChatMessagingError('publicUrl: set the public URL the service can reach this Node-RED at in the configuration node', {
				kind: 'input',
				field: 'publicUrl',
			});
		}
		executor = config.getExecutor();
		const prefix = subscriptionUrl(config.publicUrl, RED.settings.httpNodeRoot, node.id);
		checkReceiverUrl(executor.baseUrl, prefix, PUBLIC_URL_HELP, 'publicUrl');
		const secretText = receiverSecret(String(config.credentials?.token ?? ''), `node-red event node ${node.id}`);
		receiver.secret = Buffer.from(secretText);
		node.status({ fill: 'yellow', shape: 'ring', text: 'subscribing' });
		const url = subscriptionUrl(config.publicUrl, RED.settings.httpNodeRoot, node.id, secretText);
		subscriptionIds = await syncSubscriptions(executor, { ownsUrl, url, events });
		if (closing) return;
		node.status({ fill: 'green', shape: 'dot', text: `listening: ${events.length} event type${events.length === 1 ? '' : 's'}` });
		// Bursts held before a restart or redeploy are released when their quiet time is up.
		if (burstMs > 0) scheduleRelease(readBurstState(store.load().burst));
		await catchUp(executor);
	};

	let catchUpTimer: ReturnType<typeof setTimeout> | undefined;
	/** The catch-up of webhook mode (handed.ts); a failure is retried while the node runs. */
	const catchUp = async (poller: Executor): Promise<void> => {
		try {
			await handed.catchUp(
				poller,
				() => closing,
				(event) => receiver.receive(event),
			);
		} catch (error) {
			node.warn(
				`Could not catch up on the events that arrived while stopped (retrying in ${CATCH_UP_RETRY_MS / 1000} s): ${asChatMessagingError(error).message}`,
			);
			if (!closing) catchUpTimer = setTimeout(() => void catchUp(poller), CATCH_UP_RETRY_MS);
		}
	};

	// Polling mode: no public URL, no subscription; the core's exactly-once cursor per event type, stored
	// with the held bursts before anything is emitted, so a restart or redeploy neither repeats nor loses one.
	let pollTimer: ReturnType<typeof setTimeout> | undefined;
	let polling: Promise<void> = Promise.resolve();
	const pollOnce = (poller: Executor) => pollStep(poller, { store, events, burstMs, takeover }, emit);
	const startPolling = async () => {
		checkEvents();
		const config: ConfigNode = resolveConfig(RED, definition.config);
		const poller = config.getExecutor();
		executor = poller;
		// Subscriptions this node made in webhook mode would keep posting to a route no longer served.
		await deleteSubscriptions(poller, [], ownsUrl).catch((error: unknown) =>
			node.warn(`Could not delete the webhook subscriptions of webhook mode: ${asChatMessagingError(error).message}`),
		);
		const label = `polling every ${pollSeconds} s`;
		const loop = () => {
			if (closing) return;
			polling = serially(() => pollOnce(poller)).then(
				() => node.status({ fill: 'green', shape: 'dot', text: label }),
				(error: unknown) => fail(error),
			);
			void polling.then(() => {
				if (!closing) pollTimer = setTimeout(loop, pollSeconds * 1000);
			});
		};
		node.status({ fill: 'green', shape: 'dot', text: label });
		loop();
	};

	const registered = (mode === 'polling' ? startPolling() : register()).catch(fail);

	node.on('close', (removed: boolean, done: () => void) => {
		closing = true;
		if (pollTimer) clearTimeout(pollTimer);
		if (releaseTimer) clearTimeout(releaseTimer);
		if (catchUpTimer) clearTimeout(catchUpTimer);
		if (receivers.get(node.id) === receiver) receivers.delete(node.id);
		// Stopped or redeployed: the subscriptions stay for the next start, which reuses them, and so does the
		// stored state (a poll under way finishes and stores its cursor first). Removed: wait for subscribing
		// to finish, then delete every subscription of this node (also those made before a subscribing that
		// failed part-way) and its stored state.
		registered
			.then(() => polling)
			.then(() => chain.catch(() => undefined))
			.then(async () => {
				if (!removed) return;
				seenByNode.delete(node.id);
				store.remove();
				if (executor) await deleteSubscriptions(executor, subscriptionIds.splice(0), ownsUrl);
			})
			.catch((error: unknown) => node.warn(`Could not delete the event subscriptions: ${asChatMessagingError(error).message}`))
			.finally(() => {
				node.status({});
				done();
			});
	});
}
