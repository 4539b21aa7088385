import { call, data, FAST, startSandbox, waitFor, type Sandbox } from './helpers';

describe('credits, quota and accounts', () => {
	let sbx: Sandbox;
	beforeEach(async () => {
		// Status delays off: only the control API moves delivered/read/failed here.
		sbx = await startSandbox({ ...FAST, quota: 4, accounts: 2, deliveredAfterMs: 0, readAfterMs: 0, paceMs: 30 });
	});
	afterEach(() => sbx.stop());

	test('1 credit per text, 2 with an attachment; GET /workspace reflects the credits spent', async () => {
		const file = await call(sbx, 'POST', '/files', { download_url: 'https://cdn.example.com/a/price-list.pdf' });
		expect((await data(sbx, '/workspace')).messaging_quota).toMatchObject({ total: 4, used: 0 });
		await call(sbx, 'POST', '/messages', { phone: '+4915100000001', text: 'text only' });
		expect((await data(sbx, '/workspace')).messaging_quota.used).toBe(1);
		const withFile = await call(sbx, 'POST', '/messages', { phone: '+4915100000001', text: 'see attached', file_uid: file.body.data.uid });
		expect(withFile.status).toBe(200);
		expect((await data(sbx, '/workspace')).messaging_quota.used).toBe(3);
		const msg = await data(sbx, `/messages/${withFile.body.data.message_uid}`);
		expect(msg).toMatchObject({ has_attachment: true, attachment_filename: 'price-list.pdf', message_type: 'document' });
		expect(msg.attachment_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
	});

	test('insufficient credits → "Message quota exceeded" (quota_exceeded, 402); a failed message restores its credits', async () => {
		const uids: string[] = [];
		for (let i = 0; i < 4; i += 1)
			uids.push((await call(sbx, 'POST', '/messages', { phone: '+4915100000002', text: `m${i}` })).body.data.message_uid);
		const over = await call(sbx, 'POST', '/messages', { phone: '+4915100000002', text: 'one too many' });
		expect(over.status).toBe(402);
		expect(over.body).toMatchObject({ status: 'error', message: 'Message quota exceeded', error_code: 'quota_exceeded' });
		expect(over.body.errors).toBeUndefined();
		const failed = await call(sbx, 'POST', `/_sandbox/messages/${uids[3]}/status`, { status: 'failed' });
		expect(failed.body.data.status).toBe('failed');
		expect((await data(sbx, '/workspace')).messaging_quota.used).toBe(3);
		expect((await data(sbx, `/messages/${uids[3]}/status_history`)).map((h: any) => h.status)).toContain('failed');
		const nowOk = await call(sbx, 'POST', '/messages', { phone: '+4915100000002', text: 'fits again' });
		expect(nowOk.status).toBe(200);
	});

	test('control API drives delivered and read (automatic moves off)', async () => {
		const uid = (await call(sbx, 'POST', '/messages', { phone: '+4915100000003', text: 'drive me' })).body.data.message_uid;
		await waitFor(
			"(await data(sbx, `/messages/${uid}`)).status === 'sent'",
			async () => (await data(sbx, `/messages/${uid}`)).status === 'sent',
		);
		await new Promise((r) => setTimeout(r, 100));
		expect((await data(sbx, `/messages/${uid}`)).status).toBe('sent');
		await call(sbx, 'POST', `/_sandbox/messages/${uid}/status`, { status: 'delivered' });
		expect((await data(sbx, `/messages/${uid}`)).status).toBe('delivered');
		await call(sbx, 'POST', `/_sandbox/messages/${uid}/status`, { status: 'read' });
		expect((await data(sbx, `/messages/${uid}/status_history`)).map((h: any) => h.status)).toEqual(['queued', 'sent', 'delivered', 'read']);
		const late = await call(sbx, 'POST', `/_sandbox/messages/${uid}/status`, { status: 'failed' });
		expect(late.status).toBe(400);
	});

	test('GET /chatapp_accounts; a disconnected account blocks sends into its chats; default sender = most recently connected', async () => {
		const accounts = (await data(sbx, '/chatapp_accounts')).chatapp_accounts;
		expect(accounts).toHaveLength(2);
		for (const a of accounts)
			expect(a).toEqual(
				expect.objectContaining({
					id: expect.stringMatching(/@c\.us$/),
					phone: expect.stringMatching(/^\+\d+$/),
					status: 'connected',
					owner_name: expect.any(String),
					owner_email: expect.any(String),
					account_name: expect.any(String),
					connected_on: expect.any(String),
				}),
			);
		const [a, b] = accounts;
		const chatOfA = (await data(sbx, `/chats?group=false&chatapp_account_id=${encodeURIComponent(a.id)}`)).chats.find((c: any) =>
			c.jid.endsWith('@c.us'),
		);
		await call(sbx, 'POST', `/_sandbox/accounts/${encodeURIComponent(a.id)}/disconnect`);
		expect((await data(sbx, `/chats/${chatOfA.id}`)).is_allowed_to_message).toBe(false);
		const blocked = await call(sbx, 'POST', `/chats/${chatOfA.id}/messages`, { text: 'x' });
		expect(blocked.status).toBe(400);
		expect(blocked.body.error_code).toBe('not_supported');
		const viaB = await call(sbx, 'POST', '/messages', { phone: '+4915100000004', text: 'x' });
		expect((await data(sbx, `/chats/${viaB.body.data.chat_id}`)).chatapp_account_id).toBe(b.id);
		const explicit = await call(sbx, 'POST', '/messages', { phone: '+4915100000004', text: 'x', chatapp_account_id: a.id });
		expect(explicit.status).toBe(400);
		await call(sbx, 'POST', `/_sandbox/accounts/${encodeURIComponent(b.id)}/disconnect`);
		const none = await call(sbx, 'POST', '/messages', { phone: '+4915100000005', text: 'x' });
		expect(none.status).toBe(400);
		expect(none.body).toMatchObject({ status: 'error', message: 'No connected chat-app account' });
		await call(sbx, 'POST', `/_sandbox/accounts/${encodeURIComponent(a.id)}/connect`);
		expect((await data(sbx, `/chats/${chatOfA.id}`)).is_allowed_to_message).toBe(true);
		const again = await call(sbx, 'POST', '/messages', { phone: '+4915100000006', text: 'x' });
		expect((await data(sbx, `/chats/${again.body.data.chat_id}`)).chatapp_account_id).toBe(a.id);
	});
});
