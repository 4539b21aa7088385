import { call, data, FAST, ISO_UTC, SPEC_TIMESTAMP, startReceiver, startSandbox, waitFor, type Receiver, type Sandbox } from './helpers';

let sbx: Sandbox;
let hooks: Receiver;

async function status(uid: string): Promise<string> {
	return (await data(sbx, `/messages/${uid}`)).status;
}

beforeAll(async () => {
	sbx = await startSandbox({ ...FAST, chats: 20, accounts: 2, quota: 50, tokens: ['m1'] });
	hooks = await startReceiver();
	for (const event_type of ['message:sent:new', 'chat:created', 'message:received:new']) {
		await call(sbx, 'POST', '/webhooks', { event_type, url: hooks.url, enabled: true });
	}
});
afterAll(async () => {
	await sbx.stop();
	await hooks.stop();
});

describe('sending', () => {
	test('POST /messages to a new number: {message_uid} queued, chat created with chat_name, chat:created emitted', async () => {
		const res = await call(sbx, 'POST', '/messages', { phone: '+4915199990001', text: 'Hello 👋\nsecond line', chat_name: 'New Customer' });
		expect(res.status).toBe(200);
		expect(res.body.data).toMatchObject({ message_uid: expect.any(String), status: 'queued' });
		const chat = await data(sbx, `/chats/${res.body.data.chat_id}`);
		expect(chat).toMatchObject({ name: 'New Customer', phone: '+4915199990001', jid: '4915199990001@c.us', is_group: false });
		const created = await waitFor("hooks.received.find((r) => r.body.event_type === 'chat:created' && ...", () =>
			hooks.received.find((r) => r.body.event_type === 'chat:created' && r.body.data.chat_id === chat.id),
		);
		expect(created.body.data).toMatchObject({ chat_name: 'New Customer', jid: '4915199990001@c.us', unattended_customer: false });
		const again = await call(sbx, 'POST', '/messages', { phone: '4915199990001', text: 'same chat' });
		expect(again.body.data.chat_id).toBe(chat.id);
	});

	test('phone rule: brackets, spaces, dashes → 400 "Invalid phone number format"', async () => {
		for (const phone of ['+49 151 2345678', '+49-151-2345678', '(0151)2345678', 'abc']) {
			const res = await call(sbx, 'POST', '/messages', { phone, text: 'x' });
			expect(res.status).toBe(400);
			expect(res.body).toMatchObject({ status: 'error', message: 'Invalid phone number format', error_code: 'validation_error' });
			expect(res.body.errors[0].fields).toEqual(['phone']);
		}
	});

	test('phone rule: a number with a leading 0 (national format) is refused, never given a country code', async () => {
		for (const phone of ['015112345678', '+015112345678', '004915112345678']) {
			const res = await call(sbx, 'POST', '/messages', { phone, text: 'x' });
			expect(res.status).toBe(400);
			expect(res.body).toMatchObject({ message: 'Invalid phone number format', errors: [{ fields: ['phone'] }] });
		}
		const found = await data(sbx, '/chats?phone=15112345678');
		expect(found.chats.map((chat: any) => chat.phone)).not.toContain('+15112345678');
		// International format, + optional: stored with its +.
		const ok = await call(sbx, 'POST', '/messages', { phone: '4915199990077', text: 'x' });
		expect((await data(sbx, `/chats/${ok.body.data.chat_id}`)).phone).toBe('+4915199990077');
	});

	test('a message needs text or file_uid; phone is required', async () => {
		const noContent = await call(sbx, 'POST', '/messages', { phone: '+4915199990002' });
		expect(noContent.status).toBe(400);
		expect(noContent.body.error_code).toBe('validation_error');
		const noPhone = await call(sbx, 'POST', '/messages', { text: 'hi' });
		expect(noPhone.status).toBe(400);
		expect(noPhone.body.errors[0].fields).toEqual(['phone']);
	});

	test('status moves queued → sent → delivered → read; history chronological with ISO UTC timestamps; message:sent:new once sent', async () => {
		const res = await call(sbx, 'POST', '/messages', { phone: '+4915199990003', text: 'track me' });
		const uid = res.body.data.message_uid;
		await waitFor("(await status(uid)) === 'read'", async () => (await status(uid)) === 'read');
		const history = await data(sbx, `/messages/${uid}/status_history`);
		expect(history.map((h: any) => h.status)).toEqual(['queued', 'sent', 'delivered', 'read']);
		for (const h of history) expect(h.timestamp).toMatch(ISO_UTC);
		const times = history.map((h: any) => Date.parse(h.timestamp));
		expect([...times].sort((a, b) => a - b)).toEqual(times);
		const sent = hooks.received.filter((r) => r.body.event_type === 'message:sent:new' && r.body.data.message_uid === uid);
		expect(sent).toHaveLength(1);
		expect(sent[0]!.body.data).toMatchObject({
			text: 'track me',
			chat_id: res.body.data.chat_id,
			chat_name: expect.any(String),
			unattended_customer: false,
		});
	});

	test('GET /messages/{uid}: the message record', async () => {
		const res = await call(sbx, 'POST', '/messages', { phone: '+4915199990004', text: 'record' });
		const msg = await data(sbx, `/messages/${res.body.data.message_uid}`);
		expect(msg).toMatchObject({
			uid: res.body.data.message_uid,
			chat_id: res.body.data.chat_id,
			from_me: true,
			origin: 'Public API',
			text: 'record',
			has_attachment: false,
			message_type: 'text',
			recipient_phone: '+4915199990004',
			reply_to: null,
			reactions: {},
		});
		expect(msg.timestamp).toMatch(SPEC_TIMESTAMP);
		expect(['queued', 'sent', 'delivered', 'read']).toContain(msg.status);
	});

	test('sends are paced per workspace: consecutive sends are spaced by about pace-ms', async () => {
		const uids: string[] = [];
		for (let i = 0; i < 3; i += 1)
			uids.push((await call(sbx, 'POST', '/messages', { phone: '+4915199990005', text: `burst ${i}` })).body.data.message_uid);
		expect(await status(uids[2]!)).toBe('queued');
		await waitFor("(await status(uids[2]!)) !== 'queued'", async () => (await status(uids[2]!)) !== 'queued');
		const sentAt = await Promise.all(
			uids.map(async (u) => Date.parse((await data(sbx, `/messages/${u}/status_history`)).find((h: any) => h.status === 'sent').timestamp)),
		);
		expect(sentAt[1]! - sentAt[0]!).toBeGreaterThanOrEqual(FAST.paceMs! * 0.75 - 5);
		expect(sentAt[2]! - sentAt[1]!).toBeGreaterThanOrEqual(FAST.paceMs! * 0.75 - 5);
	});

	test('POST /chats/{id}/messages with reply_to and label; a foreign reply_to is rejected', async () => {
		const chat = (await data(sbx, '/chats?group=false')).chats.find((c: any) => c.jid.endsWith('@c.us'));
		const history = (await data(sbx, `/chats/${chat.id}/messages`)).messages;
		const res = await call(sbx, 'POST', `/chats/${chat.id}/messages`, { text: 'reply', reply_to: history[0].uid, label: 'Replied' });
		expect(res.status).toBe(200);
		expect((await data(sbx, `/messages/${res.body.data.message_uid}`)).reply_to).toBe(history[0].uid);
		expect((await data(sbx, `/chats/${chat.id}`)).labels).toContain('Replied');
		const bad = await call(sbx, 'POST', `/chats/${chat.id}/messages`, { text: 'reply', reply_to: 'NOPE' });
		expect(bad.status).toBe(400);
		expect(bad.body.errors[0].fields).toEqual(['reply_to']);
	});

	test('POST /messages/to_chat_name and /messages/to_jid (group and new contact)', async () => {
		const group = (await data(sbx, '/chats?group=true')).chats[0];
		const byName = await call(sbx, 'POST', '/messages/to_chat_name', { chat_name: group.name, text: 'by name' });
		expect(byName.body.data.chat_id).toBe(group.id);
		const byJid = await call(sbx, 'POST', '/messages/to_jid', { jid: group.jid, text: 'by jid' });
		expect(byJid.body.data.chat_id).toBe(group.id);
		const newContact = await call(sbx, 'POST', '/messages/to_jid', { jid: '4915199990006@c.us', text: 'hi' });
		expect((await data(sbx, `/chats/${newContact.body.data.chat_id}`)).phone).toBe('+4915199990006');
		const missing = await call(sbx, 'POST', '/messages/to_chat_name', { chat_name: 'No such chat' });
		expect(missing.status).toBe(400);
		const unknown = await call(sbx, 'POST', '/messages/to_chat_name', { chat_name: 'No such chat', text: 'x' });
		expect(unknown.status).toBe(404);
		const badJid = await call(sbx, 'POST', '/messages/to_jid', { jid: 'not-a-jid', text: 'x' });
		expect(badJid.status).toBe(400);
		expect(badJid.body.errors[0].fields).toEqual(['jid']);
	});

	test('broadcast lists and channels reject sends (is_allowed_to_message false)', async () => {
		const chats = (await data(sbx, '/chats')).chats;
		for (const suffix of ['@broadcast', '@newsletter']) {
			const chat = chats.find((c: any) => c.jid.endsWith(suffix));
			expect(chat.is_allowed_to_message).toBe(false);
			const res = await call(sbx, 'POST', `/chats/${chat.id}/messages`, { text: 'x' });
			expect(res.status).toBe(400);
			expect(res.body).toMatchObject({ status: 'error', error_code: 'not_supported' });
			const byJid = await call(sbx, 'POST', '/messages/to_jid', { jid: chat.jid, text: 'x' });
			expect(byJid.status).toBe(400);
		}
	});
});

describe('message history', () => {
	test('GET /chats/{id}/messages: newest first, from_me, after_message, after/before, pages of 50', async () => {
		const res = await call(sbx, 'POST', '/_sandbox/incoming', { phone: '+4915199990010', text: 'first' });
		const chatId = res.body.data.chat_id;
		const uids = [res.body.data.message.uid];
		for (let i = 0; i < 55; i += 1)
			uids.push((await call(sbx, 'POST', '/_sandbox/incoming', { chat_id: chatId, text: `in ${i}` })).body.data.message.uid);
		const out = await call(sbx, 'POST', `/chats/${chatId}/messages`, { text: 'answer' });
		uids.push(out.body.data.message_uid);
		const p1 = await data(sbx, `/chats/${chatId}/messages`);
		expect(p1.messages).toHaveLength(50);
		expect(p1.has_more_pages).toBe(true);
		expect(p1.messages[0].uid).toBe(uids[uids.length - 1]);
		const p2 = await data(sbx, `/chats/${chatId}/messages?page=2`);
		expect(p2.messages).toHaveLength(7);
		expect(p2.has_more_pages).toBe(false);
		expect([...p1.messages, ...p2.messages].map((m: any) => m.uid)).toEqual([...uids].reverse());
		const mine = await data(sbx, `/chats/${chatId}/messages?from_me=true`);
		expect(mine.messages.map((m: any) => m.uid)).toEqual([out.body.data.message_uid]);
		const afterMsg = await data(sbx, `/chats/${chatId}/messages?after_message=${uids[53]}`);
		expect(afterMsg.messages.map((m: any) => m.uid)).toEqual([uids[56], uids[55], uids[54]]);
		const future = await data(sbx, `/chats/${chatId}/messages?after=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
		expect(future.messages).toEqual([]);
		const past = await data(sbx, `/chats/${chatId}/messages?before=2000-01-01T00:00:00Z`);
		expect(past.messages).toEqual([]);
		const bad = await call(sbx, 'GET', `/chats/${chatId}/messages?after_message=NOPE`);
		expect(bad.status).toBe(400);
	});
});

describe('reactions', () => {
	test('GET/PUT (PATCH alias) /messages/{uid}/reactions; "" clears', async () => {
		const chat = (await data(sbx, '/chats?group=false')).chats[0];
		const uid = (await data(sbx, `/chats/${chat.id}/messages`)).messages[0].uid;
		const put = await call(sbx, 'PUT', `/messages/${uid}/reactions`, { reaction: '👍' });
		expect(put.status).toBe(200);
		expect(put.body.data.reactions['👍']).toBeGreaterThanOrEqual(1);
		expect(put.body.data.users).toEqual(expect.arrayContaining([expect.objectContaining({ reaction: '👍', current: true })]));
		const patch = await call(sbx, 'PATCH', `/messages/${uid}/reactions`, { reaction: '🎉' });
		expect(patch.body.data.users.filter((u: any) => u.current)).toEqual([expect.objectContaining({ reaction: '🎉' })]);
		expect((await data(sbx, `/messages/${uid}`)).reactions['🎉']).toBe(1);
		const cleared = await call(sbx, 'PUT', `/messages/${uid}/reactions`, { reaction: '' });
		expect(cleared.body.data.users.filter((u: any) => u.current)).toEqual([]);
		const got = await data(sbx, `/messages/${uid}/reactions`);
		expect(got.total).toBe(got.users.length);
		const bad = await call(sbx, 'PUT', `/messages/${uid}/reactions`, { reaction: 'nice' });
		expect(bad.status).toBe(400);
	});
});
