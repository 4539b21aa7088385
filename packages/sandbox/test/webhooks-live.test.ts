import { spawn } from 'child_process';
import { join } from 'path';
import { call, data, FAST, SPEC_TIMESTAMP, startReceiver, startSandbox, waitFor, type Receiver, type Sandbox } from './helpers';

/** Conformance of the live service's unwrapped webhook shape (service-notes.md, "Webhooks"). */

const CHAT_KEYS = ['chat_id', 'chat_url', 'full_name', 'is_group', 'phone', 'responsible_email', 'responsible_name'];
const ACCOUNT_KEYS = ['email', 'full_name', 'phone'];
const MESSAGE_KEYS = ['attachments', 'direction', 'message_uid', 'origin', 'recipient', 'reply_to_uid', 'sender', 'text', 'timestamp'];
const keys = (value: object) => Object.keys(value).sort();

let receiver: Receiver;
beforeEach(async () => {
	receiver = await startReceiver();
});
afterEach(async () => {
	await receiver.stop();
});

async function subscribeAll(sbx: Sandbox, url = receiver.url): Promise<void> {
	for (const eventType of ['chat:created', 'message:received:new', 'message:sent:new']) {
		expect((await call(sbx, 'POST', '/webhooks', { event_type: eventType, url })).status).toBe(200);
	}
}

function bodiesOf(eventType: string): any[] {
	return receiver.received.map((r) => r.body).filter((b) => b.event_type === eventType);
}

describe('webhookPayload: live', () => {
	let sbx: Sandbox;
	beforeEach(async () => {
		sbx = await startSandbox({ ...FAST, chats: 12, webhookPayload: 'live' });
		await subscribeAll(sbx);
	});
	afterEach(async () => {
		await sbx.stop();
	});

	test('inbound from a new number: chat:created is {event_type, chat, chatapp_account} without data or message', async () => {
		const res = await call(sbx, 'POST', '/_sandbox/incoming', { phone: '+33612345678', text: 'Bonjour', name: 'Claire' });
		expect(res.status).toBe(200);
		await waitFor(
			"bodiesOf('chat:created').length === 1 && bodiesOf('message:received...",
			() => bodiesOf('chat:created').length === 1 && bodiesOf('message:received:new').length === 1,
		);
		const chat = await data(sbx, `/chats/${res.body.data.chat_id}`);
		const account = (await data(sbx, '/chatapp_accounts')).chatapp_accounts.find((a: any) => a.id === chat.chatapp_account_id);
		const [created] = bodiesOf('chat:created');
		expect(keys(created)).toEqual(['chat', 'chatapp_account', 'event_type']);
		expect(created.chat).toEqual({
			chat_id: chat.id,
			full_name: 'Claire',
			chat_url: chat.chat_url,
			is_group: false,
			phone: '+33612345678',
			responsible_name: null,
			responsible_email: null,
		});
		expect(created.chatapp_account).toEqual({ full_name: account.owner_name, email: account.owner_email, phone: account.phone });
	});

	test('message:received:new: unwrapped chat, chatapp_account and message (direction incoming)', async () => {
		const contact = (await data(sbx, '/chats?group=false')).chats.find((c: any) => c.is_allowed_to_message);
		const mate = (await data(sbx, '/workspace/teammates')).teammates.find((t: any) => t.status === 'active');
		expect((await call(sbx, 'PATCH', `/chats/${contact.id}`, { responsible: mate.email })).status).toBe(200);
		const res = await call(sbx, 'POST', '/_sandbox/incoming', { chat_id: contact.id, text: 'Is my order ready?' });
		await waitFor("bodiesOf('message:received:new').length === 1", () => bodiesOf('message:received:new').length === 1);
		const [event] = bodiesOf('message:received:new');
		const account = (await data(sbx, '/chatapp_accounts')).chatapp_accounts.find((a: any) => a.id === contact.chatapp_account_id);
		expect(keys(event)).toEqual(['chat', 'chatapp_account', 'event_type', 'message']);
		expect(event).not.toHaveProperty('data');
		expect(keys(event.chat)).toEqual(CHAT_KEYS);
		expect(event.chat).toMatchObject({
			chat_id: contact.id,
			full_name: contact.name,
			chat_url: contact.chat_url,
			is_group: false,
			phone: contact.phone,
			responsible_email: mate.email,
			responsible_name: mate.display_name,
		});
		expect(keys(event.chatapp_account)).toEqual(ACCOUNT_KEYS);
		expect(event.chatapp_account.phone).toBe(account.phone);
		expect(keys(event.message)).toEqual(MESSAGE_KEYS);
		const stored = res.body.data.message;
		expect(event.message).toEqual({
			text: 'Is my order ready?',
			direction: 'incoming',
			origin: stored.origin,
			timestamp: stored.timestamp,
			message_uid: stored.uid,
			sender: { full_name: stored.sender_name, phone: contact.phone },
			recipient: { full_name: stored.recipient_name, phone: account.phone },
			reply_to_uid: null,
			attachments: [],
		});
		expect(event.message.timestamp).toMatch(SPEC_TIMESTAMP);
		// The delivery log keeps the body as it was sent.
		const log = (await data(sbx, '/_sandbox/deliveries?event_type=message:received:new')).deliveries;
		expect(log[0].body).toEqual(event);
	});

	test('message:sent:new: direction outgoing, reply_to_uid and attachments with a working temporary_download_url', async () => {
		const contact = (await data(sbx, '/chats?group=false')).chats.find((c: any) => c.is_allowed_to_message);
		const inbound = await call(sbx, 'POST', '/_sandbox/incoming', { chat_id: contact.id, text: 'Send me the price list' });
		const file = (await call(sbx, 'POST', '/files', { download_url: 'https://cdn.example.com/a/price-list.pdf' })).body.data;
		const sent = await call(sbx, 'POST', `/chats/${contact.id}/messages`, {
			text: 'Here it is',
			file_uid: file.uid,
			reply_to: inbound.body.data.message.uid,
		});
		expect(sent.status).toBe(200);
		await waitFor("bodiesOf('message:sent:new').length === 1", () => bodiesOf('message:sent:new').length === 1);
		const [event] = bodiesOf('message:sent:new');
		expect(keys(event.message)).toEqual(MESSAGE_KEYS);
		expect(event.message).toMatchObject({
			text: 'Here it is',
			direction: 'outgoing',
			message_uid: sent.body.data.message_uid,
			reply_to_uid: inbound.body.data.message.uid,
			sender: { phone: event.chatapp_account.phone },
			recipient: { full_name: contact.name, phone: contact.phone },
		});
		expect(event.message.attachments).toEqual([
			{
				temporary_download_url: expect.stringContaining(`${sbx.url}/_sandbox/download/${file.uid}?`),
				filename: 'price-list.pdf',
				size: file.size,
				mimetype: file.mimetype,
			},
		]);
		const download = await fetch(event.message.attachments[0].temporary_download_url);
		expect(download.status).toBe(200);
		expect(download.headers.get('content-type')).toBe(file.mimetype);
	});

	test('a group message names the member as sender and the group as chat', async () => {
		const group = (await data(sbx, '/chats?group=true')).chats.find((c: any) => c.jid.endsWith('@g.us'));
		expect(group).toBeDefined();
		const res = await call(sbx, 'POST', '/_sandbox/incoming', { chat_id: group.id, text: 'Hi all' });
		await waitFor("bodiesOf('message:received:new').length === 1", () => bodiesOf('message:received:new').length === 1);
		const [event] = bodiesOf('message:received:new');
		expect(event.chat).toMatchObject({ chat_id: group.id, is_group: true, full_name: group.name });
		expect(event.message.sender).toEqual({ full_name: res.body.data.message.sender_name, phone: res.body.data.message.sender_phone });
	});

	test('payload: "spec" on /_sandbox/incoming overrides the option for that call only', async () => {
		const spec = await call(sbx, 'POST', '/_sandbox/incoming', { phone: '+4915100000001', text: 'spec please', payload: 'spec' });
		expect(spec.status).toBe(200);
		await waitFor('receiver.received.length === 2', () => receiver.received.length === 2);
		for (const { body } of receiver.received) {
			expect(keys(body)).toEqual(['data', 'event_type']);
			expect(body.data).toMatchObject({
				chat_id: spec.body.data.chat_id,
				unattended_customer: expect.any(Boolean),
				event_id: expect.any(String),
			});
		}
		expect(bodiesOf('message:received:new')[0].data).toMatchObject({ text: 'spec please', unattended_customer: true });
		await call(sbx, 'POST', '/_sandbox/incoming', { chat_id: spec.body.data.chat_id, text: 'default again' });
		await waitFor('receiver.received.length === 3', () => receiver.received.length === 3);
		expect(receiver.received[2]!.body).toMatchObject({ event_type: 'message:received:new', message: { text: 'default again' } });
	});

	test('duplicate: true redelivers the same live body', async () => {
		const contact = (await data(sbx, '/chats?group=false')).chats[0];
		await call(sbx, 'POST', '/_sandbox/incoming', { chat_id: contact.id, text: 'twice', duplicate: true });
		await waitFor('receiver.received.length === 2', () => receiver.received.length === 2);
		expect(receiver.received[0]!.body).toEqual(receiver.received[1]!.body);
		expect(receiver.received[0]!.body.message.text).toBe('twice');
	});
});

describe('webhookPayload: spec (default)', () => {
	let sbx: Sandbox;
	beforeEach(async () => {
		sbx = await startSandbox({ ...FAST, chats: 12 });
		await subscribeAll(sbx);
	});
	afterEach(async () => {
		await sbx.stop();
	});

	test('the default is the spec shape; payload: "live" switches one incoming call (its chat:created too)', async () => {
		const contact = (await data(sbx, '/chats?group=false')).chats[0];
		await call(sbx, 'POST', '/_sandbox/incoming', { chat_id: contact.id, text: 'spec' });
		await waitFor('receiver.received.length === 1', () => receiver.received.length === 1);
		expect(keys(receiver.received[0]!.body)).toEqual(['data', 'event_type']);
		const live = await call(sbx, 'POST', '/_sandbox/incoming', { phone: '+4915100000002', text: 'live', name: 'Lena', payload: 'live' });
		await waitFor('receiver.received.length === 3', () => receiver.received.length === 3);
		const [created, message] = receiver.received.slice(1).map((r) => r.body);
		expect(created).toEqual({
			event_type: 'chat:created',
			chat: expect.objectContaining({ chat_id: live.body.data.chat_id, full_name: 'Lena' }),
			chatapp_account: expect.any(Object),
		});
		expect(message).toMatchObject({
			event_type: 'message:received:new',
			chat: { chat_id: live.body.data.chat_id },
			message: { text: 'live', direction: 'incoming' },
		});
		// An outbound send still follows the option.
		await call(sbx, 'POST', `/chats/${contact.id}/messages`, { text: 'reply' });
		await waitFor("bodiesOf('message:sent:new').length === 1", () => bodiesOf('message:sent:new').length === 1);
		expect(keys(bodiesOf('message:sent:new')[0])).toEqual(['data', 'event_type']);
	});

	test('an unknown payload value is a validation error on ["payload"]', async () => {
		const res = await call(sbx, 'POST', '/_sandbox/incoming', { phone: '+4915100000003', text: 'x', payload: 'xml' });
		expect(res.status).toBe(400);
		expect(res.body.errors).toEqual([{ fields: ['payload'], msg: 'payload must be one of spec, spec-exact, live' }]);
	});

	test('an unknown webhookPayload option is rejected at start', async () => {
		await expect(startSandbox({ webhookPayload: 'xml' as never })).rejects.toThrow('webhookPayload must be one of spec, spec-exact, live');
	});
});

describe('webhookPayload: spec-exact', () => {
	let sbx: Sandbox;
	beforeEach(async () => {
		sbx = await startSandbox({ ...FAST, chats: 12, webhookPayload: 'spec-exact' });
		await subscribeAll(sbx);
	});
	afterEach(async () => {
		await sbx.stop();
	});

	test("data holds only the spec's fields: no event id, no attachment hint, no text when the message has none", async () => {
		const created = await call(sbx, 'POST', '/_sandbox/incoming', { phone: '+4915100000004', text: 'exactly', name: 'Ida' });
		await waitFor('receiver.received.length === 2', () => receiver.received.length === 2);
		const chatId = created.body.data.chat_id;
		expect(bodiesOf('chat:created')[0]).toEqual({
			event_type: 'chat:created',
			data: { chat_id: chatId, chat_name: 'Ida', unattended_customer: expect.any(Boolean) },
		});
		expect(bodiesOf('message:received:new')[0]).toEqual({
			event_type: 'message:received:new',
			data: { chat_id: chatId, chat_name: 'Ida', text: 'exactly', message_uid: created.body.data.message.uid, unattended_customer: true },
		});
		await call(sbx, 'POST', `/chats/${chatId}/messages`, { text: 'reply' });
		await waitFor("bodiesOf('message:sent:new').length === 1", () => bodiesOf('message:sent:new').length === 1);
		expect(keys(bodiesOf('message:sent:new')[0].data)).toEqual(['chat_id', 'chat_name', 'message_uid', 'text', 'unattended_customer']);
	});

	test('payload: "spec-exact" on /_sandbox/incoming switches one call', async () => {
		await sbx.stop();
		sbx = await startSandbox({ ...FAST, chats: 12 });
		await subscribeAll(sbx);
		const contact = (await data(sbx, '/chats?group=false')).chats[0];
		await call(sbx, 'POST', '/_sandbox/incoming', { chat_id: contact.id, text: 'one', payload: 'spec-exact' });
		await waitFor('receiver.received.length === 1', () => receiver.received.length === 1);
		expect(keys(receiver.received[0]!.body.data)).toEqual(['chat_id', 'chat_name', 'message_uid', 'text', 'unattended_customer']);
	});
});

describe('CLI --webhook-payload', () => {
	const root = join(__dirname, '..');
	const tsx = join(root, '..', '..', 'node_modules', '.bin', 'tsx');

	test('live: deliveries use the live shape', async () => {
		const child = spawn(tsx, ['src/cli.ts', '--port', '0', '--token', 'cli-live', '--chats', '3', '--webhook-payload', 'live'], {
			cwd: root,
		});
		try {
			let out = '';
			child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
			const url = await waitFor('/listening on (\\S+)/.exec(out)?.[1]', () => /listening on (\S+)/.exec(out)?.[1], { timeoutMs: 15000 });
			const sbx = { url, tokens: ['cli-live'] } as unknown as Sandbox;
			await call(sbx, 'POST', '/webhooks', { event_type: 'message:received:new', url: receiver.url });
			await call(sbx, 'POST', '/_sandbox/incoming', { phone: '+4915100000004', text: 'from the cli' });
			await waitFor('receiver.received.length === 1', () => receiver.received.length === 1);
			expect(receiver.received[0]!.body).toMatchObject({
				event_type: 'message:received:new',
				message: { text: 'from the cli', direction: 'incoming' },
			});
		} finally {
			const exited = new Promise((resolve) => child.once('exit', resolve));
			child.kill('SIGTERM');
			await exited;
		}
	});

	test('an unknown value exits 1 with a clear message', async () => {
		const child = spawn(tsx, ['src/cli.ts', '--port', '0', '--webhook-payload', 'xml'], { cwd: root });
		let err = '';
		child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
		const code = await new Promise((resolve) => child.once('exit', resolve));
		expect(code).toBe(1);
		expect(err).toContain('--webhook-payload expects spec, spec-exact or live, got "xml"');
	});
});
