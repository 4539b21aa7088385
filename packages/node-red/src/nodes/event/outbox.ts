/**
 * The events a node has taken on and not yet handed to the flow: a delivery answered 2xx, an event a catch-up or a
 * poll read (its cursor stored), a burst released. They go into the node's state file (state.ts) in the same write
 * that records them as handed on (the cursor, the held bursts), and leave it only once Node-RED delivered their msg
 * to the wired nodes, or the filters or takeover dropped them.
 *
 * Why: between taking an event on and `send` lie awaits (the event filters' and takeover's lookups, attachment
 * downloads), and after `send` Node-RED delivers on a later turn (setImmediate). A full deploy or a stop that closes
 * the node or the nodes it is wired to in between drops the msg, and neither the service (it had its 2xx) nor the
 * catch-up (the cursor says handed on) would bring it back. What a closing node still holds stays here and the next
 * instance of the node (a redeploy, a restart) hands it on first; the redelivery memory and the cursor keep it from
 * being taken on twice.
 */
import type { ChatEvent } from '@chat-messaging/core';
import type { Node, NodeAPI, NodeMessage } from 'node-red';
import { asChatMessagingError } from '../../shared/errors';
import type { NodeStateStore } from './state';

export interface OutboxEntry {
	id: string;
	event: ChatEvent;
	/** Human takeover was already applied (polling applies it before it stores the cursor). */
	takeoverChecked?: boolean;
}

const isEntry = (value: unknown): value is OutboxEntry =>
	!!value && typeof value === 'object' && typeof (value as OutboxEntry).id === 'string' && !!(value as OutboxEntry).event;

export const outboxOf = (state: Record<string, unknown>): OutboxEntry[] =>
	Array.isArray(state.outbox) ? state.outbox.filter(isEntry) : [];

let lastId = 0;
const nextId = () => `${Date.now().toString(36)}.${process.pid}.${(lastId = (lastId + 1) % 1e9)}`;

/** `state` with `events` added to its outbox (to be saved by the caller, with what records them), and the entries. */
export function withQueued(
	state: Record<string, unknown>,
	events: readonly ChatEvent[],
	options: { takeoverChecked?: boolean } = {},
): { state: Record<string, unknown>; entries: OutboxEntry[] } {
	const entries = events.map((event) => ({ id: nextId(), event, ...(options.takeoverChecked ? { takeoverChecked: true } : {}) }));
	return { state: entries.length ? { ...state, outbox: [...outboxOf(state), ...entries] } : state, entries };
}

/** A msg sent: whether Node-RED's delivery turn has begun, and whether the node closed once it had. */
interface Sending {
	turnBegun: boolean;
	closedInTurn: boolean;
}

/** What the outbox needs of its node. */
export interface OutboxNode {
	RED: NodeAPI;
	node: Node;
	store: NodeStateStore;
	closing(): boolean;
	/** Settles once Node-RED started the flows the node is in: before, the nodes it is wired to may not exist yet. */
	flowsStarted: Promise<void>;
	/** The msg for the entry, or null when the filters or takeover drop it. */
	prepare(entry: OutboxEntry): Promise<NodeMessage | null>;
}

/** Hands outbox entries to the flow and takes them out once delivered. */
export class Outbox {
	/** Sends whose delivery is not yet known; the node's close waits for them, so the next instance reads the outcome. */
	private readonly confirming = new Set<Promise<void>>();

	private readonly sending = new Set<Sending>();

	constructor(private readonly owner: OutboxNode) {}

	/** The entries a node closed with (read when the node is created, before it takes anything on). */
	left(): OutboxEntry[] {
		return outboxOf(this.owner.store.load());
	}

	private remove(id: string): void {
		const state = this.owner.store.load();
		this.owner.store.save({ ...state, outbox: outboxOf(state).filter((entry) => entry.id !== id) });
	}

	/** The nodes wired to the output, as they run now (Node-RED resolves them the same way when it routes a msg). */
	private targets(): Array<[string, unknown]> {
		const wires = (this.owner.node as unknown as { wires?: unknown[][] }).wires ?? [];
		return wires.flat().map((id) => [String(id), this.owner.RED.nodes.getNode(String(id))]);
	}

	/**
	 * Prepares the entry and sends it, unless the node is closing: then it stays for the next instance. Node-RED
	 * delivers a msg on a later turn (setImmediate, queued by `send`) and drops it when the node it is wired to was
	 * stopped before; one turn queued just before that one and one just after tell whether the node closed before
	 * the delivery (the msg stays for the next instance) or after it, or whether the wired nodes still run (a deploy
	 * of changed nodes only, or none: the msg was delivered).
	 */
	async deliver(entry: OutboxEntry): Promise<void> {
		const { node, closing } = this.owner;
		let msg: NodeMessage | null;
		try {
			await this.owner.flowsStarted;
			msg = await this.owner.prepare(entry);
		} catch (error) {
			if (closing()) return;
			node.error(
				`Could not hand event ${entry.event.message_uid ?? entry.event.event_type} to the flow: ${asChatMessagingError(error).message}`,
			);
			return this.remove(entry.id);
		}
		if (closing()) return;
		if (msg === null) return this.remove(entry.id);
		const sending: Sending = { turnBegun: false, closedInTurn: false };
		this.sending.add(sending);
		setImmediate(() => (sending.turnBegun = true));
		const targets = this.targets();
		node.send(msg);
		const confirmed = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
			this.sending.delete(sending);
			const stillRunning = () => targets.every(([id, target]) => this.owner.RED.nodes.getNode(id) === target);
			if (!closing() || sending.closedInTurn || stillRunning()) this.remove(entry.id);
		});
		this.confirming.add(confirmed);
		await confirmed.finally(() => this.confirming.delete(confirmed));
	}

	/** Called as the node closes: which sends under way had their delivery turn begun. */
	closed(): void {
		for (const sending of this.sending) sending.closedInTurn = sending.turnBegun;
	}

	/** Resolves once every send under way knows whether it was delivered. */
	async settled(): Promise<void> {
		while (this.confirming.size) await Promise.all([...this.confirming]);
	}
}
