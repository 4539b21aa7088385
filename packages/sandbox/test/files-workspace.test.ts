import { createHmac } from 'crypto';
import { createServer } from 'http';
import type { AddressInfo } from 'net';
import { call, data, FAST, SPEC_TIMESTAMP, startSandbox, type Sandbox } from './helpers';

let sbx: Sandbox;
beforeAll(async () => {
	sbx = await startSandbox({ ...FAST, tokens: ['f1', 'f2'] });
});
afterAll(() => sbx.stop());

async function upload(form: FormData, token = 'f1') {
	const res = await fetch(`${sbx.url}/files_upload`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
	return { status: res.status, body: (await res.json()) as any };
}

describe('files', () => {
	test('POST /files_upload (multipart) → record; its temporary_download_url serves the bytes', async () => {
		const form = new FormData();
		form.append('file', new Blob([Buffer.from('hello sandbox bytes')], { type: 'text/plain' }), 'notes.txt');
		const res = await upload(form);
		expect(res.status).toBe(200);
		const file = res.body.data;
		expect(file).toEqual({
			uid: expect.any(String),
			filename: 'notes.txt',
			size: 19,
			mimetype: 'text/plain',
			uploaded_by_email: expect.any(String),
			uploaded_at: expect.stringMatching(SPEC_TIMESTAMP),
			temporary_download_url: expect.stringContaining(sbx.url),
		});
		const download = await fetch(file.temporary_download_url);
		expect(download.status).toBe(200);
		expect(await download.text()).toBe('hello sandbox bytes');
		// Always change the first signature character (a fixed "0" would be no change 1 time in 16).
		const tampered = await fetch(
			file.temporary_download_url.replace(/signature=(\w)/, (_: string, c: string) => `signature=${c === '0' ? '1' : '0'}`),
		);
		expect(tampered.status).toBe(403);
		expect((await data(sbx, `/files/${file.uid}`, 'f1')).filename).toBe('notes.txt');
	});

	test("download links are signed with a key of this process: a link to another workspace's file cannot be forged from the seed", async () => {
		const form = new FormData();
		form.append('file', new Blob([Buffer.from('workspace f2 only')], { type: 'text/plain' }), 'private.txt');
		const { uid } = (await upload(form, 'f2')).body.data;
		// What anyone who knows the seed could compute if the key were derived from it (it was: "chat-messaging-sandbox:<seed>").
		const expires = Date.now() + 60_000;
		const fromSeed = createHmac('sha256', `chat-messaging-sandbox:${FAST.seed}`).update(`${uid}:${expires}`).digest('hex').slice(0, 32);
		const forged = await fetch(`${sbx.url}/_sandbox/download/${uid}?expires=${expires}&signature=${fromSeed}`);
		expect(forged.status).toBe(403);
		expect(await forged.text()).not.toContain('workspace f2 only');
		// A signature of another length is refused too (the comparison is in constant time, on equal lengths only).
		expect((await fetch(`${sbx.url}/_sandbox/download/${uid}?expires=${expires}&signature=${fromSeed.slice(1)}`)).status).toBe(403);
	});

	test('a key passed explicitly as an option signs reproducible links (for tests that need them)', async () => {
		const keyed = await startSandbox({ ...FAST, tokens: ['k1'], downloadSigningKey: 'fixed test key' });
		try {
			const form = new FormData();
			form.append('file', new Blob([Buffer.from('keyed bytes')], { type: 'text/plain' }), 'keyed.txt');
			const res = await fetch(`${keyed.url}/files_upload`, { method: 'POST', headers: { authorization: 'Bearer k1' }, body: form });
			const { uid } = ((await res.json()) as any).data;
			const expires = Date.now() + 60_000;
			const signature = createHmac('sha256', 'fixed test key').update(`${uid}:${expires}`).digest('hex').slice(0, 32);
			const download = await fetch(`${keyed.url}/_sandbox/download/${uid}?expires=${expires}&signature=${signature}`);
			expect(download.status).toBe(200);
			expect(await download.text()).toBe('keyed bytes');
		} finally {
			await keyed.stop();
		}
	});

	test('filename and content_type fields override the part; file is required', async () => {
		const form = new FormData();
		form.append('file', new Blob([Buffer.from([0xff, 0xd8, 0xff])]), 'blob');
		form.append('filename', 'photo.jpg');
		form.append('content_type', 'image/jpeg');
		const res = await upload(form);
		expect(res.body.data).toMatchObject({ filename: 'photo.jpg', mimetype: 'image/jpeg', size: 3 });
		const empty = new FormData();
		empty.append('filename', 'x.txt');
		const missing = await upload(empty);
		expect(missing.status).toBe(400);
		expect(missing.body.errors[0].fields).toEqual(['file']);
	});

	test('size limits: media 16 MB, documents 100 MB', async () => {
		const big = Buffer.alloc(16 * 1024 * 1024 + 1, 1);
		const image = new FormData();
		image.append('file', new Blob([big], { type: 'image/png' }), 'huge.png');
		const rejected = await upload(image);
		expect(rejected.status).toBe(400);
		expect(rejected.body).toMatchObject({ error_code: 'validation_error', errors: [{ fields: ['file'] }] });
		const doc = new FormData();
		doc.append('file', new Blob([big], { type: 'application/pdf' }), 'big.pdf');
		expect((await upload(doc)).status).toBe(200);
	});

	test('POST /files from a URL: non-loopback is not fetched (name/type derived); loopback is fetched', async () => {
		const remote = await call(sbx, 'POST', '/files', { download_url: 'https://cdn.example.com/docs/Menu%202025.pdf' }, { token: 'f1' });
		expect(remote.body.data).toMatchObject({ filename: 'Menu 2025.pdf', mimetype: 'application/pdf' });
		const server = createServer((_req, res) => {
			res.writeHead(200, { 'content-type': 'image/png' });
			res.end(Buffer.from('PNGDATA'));
		});
		await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
		try {
			const local = await call(
				sbx,
				'POST',
				'/files',
				{ download_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/pic.png` },
				{ token: 'f1' },
			);
			expect(local.body.data).toMatchObject({ filename: 'pic.png', mimetype: 'image/png', size: 7 });
			expect(await (await fetch(local.body.data.temporary_download_url)).text()).toBe('PNGDATA');
		} finally {
			server.closeAllConnections();
			await new Promise((r) => server.close(r));
		}
		const bad = await call(sbx, 'POST', '/files', { download_url: 'ftp://x/y' }, { token: 'f1' });
		expect(bad.status).toBe(400);
		expect(bad.body.errors[0].fields).toEqual(['download_url']);
	});

	test('GET /files: filename filter (case-insensitive substring), files[] + has_more_pages; DELETE; other workspace → 403', async () => {
		const listed = await data(sbx, '/files?filename=NOTES', 'f1');
		expect(listed.has_more_pages).toBe(false);
		expect(listed.files.map((f: any) => f.filename)).toEqual(['notes.txt']);
		const uid = listed.files[0].uid;
		expect((await call(sbx, 'GET', `/files/${uid}`, undefined, { token: 'f2' })).status).toBe(403);
		expect((await call(sbx, 'DELETE', `/files/${uid}`, undefined, { token: 'f1' })).status).toBe(200);
		expect((await call(sbx, 'GET', `/files/${uid}`, undefined, { token: 'f1' })).status).toBe(404);
		expect((await data(sbx, '/files?filename=notes', 'f1')).files).toEqual([]);
	});
});

describe('workspace and teammates', () => {
	test('GET /workspace: record fields and quota', async () => {
		const ws = await data(sbx, '/workspace', 'f2');
		expect(ws).toEqual(
			expect.objectContaining({
				workspace_id: expect.any(String),
				display_name: expect.any(String),
				plan: expect.any(String),
				messaging_quota: {
					total: 1000,
					used: 0,
					period_start: expect.stringMatching(SPEC_TIMESTAMP),
					period_end: expect.stringMatching(SPEC_TIMESTAMP),
				},
				api_calls_quota: expect.any(Object),
				seats: expect.any(Object),
				non_recurring_quota: expect.objectContaining({ remaining_balance: expect.any(Number) }),
			}),
		);
	});

	test('GET /workspace/teammates: records', async () => {
		const { teammates } = await data(sbx, '/workspace/teammates', 'f2');
		expect(teammates.length).toBeGreaterThanOrEqual(3);
		for (const t of teammates) {
			expect(t).toEqual(
				expect.objectContaining({
					user_id: expect.any(Number),
					display_name: expect.any(String),
					email: expect.stringContaining('@'),
					status: 'active',
					created_at: expect.stringMatching(SPEC_TIMESTAMP),
					role: expect.any(String),
					chatapp_accounts: expect.any(Array),
				}),
			);
		}
	});

	test('POST /workspace/invitations: email required, role case-insensitive, team_title default; DELETE revokes', async () => {
		const res = await call(
			sbx,
			'POST',
			'/workspace/invitations',
			{ email: 'New.Person@Example.com', first_name: 'New', last_name: 'Person', role: 'Team_Supervisor' },
			{ token: 'f2' },
		);
		expect(res.status).toBe(200);
		expect(res.body.data).toMatchObject({
			email: 'new.person@example.com',
			display_name: 'New Person',
			role: 'team_supervisor',
			team_title: 'Default team',
			status: 'invited',
		});
		const dupe = await call(sbx, 'POST', '/workspace/invitations', { email: 'new.person@example.com' }, { token: 'f2' });
		expect(dupe.status).toBe(400);
		const badRole = await call(sbx, 'POST', '/workspace/invitations', { email: 'a@b.example', role: 'owner' }, { token: 'f2' });
		expect(badRole.status).toBe(400);
		expect(badRole.body.errors[0].fields).toEqual(['role']);
		const noEmail = await call(sbx, 'POST', '/workspace/invitations', { first_name: 'x' }, { token: 'f2' });
		expect(noEmail.body.errors[0].fields).toEqual(['email']);
		const team = await call(
			sbx,
			'POST',
			'/workspace/invitations',
			{ email: 'c@d.example', team_title: 'Night shift', role: 'AGENT' },
			{ token: 'f2' },
		);
		expect(team.body.data).toMatchObject({ team_title: 'Night shift', role: 'agent' });
		// An invited person is not yet a member who can be made responsible.
		const chat = (await data(sbx, '/chats', 'f2')).chats[0];
		expect((await call(sbx, 'PATCH', `/chats/${chat.id}`, { responsible: 'c@d.example' }, { token: 'f2' })).body.error_code).toBe(
			'member_not_found',
		);
		const revoked = await call(sbx, 'DELETE', `/workspace/invitations/${res.body.data.user_id}`, undefined, { token: 'f2' });
		expect(revoked.status).toBe(200);
		const emails = (await data(sbx, '/workspace/teammates', 'f2')).teammates.map((t: any) => t.email);
		expect(emails).not.toContain('new.person@example.com');
		const again = await call(sbx, 'DELETE', `/workspace/invitations/${res.body.data.user_id}`, undefined, { token: 'f2' });
		expect(again.status).toBe(404);
		expect(again.body.error_code).toBe('member_not_found');
	});
});
