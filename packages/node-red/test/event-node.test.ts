/**
 * The event node against the sandbox: the sandbox delivers webhooks over real HTTP to the node's
 * route (served on a loopback port), and the subscriptions it holds are checked directly.
 */
import { request as httpRequest } from 'node:http';
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

let sbx: Sandbox;
let nodeHttp: NodeHttp;
eventNodeTestHooks('events-token', (sandbox, http) => {
	sbx = sandbox;
	nodeHttp = http;
});
afterEach(async () => {
	await sandboxCall(sbx, 'DELETE', '/_sandbox/deliveries');
});

const eventFlow = (events: string[], extra: Record<string, unknown> = {}) => eventNodeFlow(sbx, nodeHttp.url, { events, ...extra });

const webhooks = async (): Promise<any[]> => (await sandboxData(sbx, '/webhooks')).webhooks;
const nodePrefix = () => `${nodeHttp.url}/chat-messaging/events/ev/`;

/** Loads the event node and waits until it has subscribed to `events`. */
async function loadEventNode(events: string[]): Promise<{ out: Collector; url: string }> {
	await helper.load(nodesUnderTest as never, eventFlow(events), credentialsFor(sbx.tokens[0]!));
	const out = new Collector('out');
	const hooks = await waitFor('const list = await webhooks(); return list.length === events.length...', async () => {
		const list = await webhooks();
		return list.length === events.length && list;
	});
	return { out, url: hooks[0].url };
}

const post = (url: string, body: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('on deploy it subscribes once per event type at <publicUrl>/chat-messaging/events/<node id>/<secret>', async () => {
	await loadEventNode(['message:received:new', 'chat:created']);
	const hooks = await webhooks();
	expect(hooks.map((hook) => hook.event_type).sort()).toEqual(['chat:created', 'message:received:new']);
	expect(hooks.every((hook) => hook.enabled === true && hook.url === hooks[0].url)).toBe(true);
	expect(hooks[0].url.startsWith(nodePrefix())).toBe(true);
	const secret = hooks[0].url.slice(nodePrefix().length);
	expect(secret).toMatch(/^[0-9a-f]{48}$/);
});

test('an inbound message from a new number emits chat:created and message:received:new as flat payloads', async () => {
	const { out } = await loadEventNode(['message:received:new', 'chat:created']);
	const response = await sandboxCall(sbx, 'POST', '/_sandbox/incoming', { phone: '+4915177700001', text: 'Hello there', name: 'Grace' });
	expect(response.status).toBe(200);
	const chatId = response.body.data.chat_id;
	await out.waitFor(2);
	const byTopic = Object.fromEntries(out.messages.map((msg) => [msg.topic, msg.payload as any]));
	expect(byTopic['chat:created']).toMatchObject({ event_type: 'chat:created', chat_id: chatId });
	expect(byTopic['message:received:new']).toMatchObject({
		event_type: 'message:received:new',
		chat_id: chatId,
		chat_name: 'Grace',
		text: 'Hello there',
		message_uid: response.body.data.message.uid,
		unattended: true,
	});
	expect(byTopic['message:received:new'].raw).toMatchObject({ event_type: 'message:received:new', data: { chat_id: chatId } });
	// The turn as agent nodes read it: the text, and the chat as the session's key.
	const received = out.messages.find((msg) => msg.topic === 'message:received:new') as Record<string, unknown>;
	expect(received).toMatchObject({ chatInput: 'Hello there', sessionId: String(chatId) });
	expect(out.messages.find((msg) => msg.topic === 'chat:created')).not.toHaveProperty('chatInput');
});

test('a redelivered event (sandbox duplicate: true) is emitted once', async () => {
	const { out } = await loadEventNode(['message:received:new']);
	const chat = (await sandboxData(sbx, '/chats?group=false')).chats[0];
	await sandboxCall(sbx, 'POST', '/_sandbox/incoming', { chat_id: chat.id, text: 'twice?', duplicate: true });
	// Both copies were delivered and answered 2xx …
	await waitFor("const log = (await sandboxData(sbx, '/_sandbox/deliveries?event_typ...", async () => {
		const log = (await sandboxData(sbx, '/_sandbox/deliveries?event_type=message:received:new')).deliveries;
		return log.filter((d: any) => d.ok).length === 2;
	});
	await pause(50);
	// … and the flow saw one.
	expect(out.messages.filter((msg) => (msg.payload as any).text === 'twice?')).toHaveLength(1);
});

test('a wrong secret gets 401 and emits nothing; an unknown node gets 404', async () => {
	const { out, url } = await loadEventNode(['message:received:new']);
	const body = JSON.stringify({ event_type: 'message:received:new', data: { chat_id: 1, message_uid: 'forged', text: 'forged' } });
	const forged = await post(`${nodePrefix()}not-the-secret`, body);
	expect(forged.status).toBe(401);
	const sameLength = await post(
		url.replace(/.$/, (c) => (c === '0' ? '1' : '0')),
		body,
	);
	expect(sameLength.status).toBe(401);
	const elsewhere = await post(`${nodeHttp.url}/chat-messaging/events/other-node/${url.slice(nodePrefix().length)}`, body);
	expect(elsewhere.status).toBe(404);
	await pause(50);
	expect(out.messages).toHaveLength(0);
});

test('a malformed body gets 400 and emits nothing; a valid one gets 200 at once', async () => {
	const { out, url } = await loadEventNode(['message:received:new']);
	expect((await post(url, 'not json {')).status).toBe(400);
	expect((await post(url, JSON.stringify({ data: { chat_id: 1 } }))).status).toBe(400);
	expect((await post(url, JSON.stringify(['event_type']))).status).toBe(400);
	await pause(50);
	expect(out.messages).toHaveLength(0);
	const ok = await post(
		url,
		JSON.stringify({ event_type: 'message:received:new', data: { chat_id: 3, message_uid: 'u-1', text: 'fine' } }),
	);
	expect(ok.status).toBe(200);
	await out.waitFor(1);
	expect(out.messages[0]!.payload).toMatchObject({ chat_id: 3, message_uid: 'u-1', text: 'fine' });
});

test('a body over 1 MB is refused with 413 and emits nothing, even a well-formed delivery', async () => {
	const { out, url } = await loadEventNode(['message:received:new']);
	const big = JSON.stringify({
		event_type: 'message:received:new',
		data: { chat_id: 3, message_uid: 'BIG-1', text: 'x'.repeat(1024 * 1024 + 1) },
	});
	const status = await post(url, big).then(
		(response) => response.status,
		(error: Error) => error.message, // the connection may close while the rest of the body is still being sent
	);
	expect([413, 'fetch failed']).toContain(status);
	await pause(50);
	expect(out.messages).toHaveLength(0);
});

test("the live service's shape ({chat, message}) is accepted; unsubscribed event types are acknowledged but not emitted", async () => {
	const { out, url } = await loadEventNode(['message:received:new']);
	const live = {
		event_type: 'message:received:new',
		chat: { chat_id: 77, full_name: 'Ada Lovelace', phone: '+4915100000077', is_group: false },
		message: { text: 'live shape', message_uid: 'LIVE-1', direction: 'inbound', sender: { full_name: 'Ada' } },
	};
	expect((await post(url, JSON.stringify(live))).status).toBe(200);
	expect((await post(url, JSON.stringify({ event_type: 'message:sent:new', data: { chat_id: 1, message_uid: 'S-1' } }))).status).toBe(200);
	await out.waitFor(1);
	await pause(50);
	expect(out.messages).toHaveLength(1);
	expect(out.messages[0]).toMatchObject({
		topic: 'message:received:new',
		payload: {
			event_type: 'message:received:new',
			chat_id: 77,
			chat_name: 'Ada Lovelace',
			text: 'live shape',
			message_uid: 'LIVE-1',
			unattended: null,
		},
	});
});

test('a removed node deletes its subscriptions before reporting done; a stopped one keeps them for its restart', async () => {
	const { url } = await loadEventNode(['message:received:new', 'message:sent:new', 'chat:created']);
	await helper.unload(); // Node-RED stopping, or a redeploy: close(removed = false)
	expect((await webhooks()).map((hook) => hook.url)).toEqual([url, url, url]);

	await loadEventNode(['message:received:new', 'message:sent:new', 'chat:created']);
	await (helper.getNode('ev') as unknown as { close(removed: boolean): Promise<void> }).close(true);
	// No polling: 'close' awaited the deletions.
	expect(await webhooks()).toEqual([]);
});

test('a redeploy or restart keeps the secret and the subscriptions still chosen, and deletes the rest: no event is refused', async () => {
	const first = await loadEventNode(['message:received:new', 'chat:created']);
	const kept = (await webhooks()).find((hook) => hook.event_type === 'message:received:new');
	await helper.setFlows(eventFlow(['message:received:new', 'message:sent:new']), 'full', credentialsFor(sbx.tokens[0]!));
	const hooks = await waitFor('const list = await webhooks(); return list.length === 2 && list.som...', async () => {
		const list = await webhooks();
		return list.length === 2 && list.some((hook) => hook.event_type === 'message:sent:new') && list;
	});
	expect(hooks.map((hook) => hook.event_type).sort()).toEqual(['message:received:new', 'message:sent:new']);
	expect(hooks.every((hook) => hook.url === first.url)).toBe(true);
	expect(hooks.map((hook) => hook.id)).toContain(kept.id);
	// A delivery the service retries with the old URL still gets in.
	const out = new Collector('out');
	const retried = { event_type: 'message:received:new', data: { chat_id: 5, message_uid: 'RETRIED-1', text: 'retry' } };
	expect((await post(first.url, JSON.stringify(retried))).status).toBe(200);
	await out.waitFor(1);
	// After a restart (unload, load) too.
	await helper.unload();
	const again = await loadEventNode(['message:received:new', 'message:sent:new']);
	expect(again.url).toBe(first.url);
});

test('a delivery that arrives while the node stops is answered 503 (the service retries it), never acknowledged and dropped', async () => {
	const { url, out } = await loadEventNode(['message:received:new']);
	const target = new URL(url);
	const request = httpRequest({
		host: target.hostname,
		port: target.port,
		path: target.pathname,
		method: 'POST',
		headers: { 'content-type': 'application/json' },
	});
	const status = new Promise<number>((resolve, reject) => {
		request.on('response', (response) => {
			response.resume();
			resolve(response.statusCode ?? 0);
		});
		request.on('error', reject);
	});
	request.write('{"event_type": "message:received:new", ');
	await pause(50);
	const closing = (helper.getNode('ev') as unknown as { close(removed: boolean): Promise<void> }).close(false);
	request.end('"data": {"chat_id": 5, "message_uid": "DURING-CLOSE", "text": "late"}}');
	expect(await status).toBe(503);
	await closing;
	expect(out.messages).toHaveLength(0);
});

test('intake: 600 deliveries (30 % duplicates up to 300 apart) during 5 redeploys reach the flow exactly once each', async () => {
	const { url, out } = await loadEventNode(['message:received:new']);
	const bodies: string[] = [];
	for (let index = 0; index < 600; index++) {
		const duplicate = index >= 300 && index % 10 < 3;
		const uid = duplicate ? `FLOOD-${index - 300}` : `FLOOD-${index}`;
		bodies.push(JSON.stringify({ event_type: 'message:received:new', data: { chat_id: 9, message_uid: uid, text: `flood ${uid}` } }));
	}
	// The service's side: retry a delivery until it is answered 2xx (a redeploy answers 404 or 503 meanwhile).
	const deliver = async (body: string) => {
		for (let attempt = 0; attempt < 100; attempt++) {
			const status = await post(url, body).then(
				(response) => response.status,
				() => 0,
			);
			if (status === 200) return;
			await pause(20);
		}
		throw new Error('never accepted');
	};
	const redeploys = (async () => {
		for (let round = 0; round < 5; round++) {
			await pause(60);
			// A modified-nodes deploy of a renamed event node: it restarts; the collector node stays. (The helper
			// gives up waiting for "flows started" after 300 ms under load; the deploy itself goes on, so wait for
			// the new instance instead.)
			const previous = helper.getNode('ev');
			await helper
				.setFlows(eventFlow(['message:received:new'], { name: `round ${round}` }), 'nodes', credentialsFor(sbx.tokens[0]!))
				.catch(() => undefined);
			await waitFor(
				"helper.getNode('ev') !== previous && helper.getNode('ev') !== undef...",
				() => helper.getNode('ev') !== previous && helper.getNode('ev') !== undefined,
				{ timeoutMs: 10_000 },
			);
		}
	})();
	for (let start = 0; start < bodies.length; start += 20) await Promise.all(bodies.slice(start, start + 20).map(deliver));
	await redeploys;
	await pause(100);
	const emitted = out.messages.map((msg) => (msg.payload as { message_uid: string }).message_uid);
	expect(new Set(emitted).size).toBe(emitted.length); // none twice
	expect(emitted.length).toBe(510); // 600 deliveries, 90 of them duplicates
});

test.each(['spec', 'spec-exact', 'live'])(
	'Download Attachments puts the files of an inbound message into msg.attachments, byte-equal (%s delivery)',
	async (payload) => {
		const bytes = Buffer.from(Array.from({ length: 4000 }, (_, index) => (index * 13) % 256));
		const form = new FormData();
		form.append('file', new Blob([bytes], { type: 'application/pdf' }), 'invoice.pdf');
		const uploaded = await fetch(`${sbx.url}/files_upload`, {
			method: 'POST',
			headers: { authorization: `Bearer ${sbx.tokens[0]}` },
			body: form,
		});
		const fileUid = ((await uploaded.json()) as { data: { uid: string } }).data.uid;
		await helper.load(
			nodesUnderTest as never,
			eventFlow(['message:received:new'], { downloadAttachments: true }),
			credentialsFor(sbx.tokens[0]!),
		);
		const out = new Collector('out');
		await waitFor('(await webhooks()).length === 1', async () => (await webhooks()).length === 1);
		// spec-exact: the delivery names no file at all (the spec's chat_id, chat_name, text, message_uid), so the message is read.
		await sandboxCall(sbx, 'POST', '/_sandbox/incoming', { phone: '+4915177700042', text: 'invoice attached', file_uid: fileUid, payload });
		await out.waitFor(1);
		expect(out.messages[0]!.attachmentError).toBeUndefined();
		const [attachment] = out.messages[0]!.attachments as Array<{ filename: string; mimeType: string; data: Buffer }>;
		expect(attachment).toMatchObject({ filename: 'invoice.pdf', mimeType: 'application/pdf' });
		expect(Buffer.compare(attachment.data, bytes)).toBe(0);
	},
);
