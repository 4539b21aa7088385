/**
 * Event intake: 2,000 webhook deliveries, 30 % of them redeliveries of an event already delivered, posted over HTTP
 * four at a time (the service delivers concurrently) into
 *  - the n8n trigger's webhook() (the built node, behind a node:http server as n8n's webhook server calls it),
 *  - the Node-RED event node in a running Node-RED (its route on RED.httpNode, subscribed through the sandbox),
 *  - a bare node:http receiver that parses the JSON, remembers uids in a Set and answers 200.
 * Every receiver must emit each unique event exactly once. Reports acknowledgement p50 / p99 (request sent → answer
 * read), receivers interleaved block by block.
 */
import { createServer } from 'node:http';
import { startSandbox } from '@chat-messaging/sandbox';
import { Collector, helper, nodesUnderTest, startNodeHttp } from '../packages/node-red/test/support';
import { check, percentile, printTable, record, sleep, target, type Row } from './lib';
import { builtTrigger, listen, readJson, serveN8nTrigger } from './trigger-receiver';

const trigger = builtTrigger();

const DELIVERIES = 2_000;
const DUPLICATE_SHARE = 0.3;
const CONCURRENCY = 4;
const BLOCK = 100;
const EVENT = 'message:received:new';

interface Delivery {
	uid: string;
	body: string;
}

/** Unique events with redeliveries mixed in shortly after their first delivery (seeded, the same every run). */
function deliveries(): { list: Delivery[]; unique: Set<string> } {
	let state = 12345;
	const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
	const list: Delivery[] = [];
	const unique = new Set<string>();
	const duplicates = Math.round(DELIVERIES * DUPLICATE_SHARE);
	const uniqueCount = DELIVERIES - duplicates;
	for (let i = 0; list.length < DELIVERIES; i++) {
		if (i < uniqueCount) {
			const uid = `m_bench_${i.toString().padStart(6, '0')}`;
			unique.add(uid);
			const body = JSON.stringify({
				event_type: EVENT,
				data: { chat_id: 1000 + (i % 50), chat_name: `Chat ${i % 50}`, text: `inbound ${i}`, message_uid: uid, unattended_customer: true },
			});
			list.push({ uid, body });
		}
		// Redeliveries of recent events, spread so that they make up DUPLICATE_SHARE of the whole.
		const owed = Math.round(((i + 1) / uniqueCount) * duplicates) - (list.length - Math.min(i + 1, uniqueCount));
		for (let d = 0; d < owed && list.length < DELIVERIES; d++) list.push(list[Math.max(0, list.length - 1 - Math.floor(random() * 40))]!);
	}
	return { list, unique };
}

interface Receiver {
	label: string;
	url: string;
	/** uids of the events it emitted, in order, duplicates included. */
	emitted: string[];
	acks: number[];
	stop(): Promise<void>;
}

async function bareReceiver(): Promise<Receiver> {
	const seen = new Set<string>();
	const emitted: string[] = [];
	const server = createServer((request, response) => {
		void readJson(request).then((body) => {
			const uid = String((body as { data: { message_uid: string } }).data.message_uid);
			if (!seen.has(uid)) {
				seen.add(uid);
				emitted.push(uid);
			}
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end('{"status":"ok"}');
		});
	});
	const url = await listen(server);
	return {
		label: 'bare node:http receiver',
		url: `${url}/hook`,
		emitted,
		acks: [],
		stop: () => new Promise((resolve) => server.close(() => resolve())),
	};
}

/** The trigger's webhook() behind node:http, with the context n8n gives it (static data holding the secret). */
async function n8nTriggerReceiver(): Promise<Receiver> {
	const emitted: string[] = [];
	const served = await serveN8nTrigger(trigger, {
		node: { id: 'trigger', name: 'Chat Messaging Trigger', type: 'chatMessagingTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
		parameter: (name, fallback) => (name === 'events' ? [EVENT] : name === 'downloadAttachments' ? false : fallback),
		onResult: (result) => {
			for (const item of result.workflowData?.[0] ?? []) emitted.push(String(item.json.message_uid));
		},
	});
	return { label: 'n8n trigger webhook()', url: served.url, emitted, acks: [], stop: served.stop };
}

/** The event node in a running Node-RED, subscribed through the sandbox; its URL is the one it registered. */
async function nodeRedReceiver(): Promise<Receiver> {
	const sandbox = await startSandbox({ chats: 10, tokens: ['events-bench'], seed: 5 });
	const nodeHttp = await startNodeHttp();
	const flow = [
		{ id: 'tab', type: 'tab', label: 'events' },
		{ id: 'ev', z: 'tab', type: 'chat-messaging-event', name: '', config: 'cfg', events: [EVENT], x: 100, y: 100, wires: [['out']] },
		{ id: 'out', z: 'tab', type: 'helper', x: 300, y: 100 },
		{ id: 'cfg', type: 'chat-messaging-config', name: 'events configuration', baseUrl: sandbox.url, publicUrl: nodeHttp.url },
	];
	await helper.load(nodesUnderTest as never, flow, { cfg: { token: 'events-bench' } });
	const out = new Collector('out');
	let url = '';
	for (let attempt = 0; attempt < 200 && !url; attempt++) {
		const response = await fetch(`${sandbox.url}/webhooks`, { headers: { authorization: 'Bearer events-bench' } });
		const hooks = ((await response.json()) as { data: { webhooks: Array<{ url: string }> } }).data.webhooks;
		url = hooks[0]?.url ?? '';
		if (!url) await sleep(25);
	}
	check(url, 'the Node-RED event node did not subscribe');
	const emitted: string[] = [];
	out.subscribe(() => emitted.push(String((out.messages.at(-1)!.payload as { message_uid: string }).message_uid)));
	return {
		label: 'Node-RED event node',
		url,
		emitted,
		acks: [],
		stop: async () => {
			await helper.unload();
			await nodeHttp.stop();
			await sandbox.stop();
		},
	};
}

async function deliver(receiver: Receiver, block: Delivery[]): Promise<void> {
	let next = 0;
	const worker = async () => {
		while (next < block.length) {
			const delivery = block[next++]!;
			const started = performance.now();
			const response = await fetch(receiver.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: delivery.body });
			await response.arrayBuffer();
			receiver.acks.push(performance.now() - started);
			check(response.status === 200, `${receiver.label} answered ${response.status}`);
		}
	};
	await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

export async function runEventIntake(): Promise<void> {
	const { list, unique } = deliveries();
	console.log(
		`\n[events] ${list.length} deliveries (${list.length - unique.size} redeliveries), ${CONCURRENCY} at a time, receivers interleaved per ${BLOCK}`,
	);
	const receivers = [await bareReceiver(), await n8nTriggerReceiver(), await nodeRedReceiver()];
	try {
		// Warm-up outside the measurement: one event that is not part of the run, to each.
		const warmUp = {
			uid: 'm_warm_up',
			body: JSON.stringify({ event_type: EVENT, data: { chat_id: 1, message_uid: 'm_warm_up', text: 'warm' } }),
		};
		for (const receiver of receivers) {
			await deliver(receiver, [warmUp]);
			receiver.acks.length = 0;
			receiver.emitted.length = 0;
		}
		for (let start = 0, turn = 0; start < list.length; start += BLOCK, turn++) {
			const block = list.slice(start, start + BLOCK);
			for (let i = 0; i < receivers.length; i++) await deliver(receivers[(i + turn) % receivers.length]!, block);
		}
		await sleep(200); // the last messages through Node-RED's own delivery
		const bare = receivers[0]!;
		const bareP99 = percentile(bare.acks, 99);
		const rows: Row[] = receivers.map((receiver) => {
			const distinct = new Set(receiver.emitted);
			check(receiver.emitted.length === unique.size, `${receiver.label}: ${receiver.emitted.length} events out, expected ${unique.size}`);
			check(
				distinct.size === unique.size && [...unique].every((uid) => distinct.has(uid)),
				`${receiver.label}: not every unique event came out once`,
			);
			return {
				label: receiver.label,
				cells: {
					'events out': receiver.emitted.length,
					'ack p50 ms': percentile(receiver.acks, 50),
					'ack p99 ms': percentile(receiver.acks, 99),
					'p99 × bare': percentile(receiver.acks, 99) / bareP99,
				},
			};
		});
		printTable(`Event intake: ${list.length} deliveries, ${unique.size} unique events`, rows, [
			'every receiver emitted each unique event exactly once',
		]);
		for (const row of rows.slice(1)) {
			const keyName = row.label.startsWith('n8n') ? 'n8nTrigger' : 'nodeRedEventNode';
			record(`events.${keyName}.p99VsBare`, row.cells['p99 × bare'] as number);
			record(`events.${keyName}.p50VsBare`, (row.cells['ack p50 ms'] as number) / (rows[0]!.cells['ack p50 ms'] as number));
			target(`events: ${row.label} ack p99 × bare receiver`, row.cells['p99 × bare'] as number, 1.1);
		}
	} finally {
		for (const receiver of receivers) await receiver.stop();
	}
}
