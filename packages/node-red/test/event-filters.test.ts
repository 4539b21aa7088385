/**
 * The event node's filters (the core catalogue's, as the n8n triggers offer them), in the real Node-RED
 * runtime (test helper) against the sandbox over real HTTP, in both modes: only the events of the chats they
 * let through are emitted. A flow saved without them passes everything (the other event tests run so).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
	Collector,
	credentialsFor,
	eventNodeFlow,
	eventNodeTestHooks,
	waitFor,
	helper,
	nodesUnderTest,
	sandboxCall,
	sandboxData,
	type NodeHttp,
	type Sandbox,
} from './support';
import type { NodeMessage } from '../src/types';

let sbx: Sandbox;
let nodeHttp: NodeHttp;
let userDir: string;

eventNodeTestHooks('filter-events-token', (sandbox, http) => {
	sbx = sandbox;
	nodeHttp = http;
});
beforeEach(async () => {
	userDir = mkdtempSync(path.join(os.tmpdir(), 'cm-nr-filters-'));
	helper.settings({ userDir });
	await sandboxCall(sbx, 'POST', '/_sandbox/reset');
	await sandboxCall(sbx, 'DELETE', '/_sandbox/deliveries');
});
afterEach(() => {
	helper.settings({});
	rmSync(userDir, { recursive: true, force: true });
});

const incoming = async (phone: string, text: string) => {
	const answer = await sandboxCall(sbx, 'POST', '/_sandbox/incoming', { phone, text, name: phone.slice(-4) });
	if (answer.status !== 200) throw new Error(`incoming: ${JSON.stringify(answer.body)}`);
	return answer.body.data as { chat_id: number };
};
const texts = (messages: NodeMessage[]) => messages.map((msg) => (msg.payload as { text: string }).text);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A chat labelled vip and one without labels, both direct chats of new numbers. */
async function twoChats(): Promise<void> {
	const vip = await incoming('+4915177720001', 'before the node');
	await sandboxCall(sbx, 'POST', `/chats/${vip.chat_id}/labels`, { labels: ['vip'] });
	await incoming('+4915177720002', 'before the node');
}

test('polling: Labels and Chat Type let through only the events of matching chats', async () => {
	await twoChats();
	await helper.load(
		nodesUnderTest as never,
		eventNodeFlow(sbx, '', { mode: 'polling', pollSeconds: 1, events: ['message:received:new'], labels: 'VIP', chatType: 'direct' }),
		credentialsFor(sbx.tokens[0]!),
	);
	const out = new Collector('out');
	await waitFor('the first poll to place the cursor', () => existsSync(path.join(userDir, 'chat-messaging', 'event-ev.json')));
	await incoming('+4915177720002', 'not labelled');
	await incoming('+4915177720001', 'labelled vip');
	await out.waitFor(1);
	await pause(1300);
	expect(texts(out.messages)).toEqual(['labelled vip']);
});

test('polling: Chat Type "group" lets no direct chat through', async () => {
	await twoChats();
	await helper.load(
		nodesUnderTest as never,
		eventNodeFlow(sbx, '', { mode: 'polling', pollSeconds: 1, events: ['message:received:new'], chatType: 'group' }),
		credentialsFor(sbx.tokens[0]!),
	);
	const out = new Collector('out');
	await waitFor('the first poll to place the cursor', () => existsSync(path.join(userDir, 'chat-messaging', 'event-ev.json')));
	await incoming('+4915177720001', 'direct one');
	await pause(2500);
	expect(out.messages).toEqual([]);
});

test('webhook: Labels let through only the events of chats having one of them', async () => {
	await twoChats();
	await helper.load(
		nodesUnderTest as never,
		eventNodeFlow(sbx, nodeHttp.url, { events: ['message:received:new'], labels: 'other, vip' }),
		credentialsFor(sbx.tokens[0]!),
	);
	const out = new Collector('out');
	await waitFor('the subscription', async () => (await sandboxData(sbx, '/webhooks')).webhooks.length === 1);
	await incoming('+4915177720002', 'not labelled');
	await incoming('+4915177720001', 'labelled vip');
	await out.waitFor(1);
	await pause(800);
	expect(texts(out.messages)).toEqual(['labelled vip']);
});

test('a Chat Type the node does not offer stops it at deploy, naming the property, and subscribes to nothing', async () => {
	await helper.load(
		nodesUnderTest as never,
		eventNodeFlow(sbx, nodeHttp.url, { events: ['message:received:new'], chatType: 'channels' }),
		credentialsFor(sbx.tokens[0]!),
	);
	const logged = await waitFor('the node to log the setting at fault', () =>
		helper
			.log()
			.args.map((args) => args[0] as { id?: string; level?: number; msg?: unknown })
			.find((entry) => entry.id === 'ev' && entry.level === 20),
	);
	expect(String(logged.msg)).toMatch(/chatType|Chat Type/);
	expect((await sandboxData(sbx, '/webhooks')).webhooks).toEqual([]);
});
