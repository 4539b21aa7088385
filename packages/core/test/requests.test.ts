/** Each descriptor produces the request the spec describes: method, path, query and body. */
import { Executor, OPERATIONS, operationId } from '../src';
import { ok, scripted, virtualTiming } from '../../../test/support/scripted-transport';

interface Expected {
	input: Record<string, unknown>;
	method: string;
	/** Path and query as sent, relative to the base URL. */
	url: string;
	body?: unknown;
}

const CASES: Record<string, Expected> = {
	'chat:getAll': {
		input: {
			label: 'vip, new',
			group: false,
			read: 'false',
			name: 'Acme Corp,bob',
			phone: '+4915112345678',
			closed: true,
			ai_autoresponse_enabled: true,
			responsible: ['a@x.io', 'b@x.io'],
			chatapp_account_id: '49151@c.us',
			created_after: '2026-01-01T00:00:00Z',
			created_before: '2026-02-01T00:00:00Z',
			page: 2,
		},
		method: 'GET',
		url: '/chats?label=vip%2Cnew&chatapp_account_id=49151%40c.us&group=false&responsible=a%40x.io%2Cb%40x.io&name=Acme+Corp%2Cbob&phone=%2B4915112345678&read=false&closed=true&ai_autoresponse_enabled=true&created_after=2026-01-01T00%3A00%3A00Z&created_before=2026-02-01T00%3A00%3A00Z&page=2',
	},
	'chat:get': { input: { chat_id: 42 }, method: 'GET', url: '/chats/42' },
	'chat:update': {
		input: { chat_id: '42', responsible: '', closed: false, name: 'New' },
		method: 'PATCH',
		url: '/chats/42',
		body: { responsible: '', closed: false, name: 'New' },
	},
	'chat:close': { input: { chat_id: 1 }, method: 'PATCH', url: '/chats/1', body: { closed: true } },
	'chat:reopen': { input: { chat_id: 1 }, method: 'PATCH', url: '/chats/1', body: { closed: false } },
	'chat:assign': {
		input: { chat_id: 1, responsible: 'ann@example.com' },
		method: 'PATCH',
		url: '/chats/1',
		body: { responsible: 'ann@example.com' },
	},
	'chat:unassign': { input: { chat_id: 1 }, method: 'PATCH', url: '/chats/1', body: { responsible: '' } },
	'chat:markRead': { input: { chat_id: 1 }, method: 'PATCH', url: '/chats/1', body: { read: true } },
	'chat:markUnread': { input: { chat_id: 1 }, method: 'PATCH', url: '/chats/1', body: { read: false } },
	'chat:rename': { input: { chat_id: 1, name: 'Bob (VIP)' }, method: 'PATCH', url: '/chats/1', body: { name: 'Bob (VIP)' } },
	'chat:setAiAutoresponse': {
		input: { chat_id: 1, ai_autoresponse_enabled: false },
		method: 'PATCH',
		url: '/chats/1',
		body: { ai_autoresponse_enabled: false },
	},
	'label:get': { input: { chat_id: 7 }, method: 'GET', url: '/chats/7/labels' },
	'label:add': { input: { chat_id: 7, labels: 'a, b' }, method: 'PUT', url: '/chats/7/labels', body: { labels: ['a', 'b'] } },
	'label:replace': { input: { chat_id: 7, labels: ['x'] }, method: 'POST', url: '/chats/7/labels', body: { labels: ['x'] } },
	'label:removeAll': { input: { chat_id: 7 }, method: 'POST', url: '/chats/7/labels', body: { labels: [] } },
	'note:add': { input: { chat_id: 7, text: 'called back' }, method: 'POST', url: '/chats/7/notes', body: { text: 'called back' } },
	'message:sendToPhone': {
		input: { phone: '4915112345678', text: 'Hi\nthere 👋', chat_name: 'Bob', label: 'lead', chatapp_account_id: '4930@c.us' },
		method: 'POST',
		url: '/messages',
		body: { phone: '4915112345678', text: 'Hi\nthere 👋', chat_name: 'Bob', label: 'lead', chatapp_account_id: '4930@c.us' },
	},
	'message:sendToChat': {
		input: { chat_id: 3, text: 'Hello', reply_to: 'm1', label: 'x' },
		method: 'POST',
		url: '/chats/3/messages',
		body: { text: 'Hello', reply_to: 'm1', label: 'x' },
	},
	'message:sendToChatName': {
		input: { chat_name: 'Team A', file_uid: 'f1' },
		method: 'POST',
		url: '/messages/to_chat_name',
		body: { chat_name: 'Team A', file_uid: 'f1' },
	},
	'message:sendToJid': {
		input: { jid: '1203630@g.us', text: 'Hi all' },
		method: 'POST',
		url: '/messages/to_jid',
		body: { jid: '1203630@g.us', text: 'Hi all' },
	},
	'message:get': { input: { message_uid: 'abc/1' }, method: 'GET', url: '/messages/abc%2F1' },
	'message:getStatusHistory': { input: { message_uid: 'abc' }, method: 'GET', url: '/messages/abc/status_history' },
	'message:getAll': {
		input: { chat_id: 3, from_me: true, after_message: 'm9', page: 1 },
		method: 'GET',
		url: '/chats/3/messages?from_me=true&after_message=m9&page=1',
	},
	'reaction:get': { input: { uid: 'm1' }, method: 'GET', url: '/messages/m1/reactions' },
	'reaction:set': { input: { uid: 'm1', reaction: '👍' }, method: 'PUT', url: '/messages/m1/reactions', body: { reaction: '👍' } },
	'reaction:remove': { input: { uid: 'm1' }, method: 'PUT', url: '/messages/m1/reactions', body: { reaction: '' } },
	'file:getAll': { input: { filename: 'invoice', page: 1 }, method: 'GET', url: '/files?filename=invoice&page=1' },
	'file:uploadFromUrl': {
		input: { download_url: 'https://cdn.example.com/a.pdf', filename: 'a.pdf' },
		method: 'POST',
		url: '/files',
		body: { download_url: 'https://cdn.example.com/a.pdf', filename: 'a.pdf' },
	},
	'file:get': { input: { uid: 'f1' }, method: 'GET', url: '/files/f1' },
	'file:delete': { input: { uid: 'f1' }, method: 'DELETE', url: '/files/f1' },
	'account:getAll': { input: {}, method: 'GET', url: '/chatapp_accounts' },
	'workspace:get': { input: {}, method: 'GET', url: '/workspace' },
	'teammate:getAll': { input: {}, method: 'GET', url: '/workspace/teammates' },
	'invitation:create': {
		input: { email: 'new@example.com', role: 'AGENT', first_name: 'Nia' },
		method: 'POST',
		url: '/workspace/invitations',
		body: { email: 'new@example.com', first_name: 'Nia', role: 'agent' },
	},
	'invitation:revoke': { input: { user_id: 'u-9' }, method: 'DELETE', url: '/workspace/invitations/u-9' },
	'webhook:create': {
		input: { event_type: 'chat:created', url: 'https://hooks.example.com/x' },
		method: 'POST',
		url: '/webhooks',
		body: { event_type: 'chat:created', url: 'https://hooks.example.com/x', enabled: true },
	},
	'webhook:getAll': { input: {}, method: 'GET', url: '/webhooks' },
	'webhook:get': { input: { id: 5 }, method: 'GET', url: '/webhooks/5' },
	'webhook:update': { input: { id: 5, enabled: false }, method: 'PUT', url: '/webhooks/5', body: { enabled: false } },
	'webhook:delete': { input: { id: 5 }, method: 'DELETE', url: '/webhooks/5' },
};

const BASE = 'https://api.example.com';

async function requestOf(id: string, input: Record<string, unknown>) {
	const { transport, requests } = scripted(
		ok({ has_more_pages: false, chats: [], messages: [], files: [], labels: [], chatapp_accounts: [], teammates: [], webhooks: [] }),
	);
	const executor = new Executor({ baseUrl: `${BASE}//`, transport, timing: virtualTiming(), token: 'secret-token' });
	await executor.run(id, input);
	return requests;
}

describe('descriptor requests', () => {
	it('has a case for every operation except the multipart upload, the read-modify-write remove and the two-step download (tested below)', () => {
		const covered = new Set([...Object.keys(CASES), 'file:upload', 'label:remove', 'file:download']);
		expect(OPERATIONS.map(operationId).filter((id) => !covered.has(id))).toEqual([]);
	});

	it.each(Object.entries(CASES))('%s', async (id, expected) => {
		const [request, ...rest] = await requestOf(id, expected.input);
		expect(rest).toHaveLength(0);
		expect(request.method).toBe(expected.method);
		expect(request.url).toBe(BASE + expected.url);
		expect(request.headers.Authorization).toBe('Bearer secret-token');
		if (expected.body === undefined) expect(request.body).toBeUndefined();
		else {
			expect(request.headers['Content-Type']).toBe('application/json');
			expect(JSON.parse(request.body as string)).toEqual(expected.body);
		}
	});

	it('file:upload sends multipart/form-data with the bytes and file name', async () => {
		const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 255]);
		const [request] = await requestOf('file:upload', {
			file: { data: bytes, filename: 'logo.png', mimeType: 'image/png' },
			filename: 'logo.png',
		});
		expect(request.method).toBe('POST');
		expect(request.url).toBe(`${BASE}/files_upload`);
		const boundary = /boundary=(.+)$/.exec(request.headers['Content-Type'])![1];
		const parsed = await new Request('http://x', {
			method: 'POST',
			body: request.body as unknown as BodyInit,
			headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
		}).formData();
		const file = parsed.get('file') as File;
		expect(file.name).toBe('logo.png');
		expect(file.type).toBe('image/png');
		expect(new Uint8Array(await file.arrayBuffer())).toEqual(bytes);
		expect(parsed.get('filename')).toBe('logo.png');
	});

	it('label:remove reads the set, then replaces it without the removed labels', async () => {
		const { transport, requests } = scripted(ok({ labels: ['vip', 'lead', 'old'] }), ok({ labels: ['vip'] }));
		const executor = new Executor({ baseUrl: BASE, transport, timing: virtualTiming() });
		await executor.run('label:remove', { chat_id: 9, labels: 'lead,old' });
		expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([`GET ${BASE}/chats/9/labels`, `POST ${BASE}/chats/9/labels`]);
		expect(JSON.parse(requests[1].body as string)).toEqual({ labels: ['vip'] });
	});

	it('label:remove of every label replaces the set with an empty one', async () => {
		const { transport, requests } = scripted(ok({ labels: ['vip'] }), ok({ labels: [] }));
		await new Executor({ baseUrl: BASE, transport, timing: virtualTiming() }).run('label:remove', { chat_id: 9, labels: ['vip', 'gone'] });
		expect(JSON.parse(requests[1].body as string)).toEqual({ labels: [] });
	});

	it('label:replace refuses an empty value, naming the field, before any request: a blank is never a silent wipe', async () => {
		for (const labels of [[], '', '  ', ' , ,', null]) {
			const attempt = requestOf('label:replace', { chat_id: 1, labels });
			await expect(attempt).rejects.toMatchObject({ kind: 'input', field: 'labels' });
			await expect(attempt).rejects.toThrow(/Replace All needs at least one label.*Remove All/);
		}
		await expect(requestOf('label:add', { chat_id: 1, labels: [] })).rejects.toMatchObject({ field: 'labels' });
	});

	it('label:removeAll is the explicit way to clear every label: the empty set, no labels asked for', async () => {
		const [request] = await requestOf('label:removeAll', { chat_id: 1 });
		expect(request.method).toBe('POST');
		expect(request.url).toBe(`${BASE}/chats/1/labels`);
		expect(JSON.parse(request.body as string)).toEqual({ labels: [] });
	});

	it('unwraps data and the descriptor member', async () => {
		const { transport } = scripted(ok({ labels: ['a'] }));
		const executor = new Executor({ baseUrl: BASE, transport, timing: virtualTiming() });
		await expect(executor.run('label:get', { chat_id: 1 })).resolves.toEqual(['a']);
	});

	it('sends no Authorization header of its own when the transport authenticates', async () => {
		const { transport, requests } = scripted(ok({}));
		await new Executor({ baseUrl: BASE, transport, timing: virtualTiming() }).run('workspace:get');
		expect(requests[0].headers.Authorization).toBeUndefined();
	});
});

describe('file:download', () => {
	const record = (url: string) => ({ uid: 'f1', filename: 'scan.pdf', mimetype: 'application/pdf', temporary_download_url: url });
	const bytes = new Uint8Array([37, 80, 68, 70]);
	const download = async (url: string) => {
		const { transport, requests } = scripted(ok(record(url)), { status: 200, headers: { 'content-type': 'application/pdf' }, body: bytes });
		const executor = new Executor({ baseUrl: BASE, transport, timing: virtualTiming(), token: 'secret-token' });
		return { file: await executor.run('file:download', { uid: 'f1' }), requests };
	};

	it('reads the record, then fetches its link as bytes; the token never goes to another host', async () => {
		const { file, requests } = await download('https://cdn.files.example/f1?sig=abc');
		expect(requests.map((request) => `${request.method} ${request.url}`)).toEqual([
			`GET ${BASE}/files/f1`,
			'GET https://cdn.files.example/f1?sig=abc',
		]);
		expect(requests[1]).toMatchObject({ responseType: 'bytes', authenticate: false });
		expect(JSON.stringify(requests[1].headers)).not.toContain('secret-token');
		expect(file).toEqual({
			data: bytes,
			filename: 'scan.pdf',
			mimeType: 'application/pdf',
			file: record('https://cdn.files.example/f1?sig=abc'),
		});
	});

	it('a link on the service itself is fetched with the token', async () => {
		const { requests } = await download(`${BASE}/download/f1?sig=abc`);
		expect(requests[1]).toMatchObject({ authenticate: true, headers: { Authorization: 'Bearer secret-token' } });
	});

	it('a record without a link is an error naming what came back', async () => {
		const { transport } = scripted(ok({ uid: 'f1' }));
		const executor = new Executor({ baseUrl: BASE, transport, timing: virtualTiming() });
		await expect(executor.run('file:download', { uid: 'f1' })).rejects.toThrow(
			'without data.temporary_download_url; it sent an object with uid',
		);
	});

	it('names the file from Content-Disposition or the URL when the caller knows nothing', async () => {
		const { transport } = scripted(
			{ status: 200, headers: { 'content-disposition': "attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf" }, body: bytes },
			{ status: 200, headers: {}, body: bytes },
		);
		const executor = new Executor({ baseUrl: BASE, transport, timing: virtualTiming() });
		await expect(executor.download('https://cdn.example/a/b.txt')).resolves.toMatchObject({ filename: 'résumé.pdf' });
		await expect(executor.download('https://cdn.example/a/b.txt')).resolves.toMatchObject({
			filename: 'b.txt',
			mimeType: 'application/octet-stream',
		});
	});
});
