import { call, data, FAST, startSandbox, type Sandbox } from './helpers';

let sbx: Sandbox;
beforeAll(async () => {
	sbx = await startSandbox({ ...FAST, tokens: ['alpha', 'beta'] });
});
afterAll(() => sbx.stop());

describe('authentication', () => {
	test('no Authorization header → 401 missing_credentials', async () => {
		const res = await call(sbx, 'GET', '/chats', undefined, { token: null });
		expect(res.status).toBe(401);
		expect(res.body).toMatchObject({ status: 'error', error_code: 'missing_credentials' });
		expect(res.body.errors).toBeUndefined();
	});

	test('empty or non-Bearer header → 401 missing_credentials', async () => {
		for (const header of ['', 'Bearer ', 'Basic YWxwaGE6eA==', 'alpha']) {
			const res = await call(sbx, 'GET', '/chats', undefined, { token: null, headers: { authorization: header } });
			expect(res.status).toBe(401);
			expect(res.body.error_code).toBe('missing_credentials');
		}
	});

	test('unknown token → 401 invalid_token', async () => {
		const res = await call(sbx, 'GET', '/workspace', undefined, { token: 'nope' });
		expect(res.status).toBe(401);
		expect(res.body).toMatchObject({ status: 'error', error_code: 'invalid_token' });
		expect(typeof res.body.message).toBe('string');
	});

	test('every endpoint needs the token (control API too)', async () => {
		for (const [method, path] of [
			['POST', '/messages'],
			['GET', '/files'],
			['DELETE', '/webhooks/1'],
			['POST', '/_sandbox/incoming'],
		]) {
			const res = await call(sbx, method!, path!, undefined, { token: null });
			expect(res.status).toBe(401);
		}
	});

	test('each token is its own workspace; another workspace’s chat → 403 permission_denied "Access denied"', async () => {
		const a = await data(sbx, '/workspace', 'alpha');
		const b = await data(sbx, '/workspace', 'beta');
		expect(a.workspace_id).not.toBe(b.workspace_id);
		const betaChat = (await data(sbx, '/chats', 'beta')).chats[0];
		const alphaIds = (await data(sbx, '/chats', 'alpha')).chats.map((c: { id: number }) => c.id);
		expect(alphaIds).not.toContain(betaChat.id);
		const res = await call(sbx, 'GET', `/chats/${betaChat.id}`, undefined, { token: 'alpha' });
		expect(res.status).toBe(403);
		expect(res.body).toMatchObject({ status: 'error', message: 'Access denied', error_code: 'permission_denied' });
		const send = await call(sbx, 'POST', `/chats/${betaChat.id}/messages`, { text: 'x' }, { token: 'alpha' });
		expect(send.status).toBe(403);
	});
});

describe('envelopes and routing', () => {
	test('success is {status:"ok", data}', async () => {
		const res = await call(sbx, 'GET', '/workspace');
		expect(res.status).toBe(200);
		expect(res.body.status).toBe('ok');
		expect(res.body.data).toEqual(expect.objectContaining({ workspace_id: expect.any(String) }));
	});

	test('unknown path → 404 JSON error', async () => {
		const res = await call(sbx, 'GET', '/nothing/here');
		expect(res.status).toBe(404);
		expect(res.headers.get('content-type')).toContain('application/json');
		expect(res.body).toMatchObject({ status: 'error' });
	});

	test('a trailing slash → 404 HTML page', async () => {
		const res = await call(sbx, 'GET', '/chats/');
		expect(res.status).toBe(404);
		expect(res.headers.get('content-type')).toContain('text/html');
		expect(res.text).toContain('<html');
	});

	test('unknown chat id → 404 JSON', async () => {
		const res = await call(sbx, 'GET', '/chats/999');
		expect(res.status).toBe(404);
		expect(res.body.status).toBe('error');
	});

	test('non-JSON body → 400', async () => {
		const res = await call(sbx, 'POST', '/webhooks', undefined, { raw: '{not json', headers: { 'content-type': 'application/json' } });
		expect(res.status).toBe(400);
		expect(res.body).toMatchObject({ status: 'error', error_code: 'validation_error' });
		const form = await call(sbx, 'POST', '/messages', undefined, {
			raw: 'phone=1',
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
		});
		expect(form.status).toBe(400);
	});

	test('validation errors carry errors[{fields,msg}] with paths from the request root (keys, and indexes as strings: the spec says array of string)', async () => {
		const chat = (await data(sbx, '/chats')).chats[0];
		const res = await call(sbx, 'PUT', `/chats/${chat.id}/labels`, { labels: ['ok', 42] });
		expect(res.status).toBe(400);
		expect(res.body.error_code).toBe('validation_error');
		expect(res.body.errors).toEqual([{ fields: ['labels', '1'], msg: expect.any(String) }]);
	});

	test('unknown body fields are rejected with their path', async () => {
		const chat = (await data(sbx, '/chats')).chats[0];
		const res = await call(sbx, 'PATCH', `/chats/${chat.id}`, { responsible_email: 'x@y.z' });
		expect(res.status).toBe(400);
		expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ fields: ['responsible_email'] })]));
	});

	test('wrong method on a known path → 405 with Allow', async () => {
		const res = await call(sbx, 'DELETE', '/chats');
		expect(res.status).toBe(405);
		expect(res.headers.get('allow')).toContain('GET');
	});
});
