/**
 * What the parts of one event node instance share (webhook.ts, polling.ts, outbox.ts, index.ts's close), and the
 * msg an event becomes: the event filters and human takeover (the core's deliveryStep; polling applies takeover
 * before storing its cursor), the attachments, the conversation.
 */
import {
	agentInputOf,
	burstInWrittenOrder,
	deliveryStep,
	HumanTakeover,
	type BurstEvent,
	type ChatEvent,
	type Executor,
} from '@chat-messaging/core';
import type { Node, NodeAPI, NodeMessage } from 'node-red';
import { asChatMessagingError, errorStatusText } from '../../shared/errors';
import { attachFiles } from './attachments';
import { withConversation } from './conversation';
import { Outbox, type OutboxEntry } from './outbox';
import type { EventNodeSettings } from './settings';
import { NodeStateStore } from './state';

export interface EventNodeInstance {
	RED: NodeAPI;
	node: Node;
	settings: EventNodeSettings;
	/** Polling cursors, held bursts and the outbox, kept across redeploys and restarts (state.ts). */
	store: NodeStateStore;
	outbox: Outbox;
	takeover: HumanTakeover;
	/** Burst batching's quiet time; 0: off. */
	burstMs: number;
	/** Set at start; kept for 'close' (the config node may already be closed by then: Node-RED closes nodes concurrently). */
	executor?: Executor;
	closing: boolean;
	/** One step at a time: the held bursts and the stored state are read and written by one step only. */
	serially(step: () => Promise<void>): Promise<void>;
	/** The chain `serially` builds; 'close' waits for it. */
	chain(): Promise<void>;
	/** Reports a failed start or poll in the node's status and log. */
	fail(error: unknown): void;
	/** The node is closing: it stops waiting for its flows to start. */
	stopWaiting(): void;
}

export function createInstance(RED: NodeAPI, node: Node, settings: EventNodeSettings): EventNodeInstance {
	const store = new NodeStateStore(RED.settings.userDir, node.id);
	const burstMs = settings.inbox.burstQuietSeconds * 1000;
	let chain: Promise<void> = Promise.resolve();
	// Node-RED creates a flow's nodes one by one: a msg sent before the nodes it is wired to exist is dropped.
	let started: () => void = () => undefined;
	const flowsStarted = new Promise<void>((resolve) => (started = resolve));
	const onFlowsStarted = () => started();
	RED.events.once('flows:started', onFlowsStarted);
	const instance: EventNodeInstance = {
		RED,
		node,
		settings,
		store,
		outbox: new Outbox({
			RED,
			node,
			store,
			closing: () => instance.closing,
			flowsStarted,
			prepare: (entry) => prepareMessage(instance, entry),
		}),
		takeover: new HumanTakeover(settings.inbox, Date.now),
		burstMs,
		closing: false,
		serially: (step) => (chain = chain.then(step, step)),
		chain: () => chain,
		stopWaiting() {
			RED.events.off('flows:started', onFlowsStarted);
			started();
		},
		fail(error) {
			const problem = asChatMessagingError(error);
			node.status({ fill: 'red', shape: 'ring', text: errorStatusText(problem) });
			node.error(`${settings.mode === 'polling' ? 'Could not poll for events' : 'Could not subscribe to events'}: ${problem.message}`);
		},
	};
	return instance;
}

/**
 * The msg for an event, or null when the filters or takeover drop it (the core's deliveryStep). A failed lookup does
 * not lose the event: it goes on with msg.filterError or msg.takeoverError, and the flow decides. With Download
 * Attachments, the files of an inbound message go along as `msg.attachments`; a failed download loses nothing. A
 * burst held from deliveries is put in the order its customer wrote it first (one read of the chat).
 */
async function prepareMessage(instance: EventNodeInstance, entry: OutboxEntry): Promise<NodeMessage | null> {
	const { executor, takeover, node, settings } = instance;
	const event = settings.mode === 'webhook' && executor ? await inWrittenOrder(instance, executor, entry.event) : entry.event;
	let extra: Record<string, unknown> = {};
	if (executor) {
		const step = await deliveryStep(executor, event, { filter: settings.filter, takeover: entry.takeoverChecked ? undefined : takeover });
		if (!step.passed) return null;
		const { filter, takeover: takeoverProblem } = step.problems;
		if (takeoverProblem !== undefined)
			node.warn(`Could not check whether a teammate handles chat ${String(event.chat_id)}: ${takeoverProblem}`);
		extra = {
			...(takeoverProblem !== undefined ? { takeoverError: takeoverProblem } : {}),
			...(filter !== undefined ? { filterError: filter } : {}),
		};
	}
	const msg: NodeMessage = { topic: event.event_type, payload: event, ...agentInputOf(event), ...extra };
	if (settings.downloadAttachments && executor) await attachFiles(executor, event, msg, (text) => node.warn(text));
	// A conversation that cannot be read fails the msg to Catch nodes (node.error with it): handed on, not sent.
	if (!(await withConversation(executor, event, msg, settings.conversation, (text, failed) => node.error(text, failed)))) return null;
	return msg;
}

/** A burst as written (the core's burstInWrittenOrder); when the chat cannot be read, as delivered, with a warning. */
async function inWrittenOrder(instance: EventNodeInstance, executor: Executor, event: ChatEvent): Promise<ChatEvent> {
	if (!Array.isArray((event as BurstEvent).messages)) return event;
	try {
		return await burstInWrittenOrder(executor, event as BurstEvent);
	} catch (error) {
		instance.node.warn(
			`Could not read chat ${String(event.chat_id)} to order its burst; its messages go out in the order they were delivered: ${asChatMessagingError(error).message}`,
		);
		return event;
	}
}
