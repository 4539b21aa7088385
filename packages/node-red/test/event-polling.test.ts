/**
 * The event node in polling mode and with the inbox options, in the real Node-RED runtime (test helper)
 * against the sandbox over real HTTP: no subscription, each message once across a stop/start (the cursor
 * in the user dir) and a redeploy; burst batching and human takeover in polling mode; human takeover in
 * webhook mode; the event filters (the core catalogue's, as the n8n triggers offer them) in both modes.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
import type { NodeMessage } from 'node-red';
import { nextPollDelay } from '../src/nodes/event/polling';
import { startRecordingProxy } from '../../../test/support/recording-proxy';

let sbx: Sandbox;
let nodeHttp: NodeHttp;
let userDir: string;

eventNodeTestHooks('polling-events-token', (sandbox, http) => {
	sbx = sandbox;
	nodeHttp = http;
});
beforeEach(async () => {
	userDir = mkdtempSync(path.join(os.tmpdir(), 'cm-nr-userdir-'));
	helper.settings({ userDir });
	await sandboxCall(sbx, 'POST', '/_sandbox/reset');
});
afterEach(() => {
	helper.settings({});
	rmSync(userDir, { recursive: true, force: true });
});

const flow = (extra: Record<string, unknown>, publicUrl = '') => eventNodeFlow(sbx, publicUrl, extra);

const load = async (extra: Record<string, unknown>, publicUrl = '') => {
	await helper.load(nodesUnderTest as never, flow(extra, publicUrl), credentialsFor(sbx.tokens[0]!));
	return new Collector('out');
};

const incoming = async (body: Record<string, unknown>) => {
	const answer = await sandboxCall(sbx, 'POST', '/_sandbox/incoming', body);
	if (answer.status !== 200) throw new Error(`incoming: ${JSON.stringify(answer.body)}`);
	return answer.body.data as { chat_id: number; message: { uid: string } };
};

const stateFile = () => path.join(userDir, 'chat-messaging', 'event-ev.json');
/** Lets more than one more poll (1 s apart) pass, to see that nothing more comes. */
const nextPoll = () => new Promise((resolve) => setTimeout(resolve, 1300));
const texts = (messages: NodeMessage[]) => messages.map((msg) => (msg.payload as { text: string }).text);

const POLLING = { mode: 'polling', pollSeconds: 1, events: ['message:received:new'] };

test('polling emits each inbound message once, with no subscription, across a stop and start and a redeploy', async () => {
	let out = await load(POLLING);
	await waitFor('the first poll to place the cursor at "now"', () => existsSync(stateFile()));
	const first = await incoming({ phone: '+4915177710001', text: 'polled one', name: 'Poll One' });
	await out.waitFor(1);
	expect(out.messages[0]?.topic).toBe('message:received:new');
	expect(out.messages[0]?.payload).toMatchObject({ chat_id: first.chat_id, message_uid: first.message.uid, text: 'polled one' });
	expect((await sandboxData(sbx, '/webhooks')).webhooks).toEqual([]);

	// Stopped (as Node-RED stops): a message arrives meanwhile; the next start finds it once, from the stored cursor.
	await helper.unload();
	await incoming({ phone: '+4915177710001', text: 'while stopped' });
	out = await load(POLLING);
	await out.waitFor(1);
	await nextPoll();
	expect(texts(out.messages)).toEqual(['while stopped']);

	// A redeploy with another interval: a new instance, the same cursor.
	await helper.unload();
	out = await load({ ...POLLING, pollSeconds: 2 });
	await incoming({ phone: '+4915177710001', text: 'after redeploy' });
	await out.waitFor(1);
	await nextPoll();
	await new Promise((resolve) => setTimeout(resolve, 1000));
	expect(texts(out.messages)).toEqual(['after redeploy']);
});

test('a flow saved before Mode existed keeps webhook mode: it subscribes at the public URL', async () => {
	await load({ events: ['message:received:new'] }, nodeHttp.url);
	const hooks = await waitFor('one subscription', async () => {
		const list = (await sandboxData(sbx, '/webhooks')).webhooks as Array<{ url: string }>;
		return list.length === 1 && list;
	});
	expect(hooks[0]?.url.startsWith(`${nodeHttp.url}/chat-messaging/events/ev/`)).toBe(true);
	// Its state file holds the catch-up cursor, placed at "now" on this first start.
	const state = await waitFor('the catch-up cursor', () => existsSync(stateFile()) && JSON.parse(readFileSync(stateFile(), 'utf8')));
	expect(Object.keys(state.cursors)).toEqual(['messageReceived']);
	expect(state.cursors.messageReceived.at).toBeGreaterThan(Date.now() - 60_000);
});

/** Waits until the sandbox gave up on the delivery of `uid` (every attempt failed: the node was not there). */
const givenUp = (uid: string) =>
	waitFor(`the sandbox to give up delivering ${uid}`, async () => {
		const { deliveries } = await sandboxData(sbx, '/_sandbox/deliveries?event_type=message:received:new');
		const attempts = (deliveries as Array<{ ok: boolean; body: any }>).filter((entry) => entry.body?.data?.message_uid === uid);
		return attempts.length >= 3 && attempts.every((entry) => !entry.ok);
	});

test('webhook mode catches up after a stop: what arrived meanwhile (its deliveries given up) reaches the flow once, nothing handed on before comes again', async () => {
	const WEBHOOK = { events: ['message:received:new', 'message:sent:new'] };
	let out = await load(WEBHOOK, nodeHttp.url);
	await waitFor(
		'the catch-up cursors',
		() => existsSync(stateFile()) && Object.keys(JSON.parse(readFileSync(stateFile(), 'utf8')).cursors ?? {}).length === 2,
	);
	const before = await incoming({ phone: '+4915177720001', text: 'delivered before the stop', name: 'Catch Up' });
	await out.waitFor(1);
	expect(out.messages[0]?.payload).toMatchObject({ message_uid: before.message.uid, text: 'delivered before the stop' });

	await helper.unload();
	const missed = [];
	for (const text of ['missed one', 'missed two']) missed.push(await incoming({ phone: '+4915177720001', text }));
	const reply = await sandboxCall(sbx, 'POST', '/_sandbox/teammate-message', { chat_id: before.chat_id, text: 'missed reply' });
	for (const { message } of missed) await givenUp(message.uid);

	out = await load(WEBHOOK, nodeHttp.url);
	await out.waitFor(3);
	await nextPoll();
	const payloads: Array<Record<string, unknown>> = out.messages.map((msg) => ({
		topic: msg.topic,
		...(msg.payload as Record<string, unknown>),
	}));
	expect(payloads.map((payload) => [payload.topic, payload.event_type, payload.text])).toEqual([
		['message:received:new', 'message:received:new', 'missed one'],
		['message:received:new', 'message:received:new', 'missed two'],
		['message:sent:new', 'message:sent:new', 'missed reply'],
	]);
	// Shaped as a delivery: the flat fields every delivery gives, and the spec's data object.
	expect(payloads[0]).toMatchObject({
		chat_id: before.chat_id,
		chat_name: 'Catch Up',
		message_uid: missed[0]!.message.uid,
		unattended: expect.any(Boolean), // the chat's state when read back (a teammate has written since)
		raw: { event_type: 'message:received:new', data: { chat_id: before.chat_id, message_uid: missed[0]!.message.uid, text: 'missed one' } },
	});
	expect(payloads[2]?.message_uid).toBe(reply.body.data.message.uid);

	// Deliveries go on as before, once each; a third start finds nothing to catch up.
	await incoming({ phone: '+4915177720001', text: 'delivered after' });
	await out.waitFor(4);
	await helper.unload();
	out = await load(WEBHOOK, nodeHttp.url);
	await waitFor('subscribed again', async () => (await sandboxData(sbx, '/webhooks')).webhooks.length === 2);
	await nextPoll();
	expect(out.messages).toHaveLength(0);
});

test('polling with burst batching and takeover: one msg per quiet chat, texts joined, uids kept; an assigned chat is skipped', async () => {
	const out = await load({ ...POLLING, burstQuietSeconds: 1, skipAssigned: true });
	await waitFor('the first poll to place the cursor', () => existsSync(stateFile()));
	const teammates = (await sandboxData(sbx, '/workspace/teammates')).teammates as Array<{ email: string }>;
	const assigned = await incoming({ phone: '+4915177710011', text: 'for a person', name: 'Assigned' });
	await sandboxCall(sbx, 'PATCH', `/chats/${assigned.chat_id}`, { responsible: teammates[0]!.email });
	const a1 = await incoming({ phone: '+4915177710012', text: 'Hello', name: 'Burst' });
	const a2 = await incoming({ chat_id: a1.chat_id, text: 'where is my order?' });
	await out.waitFor(1);
	await nextPoll();
	await nextPoll();
	expect(out.messages).toHaveLength(1);
	expect(out.messages[0]?.payload).toMatchObject({
		chat_id: a1.chat_id,
		text: 'Hello\nwhere is my order?',
		message_uids: [a1.message.uid, a2.message.uid],
		message_uid: a2.message.uid,
	});
	expect(out.messages[0]).toMatchObject({ chatInput: 'Hello\nwhere is my order?', sessionId: String(a1.chat_id) });
});

test('webhook mode with takeover: a chat where a teammate just wrote is skipped, another goes through', async () => {
	const out = await load({ events: ['message:received:new'], teammateQuietMinutes: 5 }, nodeHttp.url);
	await waitFor('one subscription', async () => (await sandboxData(sbx, '/webhooks')).webhooks.length === 1);
	const [seeded] = (await sandboxData(sbx, '/chats')).chats as Array<{ id: number }>;
	await sandboxCall(sbx, 'POST', '/_sandbox/teammate-message', { chat_id: seeded!.id, text: 'A person here' });
	await incoming({ chat_id: seeded!.id, text: 'thanks, person' });
	await incoming({ phone: '+4915177710022', text: 'nobody answered me', name: 'Free' });
	await out.waitFor(1);
	await new Promise((resolve) => setTimeout(resolve, 700));
	expect(texts(out.messages)).toEqual(['nobody answered me']);
});

test('webhook mode with burst batching: deliveries that arrive out of order go out as one msg in the order written', async () => {
	const out = await load({ events: ['message:received:new'], burstQuietSeconds: 1 }, nodeHttp.url);
	const [hook] = await waitFor('one subscription', async () => {
		const hooks = (await sandboxData(sbx, '/webhooks')).webhooks as Array<{ id: number; url: string }>;
		return hooks.length === 1 && hooks;
	});
	// The sandbox delivers nothing while the subscription is off: the deliveries below are the only ones, last first.
	await sandboxCall(sbx, 'PUT', `/webhooks/${hook!.id}`, { enabled: false });
	const written = ['hi', 'my order', 'is late'];
	const first = await incoming({ phone: '+4915177710031', text: written[0], name: 'Out of order' });
	const rest = [];
	for (const text of written.slice(1)) rest.push(await incoming({ chat_id: first.chat_id, text }));
	const uids = [first, ...rest].map((answer) => answer.message.uid);
	for (const at of [2, 0, 1]) {
		const delivery = { event_type: 'message:received:new', data: { chat_id: first.chat_id, text: written[at], message_uid: uids[at] } };
		const answer = await fetch(hook!.url, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(delivery),
		});
		expect(answer.status).toBe(200);
	}
	await out.waitFor(1);
	await nextPoll();
	expect(out.messages).toHaveLength(1);
	expect(out.messages[0]?.payload).toMatchObject({ text: written.join('\n'), message_uids: uids, message_uid: uids[2] });
	expect(out.messages[0]).toMatchObject({ chatInput: written.join('\n') });
});

test('webhook mode: a delivery answered 2xx that cannot be stored is reported on the node, and the process keeps running', async () => {
	await load({ events: ['message:received:new'] }, nodeHttp.url);
	const [hook] = await waitFor('one subscription', async () => {
		const hooks = (await sandboxData(sbx, '/webhooks')).webhooks as Array<{ url: string }>;
		return hooks.length === 1 && hooks;
	});
	await waitFor('the catch-up to store its state', () => existsSync(stateFile()));
	// The state file's place taken by a folder: the next write fails (a full or read-only disk would).
	rmSync(stateFile());
	mkdirSync(path.join(stateFile(), 'taken'), { recursive: true });
	const unhandled: unknown[] = [];
	const onUnhandled = (reason: unknown) => unhandled.push(reason);
	process.on('unhandledRejection', onUnhandled);
	try {
		const delivery = { event_type: 'message:received:new', data: { chat_id: 5, text: 'lost to the disk', message_uid: 'UNSTORED-1' } };
		const answer = await fetch(hook!.url, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(delivery),
		});
		expect(answer.status).toBe(200);
		const node = helper.getNode('ev') as unknown as { error: { getCalls(): Array<{ args: unknown[] }> } };
		const errors = await waitFor('the node to report the event', () => {
			const found = node.error
				.getCalls()
				.map((call) => String(call.args[0]))
				.filter((text) => text.includes('UNSTORED-1'));
			return found.length ? found : undefined;
		});
		expect(errors[0]).toMatch(/was acknowledged but could not be stored/);
		await new Promise((resolve) => setTimeout(resolve, 100));
		expect(unhandled).toEqual([]);
	} finally {
		process.off('unhandledRejection', onUnhandled);
	}
});

/** A chat labelled vip and one without labels, both direct chats of new numbers, made before the node starts. */
async function twoChats(): Promise<void> {
	const vip = await incoming({ phone: '+4915177720001', text: 'before the node', name: 'Vip' });
	await sandboxCall(sbx, 'POST', `/chats/${vip.chat_id}/labels`, { labels: ['vip'] });
	await incoming({ phone: '+4915177720002', text: 'before the node', name: 'Plain' });
}

test('polling with Labels and Chat Type: only the events of matching chats are emitted', async () => {
	await twoChats();
	const out = await load({ ...POLLING, labels: 'VIP', chatType: 'direct' });
	await waitFor('the first poll to place the cursor at "now"', () => existsSync(stateFile()));
	await incoming({ phone: '+4915177720002', text: 'not labelled' });
	await incoming({ phone: '+4915177720001', text: 'labelled vip' });
	await out.waitFor(1);
	await nextPoll();
	expect(texts(out.messages)).toEqual(['labelled vip']);
});

test('polling with Chat Type "group": no direct chat gets through', async () => {
	await twoChats();
	const out = await load({ ...POLLING, chatType: 'group' });
	await waitFor('the first poll to place the cursor at "now"', () => existsSync(stateFile()));
	await incoming({ phone: '+4915177720001', text: 'direct one' });
	await nextPoll();
	await nextPoll();
	expect(out.messages).toEqual([]);
});

test('webhook mode with Labels: only the events of chats having one of them are emitted', async () => {
	await twoChats();
	const out = await load({ events: ['message:received:new'], labels: 'other, vip' }, nodeHttp.url);
	await waitFor('the subscription', async () => (await sandboxData(sbx, '/webhooks')).webhooks.length === 1);
	await incoming({ phone: '+4915177720002', text: 'not labelled' });
	await incoming({ phone: '+4915177720001', text: 'labelled vip' });
	await out.waitFor(1);
	await new Promise((resolve) => setTimeout(resolve, 800));
	expect(texts(out.messages)).toEqual(['labelled vip']);
});

test('webhook mode with Labels catches up through the filter too: of what arrived while stopped, only the matching chat reaches the flow', async () => {
	await twoChats();
	const FILTERED = { events: ['message:received:new'], labels: 'vip' };
	let out = await load(FILTERED, nodeHttp.url);
	await waitFor('the catch-up cursor', () => existsSync(stateFile()) && JSON.parse(readFileSync(stateFile(), 'utf8')).cursors);
	await helper.unload();
	const missed = [];
	missed.push(await incoming({ phone: '+4915177720002', text: 'missed, not labelled' }));
	missed.push(await incoming({ phone: '+4915177720001', text: 'missed, labelled vip' }));
	for (const { message } of missed) await givenUp(message.uid);

	out = await load(FILTERED, nodeHttp.url);
	await out.waitFor(1);
	await nextPoll();
	expect(texts(out.messages)).toEqual(['missed, labelled vip']);
});

test('a Chat Type the node does not offer stops it at deploy, naming the property, and subscribes to nothing', async () => {
	await load({ events: ['message:received:new'], chatType: 'channels' }, nodeHttp.url);
	const logged = await waitFor('the node to log the setting at fault', () =>
		helper
			.log()
			.args.map((args) => args[0] as { id?: string; level?: number; msg?: unknown })
			.find((entry) => entry.id === 'ev' && entry.level === 20),
	);
	expect(String(logged.msg)).toMatch(/Chat Type/);
	expect((await sandboxData(sbx, '/webhooks')).webhooks).toEqual([]);
});

test('polling with a burst held: a failed poll waits the whole interval, never looks again at once; the burst goes out once after', async () => {
	const proxy = await startRecordingProxy(sbx.url);
	try {
		const nodes = flow({ ...POLLING, pollSeconds: 2, burstQuietSeconds: 4 }).map((node) =>
			node.type === 'chat-messaging-config' ? { ...node, baseUrl: proxy.url } : node,
		);
		await helper.load(nodesUnderTest as never, nodes, credentialsFor(sbx.tokens[0]!));
		const out = new Collector('out');
		await waitFor('the first poll to place the cursor', () => existsSync(stateFile()));
		const first = await incoming({ phone: '+4915177710041', text: 'one', name: 'Held' });
		await incoming({ chat_id: first.chat_id, text: 'two' });
		const held = () => ((JSON.parse(readFileSync(stateFile(), 'utf8')) as { burst?: { chats?: unknown[] } }).burst?.chats ?? []).length;
		await waitFor('a poll to hold the burst', () => held() === 1, { timeoutMs: 10_000 });
		// The service refuses every request from now on, past the burst's quiet time.
		proxy.failWith = 401;
		const before = proxy.requests.length;
		await new Promise((resolve) => setTimeout(resolve, 6_000));
		const whileFailing = proxy.requests.length - before;
		expect(whileFailing).toBeGreaterThanOrEqual(2);
		expect(whileFailing).toBeLessThanOrEqual(5);
		expect(out.messages).toHaveLength(0);
		proxy.failWith = undefined;
		await out.waitFor(1);
		await nextPoll();
		expect(texts(out.messages)).toEqual(['one\ntwo']);
	} finally {
		await proxy.stop();
	}
});

test("polling looks again when a held burst's quiet time ends (a second later: record times are whole seconds), not only at the interval", () => {
	const held = (lastAt: number) => ({
		load: () => ({ burst: { v: 1, chats: [{ chat_id: 7, events: [{ event_type: 'message:received:new' }], lastAt }] } }),
	});
	const store = (state: Record<string, unknown>) => ({ load: () => state }) as never;
	expect(nextPollDelay({ store: held(1_000) as never, burstMs: 3_000 }, 10_000, 2_000)).toBe(3_000);
	expect(nextPollDelay({ store: held(1_000) as never, burstMs: 3_000 }, 10_000, 9_000)).toBe(0);
	expect(nextPollDelay({ store: held(1_000) as never, burstMs: 30_000 }, 10_000, 2_000)).toBe(10_000);
	expect(nextPollDelay({ store: store({}), burstMs: 3_000 }, 10_000, 2_000)).toBe(10_000);
	expect(nextPollDelay({ store: held(1_000) as never, burstMs: 0 }, 10_000, 2_000)).toBe(10_000);
});
