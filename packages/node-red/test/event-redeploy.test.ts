/**
 * The event node closed by full deploys while deliveries arrive: every delivery it answers 2xx reaches the flow once.
 * The sandbox answers each API request late (`latencyMs`), so the event filters' and takeover's lookups are under way
 * when a deploy closes the node; the collector is a node type of its own, counting across its instances.
 */
import type { NodeAPI, NodeMessage } from 'node-red';
import { cursorsOf } from '../src/nodes/event/handed';
import { NodeStateStore } from '../src/nodes/event/state';
import {
	credentialsFor,
	eventNodeFlow,
	eventNodeTestHooks,
	helper,
	nodesUnderTest,
	sandboxCall,
	sandboxData,
	waitFor,
	type NodeHttp,
	type Sandbox,
} from './support';

let sbx: Sandbox;
let nodeHttp: NodeHttp;
eventNodeTestHooks(
	'redeploy-token',
	(sandbox, http) => {
		sbx = sandbox;
		nodeHttp = http;
	},
	{ latencyMs: 60 },
);

/** The uid of every msg that reached a collector, whichever instance of it. */
const reached: string[] = [];
function collectorNode(RED: NodeAPI): void {
	RED.nodes.registerType('collect-uids', function (this: any, definition: any) {
		RED.nodes.createNode(this, definition);
		this.on('input', (msg: NodeMessage) => reached.push(String((msg.payload as { message_uid: string }).message_uid)));
	});
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const VARIANTS: Array<[string, Record<string, unknown>]> = [
	['no options', {}],
	['event filters', { chatType: 'direct' }],
	['human takeover', { skipAssigned: true }],
	['event filters and human takeover', { chatType: 'direct', skipAssigned: true, teammateQuietMinutes: 5 }],
];

test.each(VARIANTS)(
	'deliveries arriving while full deploys close the node reach the flow once each (%s)',
	async (_name, options) => {
		reached.length = 0;
		const flow = eventNodeFlow(sbx, nodeHttp.url, { events: ['message:received:new'], ...options }).map((node) =>
			node.id === 'out' ? { ...node, type: 'collect-uids' } : node,
		);
		const credentials = credentialsFor(sbx.tokens[0]!);
		await helper.load([nodesUnderTest, collectorNode], flow, credentials);
		await waitFor('the subscription', async () => (await sandboxData(sbx, '/webhooks')).webhooks.length === 1);
		// A node's first start places its catch-up cursor at that moment; what the service gave up on before is not read back.
		await waitFor('the catch-up cursor', () => cursorsOf(new NodeStateStore(undefined, 'ev').load()).messageReceived !== undefined);

		const sent: string[] = [];
		const sender = (async () => {
			for (let index = 0; index < 40; index++) {
				// A new chat each time, so that takeover looks each one up (its answers are cached per chat).
				const phone = `+4915188${String(Date.now() % 100_000).padStart(5, '0')}${String(index).padStart(2, '0')}`;
				// The spec's shape carries no is_group: the chat type filter reads the chat.
				const answer = await sandboxCall(sbx, 'POST', '/_sandbox/incoming', { phone, text: `during deploys ${index}`, payload: 'spec' });
				sent.push(String(answer.body.data.message.uid));
				await pause(15);
			}
		})();
		const deploys = (async () => {
			for (let round = 0; round < 6; round++) {
				await pause(80);
				const previous = helper.getNode('ev');
				// The helper stops waiting for "flows started" after 300 ms under load; the deploy goes on: wait for the new node.
				await helper.setFlows(flow, 'full', credentials).catch(() => undefined);
				await waitFor('a new instance of the event node', () => helper.getNode('ev') !== previous && helper.getNode('ev') !== undefined, {
					timeoutMs: 10_000,
				});
			}
		})();
		await Promise.all([sender, deploys]);
		// Deliveries refused meanwhile are retried by the service or read by the last start's catch-up.
		await waitFor('every message in the flow', () => sent.every((uid) => reached.includes(uid)), { timeoutMs: 10_000 }).catch(
			() => undefined,
		);
		await pause(300);
		const lost = sent.filter((uid) => !reached.includes(uid));
		const twice = sent.filter((uid) => reached.filter((other) => other === uid).length > 1);
		expect({ lost, twice }).toEqual({ lost: [], twice: [] });
	},
	60_000,
);
