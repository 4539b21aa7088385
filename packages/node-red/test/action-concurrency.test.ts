/**
 * Messages arriving at the action node faster than answers come back are worked on side by side, up to a bound, and
 * each answer leaves with its own msg. A stand-in service holds every request until told to answer, and counts how
 * many it holds at once: no clock decides the outcome.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NodeMessage } from 'node-red';
import { Collector, CONFIG_ID, credentialsFor, helper, nodesUnderTest, TAB } from './support';

let service: Server;
let serviceUrl = '';
const held: ServerResponse[] = [];
let mostHeld = 0;
let onHeld: () => void = () => undefined;

beforeAll(async () => {
	service = createServer((req, res) => {
		req.resume();
		held.push(res);
		mostHeld = Math.max(mostHeld, held.length);
		onHeld();
	});
	await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
	serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
});
afterAll(async () => {
	service.closeAllConnections();
	await new Promise((resolve) => service.close(resolve));
});
afterEach(() => helper.unload());

function answerAll(): void {
	for (const res of held.splice(0)) {
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(JSON.stringify({ status: 'ok', data: { workspace_id: 'ws_1', display_name: 'Held' } }));
	}
}

/** Resolves once the service holds `count` requests (or rejects after a generous while). */
function untilHeld(count: number): Promise<void> {
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`the service holds ${held.length} requests, expected ${count}`)), 20_000);
		onHeld = () => {
			if (held.length >= count) {
				clearTimeout(timer);
				onHeld = () => undefined;
				resolve();
			}
		};
		onHeld();
	});
}

test('40 msgs at once: 16 requests in flight at most, every msg answered with its own msg', async () => {
	await helper.load(
		nodesUnderTest as never,
		[
			{ id: TAB, type: 'tab', label: 'concurrency' },
			{
				id: 'action',
				z: TAB,
				type: 'chat-messaging',
				config: CONFIG_ID,
				resource: 'workspace',
				operation: 'get',
				x: 100,
				y: 100,
				wires: [['out']],
			},
			{ id: 'out', z: TAB, type: 'helper', x: 300, y: 100 },
			{ id: CONFIG_ID, type: 'chat-messaging-config', name: 'held service', baseUrl: serviceUrl, publicUrl: '' },
		],
		credentialsFor('concurrency-token'),
	);
	const out = new Collector('out');
	const action = helper.getNode('action') as unknown as { receive(msg: NodeMessage): void };
	for (let i = 0; i < 40; i++) action.receive({ payload: {}, tag: i });

	// The first 16 are sent while none has been answered (the pacer lets them through within a second) …
	await untilHeld(16);
	// … and no 17th arrives while they are held: a burst of messages more than this waits in the node.
	await new Promise((resolve) => setTimeout(resolve, 1000));
	expect(held.length).toBe(16);
	// Each answer lets one waiting msg in: 16, then 16, then the last 8.
	answerAll();
	await untilHeld(16);
	answerAll();
	await untilHeld(8);
	answerAll();
	await out.waitFor(40, 20_000);
	expect(mostHeld).toBe(16);
	expect(out.messages.map((msg) => msg.tag).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 40 }, (_, i) => i));
	expect(out.messages.every((msg) => (msg.payload as { display_name?: string }).display_name === 'Held')).toBe(true);
});
