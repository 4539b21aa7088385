import { call, data, FAST, startReceiver, startSandbox, waitFor, type Receiver, type Sandbox } from './helpers';

let sbx: Sandbox;
let receiver: Receiver;
beforeEach(async () => {
	sbx = await startSandbox({ ...FAST, chats: 12 });
	receiver = await startReceiver();
});
afterEach(async () => {
	await sbx.stop();
	await receiver.stop();
});

test('CRUD: create returns the record, list/get/update/delete', async () => {
	const created = await call(sbx, 'POST', '/webhooks', { event_type: 'message:received:new', url: receiver.url, enabled: true });
	expect(created.status).toBe(200);
	const hook = created.body.data;
	expect(hook).toEqual({ id: expect.any(Number), event_type: 'message:received:new', url: receiver.url, enabled: true, errors_counter: 0 });
	expect((await data(sbx, '/webhooks')).webhooks).toEqual([hook]);
	expect(await data(sbx, `/webhooks/${hook.id}`)).toEqual(hook);
	const disabled = await call(sbx, 'PUT', `/webhooks/${hook.id}`, { enabled: false, url: 'https://hooks.example.com/x' });
	expect(disabled.body.data).toMatchObject({ enabled: false, url: 'https://hooks.example.com/x' });
	const removed = await call(sbx, 'DELETE', `/webhooks/${hook.id}`);
	expect(removed.status).toBe(200);
	expect((await call(sbx, 'GET', `/webhooks/${hook.id}`)).status).toBe(404);
	expect(receiver.received).toEqual([]); // creating a subscription emits nothing
});

test('validation: event_type one of the three; url https except loopback', async () => {
	const badEvent = await call(sbx, 'POST', '/webhooks', { event_type: 'message:new', url: receiver.url });
	expect(badEvent.status).toBe(400);
	expect(badEvent.body.errors[0].fields).toEqual(['event_type']);
	const plain = await call(sbx, 'POST', '/webhooks', { event_type: 'chat:created', url: 'http://hooks.example.com/x' });
	expect(plain.status).toBe(400);
	expect(plain.body.errors[0].fields).toEqual(['url']);
	for (const url of ['http://127.0.0.1:9/x', 'http://localhost:9/x', 'http://[::1]:9/x', 'https://hooks.example.com/x']) {
		expect((await call(sbx, 'POST', '/webhooks', { event_type: 'chat:created', url, enabled: false })).status).toBe(200);
	}
});

test('at most 10 subscriptions per workspace', async () => {
	for (let i = 0; i < 10; i += 1)
		expect((await call(sbx, 'POST', '/webhooks', { event_type: 'chat:created', url: receiver.url, enabled: false })).status).toBe(200);
	const eleventh = await call(sbx, 'POST', '/webhooks', { event_type: 'chat:created', url: receiver.url });
	expect(eleventh.status).toBe(403);
	expect(eleventh.body.error_code).toBe('plan_feature_unavailable');
});

test('incoming message: chat created + unread + unattended; chat:created then message:received:new with the spec fields', async () => {
	await call(sbx, 'POST', '/webhooks', { event_type: 'chat:created', url: receiver.url });
	await call(sbx, 'POST', '/webhooks', { event_type: 'message:received:new', url: receiver.url });
	const res = await call(sbx, 'POST', '/_sandbox/incoming', { phone: '+33612345678', text: 'Bonjour', name: 'Claire' });
	expect(res.body.data).toMatchObject({ chat_created: true, message: { from_me: false, text: 'Bonjour' } });
	const chat = await data(sbx, `/chats/${res.body.data.chat_id}`);
	expect(chat).toMatchObject({ name: 'Claire', read: false, unattended: true, phone: '+33612345678' });
	await waitFor('receiver.received.length >= 2', () => receiver.received.length >= 2);
	const [first, second] = receiver.received;
	expect(first!.body.event_type).toBe('chat:created');
	expect(first!.body.data).toMatchObject({ chat_id: chat.id, chat_name: 'Claire', id: chat.id, jid: chat.jid });
	expect(second!.body).toEqual({
		event_type: 'message:received:new',
		data: expect.objectContaining({
			chat_id: chat.id,
			chat_name: 'Claire',
			text: 'Bonjour',
			message_uid: res.body.data.message.uid,
			unattended_customer: true,
		}),
	});
	expect(second!.headers['content-type']).toContain('application/json');
	// Answering clears the unattended flag.
	await call(sbx, 'POST', `/chats/${chat.id}/messages`, { text: 'Hello Claire' });
	await waitFor(
		'(await data(sbx, `/chats/${chat.id}`)).unattended === false',
		async () => (await data(sbx, `/chats/${chat.id}`)).unattended === false,
	);
});

test('duplicate: true delivers the same event twice (same message_uid and event_id)', async () => {
	await call(sbx, 'POST', '/webhooks', { event_type: 'message:received:new', url: receiver.url });
	const chat = (await data(sbx, '/chats?group=false')).chats[0];
	await call(sbx, 'POST', '/_sandbox/incoming', { chat_id: chat.id, text: 'twice', duplicate: true });
	await waitFor('receiver.received.length >= 2', () => receiver.received.length >= 2);
	await new Promise((r) => setTimeout(r, 50));
	expect(receiver.received).toHaveLength(2);
	expect(receiver.received[0]!.body).toEqual(receiver.received[1]!.body);
	const log = (await data(sbx, '/_sandbox/deliveries')).deliveries;
	expect(log.map((d: any) => d.duplicate)).toEqual([false, true]);
});

test('only enabled subscriptions receive', async () => {
	const hook = (await call(sbx, 'POST', '/webhooks', { event_type: 'message:received:new', url: receiver.url, enabled: false })).body.data;
	const chat = (await data(sbx, '/chats?group=false')).chats[0];
	await call(sbx, 'POST', '/_sandbox/incoming', { chat_id: chat.id, text: 'nobody listens' });
	await new Promise((r) => setTimeout(r, 100));
	expect(receiver.received).toHaveLength(0);
	await call(sbx, 'PUT', `/webhooks/${hook.id}`, { enabled: true });
	await call(sbx, 'POST', '/_sandbox/incoming', { chat_id: chat.id, text: 'now' });
	await waitFor('receiver.received.length === 1', () => receiver.received.length === 1);
});

test('failing receiver: 3 attempts, then errors_counter += 1, subscription stays enabled; deliveries log records them', async () => {
	receiver.status = 500;
	const hook = (await call(sbx, 'POST', '/webhooks', { event_type: 'message:received:new', url: receiver.url })).body.data;
	const chat = (await data(sbx, '/chats?group=false')).chats[0];
	await call(sbx, 'POST', '/_sandbox/incoming', { chat_id: chat.id, text: 'fail me' });
	await waitFor(
		'(await data(sbx, `/webhooks/${hook.id}`)).errors_counter === 1',
		async () => (await data(sbx, `/webhooks/${hook.id}`)).errors_counter === 1,
	);
	expect(receiver.received).toHaveLength(3);
	expect(await data(sbx, `/webhooks/${hook.id}`)).toMatchObject({ enabled: true, errors_counter: 1 });
	const log = (await data(sbx, '/_sandbox/deliveries')).deliveries;
	expect(log.map((d: any) => [d.attempt, d.ok, d.status_code])).toEqual([
		[1, false, 500],
		[2, false, 500],
		[3, false, 500],
	]);
	expect(log[0]).toMatchObject({
		webhook_id: hook.id,
		event_type: 'message:received:new',
		url: receiver.url,
		at: expect.any(String),
		body: expect.objectContaining({ event_type: 'message:received:new' }),
	});
	// A receiver that recovers on the second attempt costs no error.
	receiver.status = 200;
	await call(sbx, 'POST', '/_sandbox/incoming', { chat_id: chat.id, text: 'ok now' });
	await waitFor('receiver.received.length === 4', () => receiver.received.length === 4);
	expect((await data(sbx, `/webhooks/${hook.id}`)).errors_counter).toBe(1);
});

test('a receiver slower than the time-out counts as a failed attempt', async () => {
	const slow = await startSandbox({ ...FAST, webhookTimeoutMs: 100, webhookRetryMs: 10 });
	const { createServer } = await import('http');
	const server = createServer((_req, res) => setTimeout(() => res.end('late'), 400));
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	const port = (server.address() as { port: number }).port;
	try {
		const hook = (await call(slow, 'POST', '/webhooks', { event_type: 'message:received:new', url: `http://127.0.0.1:${port}/slow` })).body
			.data;
		const chat = (await data(slow, '/chats?group=false')).chats[0];
		await call(slow, 'POST', '/_sandbox/incoming', { chat_id: chat.id, text: 'slow' });
		await waitFor(
			'(await data(slow, `/webhooks/${hook.id}`)).errors_counter === 1',
			async () => (await data(slow, `/webhooks/${hook.id}`)).errors_counter === 1,
			{ timeoutMs: 5000 },
		);
		const log = (await data(slow, '/_sandbox/deliveries')).deliveries;
		expect(log).toHaveLength(3);
		expect(log[0].error).toMatch(/timed out/);
	} finally {
		await slow.stop();
		server.closeAllConnections();
		await new Promise((r) => server.close(r));
	}
});

test('--duplicate-rate 1 sends every delivery twice', async () => {
	const dup = await startSandbox({ ...FAST, duplicateRate: 1 });
	try {
		await call(dup, 'POST', '/webhooks', { event_type: 'message:sent:new', url: receiver.url });
		const res = await call(dup, 'POST', '/messages', { phone: '+4915100000099', text: 'dup' });
		await waitFor('receiver.received.length === 2', () => receiver.received.length === 2);
		expect(receiver.received.map((r) => r.body.data.message_uid)).toEqual([res.body.data.message_uid, res.body.data.message_uid]);
	} finally {
		await dup.stop();
	}
});
