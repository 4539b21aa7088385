/**
 * What a refused request leaves as it was, and what it is told: a code or a refresh token refused for a mistake in
 * the request stays good, a consent survives a wrong workspace token but is answered once, one person's sessions do
 * not push out another's, and errors say what is wrong without a stack, a network detail or a body in the log. On a
 * server of its own (the SDK's rate limits count per server: the flow tests use up their share).
 * Needs Node 22.13 or later (node:sqlite): run by `npm run test:mcp-oauth` on Node 24.
 */
import { randomBytes } from 'node:crypto';

import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';

import { SecretBox, tokenHash } from '../../src/store/secretBox';
import { MAX_SESSIONS_PER_OWNER } from '../../src/transports/sessions';
import {
	answerConsent,
	connect,
	mcpPost,
	openConsent,
	pkce,
	REDIRECT,
	register,
	startOAuthServer,
	tokenRequest,
	type RunningOAuthServer,
	captureStderr,
	newClientConsent,
} from './oauth-support';

const WORKSPACE_TOKEN = `ws-${Math.random().toString(36).slice(2, 14)}`;
let sandbox: RunningSandbox;
let server: RunningOAuthServer;
let stderr: ReturnType<typeof captureStderr>;

beforeAll(async () => {
	stderr = captureStderr();
	sandbox = await startSandbox({ tokens: [WORKSPACE_TOKEN], chats: 2, port: 0 });
	server = await startOAuthServer({ baseUrl: sandbox.url });
});

afterAll(async () => {
	await server?.stop();
	await sandbox?.stop();
	stderr?.restore();
});

/** A consent answered, its code not yet exchanged. */
async function codeFor(clientId: string): Promise<{ code: string; verifier: string }> {
	const { verifier, challenge } = pkce();
	const page = await openConsent(server.url, {
		response_type: 'code',
		client_id: clientId,
		redirect_uri: REDIRECT,
		code_challenge: challenge,
		code_challenge_method: 'S256',
		state: 'st',
	});
	const answer = await answerConsent(server.url, page, { workspace_token: WORKSPACE_TOKEN });
	return { code: new URL(answer.location!).searchParams.get('code')!, verifier };
}

describe('a refused exchange leaves the code or the refresh token as it was', () => {
	test('a refresh refused for its scope or resource: the same token then refreshes, and the grant stands', async () => {
		const connected = await connect(server.url, WORKSPACE_TOKEN, { access: 'read-only' });
		const refresh = (extra: Record<string, string>) =>
			tokenRequest(server.url, {
				grant_type: 'refresh_token',
				refresh_token: connected.refreshToken,
				client_id: connected.clientId,
				...extra,
			});
		expect(await refresh({ scope: 'all' })).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
		expect(await refresh({ resource: 'https://other.example/mcp' })).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
		// A word this server does not know is refused by name, not dropped into an empty scope.
		const bogus = await refresh({ scope: 'bogus' });
		expect(bogus).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
		expect(bogus.body.error_description).toContain('bogus');
		const narrowed = await refresh({ scope: 'default read-only' });
		expect(narrowed.status).toBe(200);
		expect(narrowed.body.scope).toBe('default read-only');
		expect((await mcpPost(server.url, narrowed.body.access_token, { method: 'tools/list' })).status).toBe(200);
	});

	test('a refresh token presented by another client is refused without being touched: never put back, its expiry never renewed', async () => {
		const connected = await connect(server.url, WORKSPACE_TOKEN);
		const other = await register(server.url);
		const puts: string[] = [];
		const put = server.oauth.store.put.bind(server.oauth.store);
		const spy = jest.spyOn(server.oauth.store, 'put').mockImplementation((kind, key, value, ttl) => {
			puts.push(`${kind}:${key}`);
			return put(kind, key, value, ttl);
		});
		try {
			const stolen = await tokenRequest(server.url, {
				grant_type: 'refresh_token',
				refresh_token: connected.refreshToken,
				client_id: other.client_id,
			});
			expect(stolen).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
			expect(puts).toEqual([]);
		} finally {
			spy.mockRestore();
		}
		expect(await server.oauth.store.get('refresh', tokenHash(connected.refreshToken))).toBeTruthy();
		const own = await tokenRequest(server.url, {
			grant_type: 'refresh_token',
			refresh_token: connected.refreshToken,
			client_id: connected.clientId,
		});
		expect(own.status).toBe(200);
	});

	test('a code sent with a wrong redirect_uri, resource or client is kept: the corrected request gets the tokens', async () => {
		const { client_id } = await register(server.url);
		const other = await register(server.url);
		const { code, verifier } = await codeFor(client_id);
		const exchange = (extra: Record<string, string>) =>
			tokenRequest(server.url, {
				grant_type: 'authorization_code',
				code,
				code_verifier: verifier,
				client_id,
				redirect_uri: REDIRECT,
				...extra,
			});
		expect(await exchange({ redirect_uri: 'http://127.0.0.1:9/elsewhere' })).toMatchObject({
			status: 400,
			body: { error: 'invalid_grant' },
		});
		expect(await exchange({ resource: 'https://other.example/mcp' })).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
		expect(await exchange({ client_id: other.client_id })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
		const tokens = await exchange({});
		expect(tokens.status).toBe(200);
		// Single use all the same: the code again is refused and revokes what it gave.
		expect(await exchange({})).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
		expect((await mcpPost(server.url, tokens.body.access_token, { method: 'tools/list' })).status).toBe(401);
	});

	test('a wrong PKCE verifier uses the code up: the right verifier afterwards gets nothing', async () => {
		const { client_id } = await register(server.url);
		const { code, verifier } = await codeFor(client_id);
		const exchange = (codeVerifier: string) =>
			tokenRequest(server.url, { grant_type: 'authorization_code', code, code_verifier: codeVerifier, client_id, redirect_uri: REDIRECT });
		expect(await exchange(pkce().verifier)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
		expect(await exchange(verifier)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
	});
});

describe('the consent form', () => {
	test('sent six times at once, it is answered once: one code, the others refused', async () => {
		const page = await newClientConsent(server.url);
		const answers = await Promise.all(
			Array.from({ length: 6 }, () => answerConsent(server.url, page, { workspace_token: WORKSPACE_TOKEN })),
		);
		expect(answers.map((answer) => answer.status).sort()).toEqual([303, 403, 403, 403, 403, 403]);
	});

	test('after a wrong workspace token the same form can be sent again, and once it gave a code it cannot', async () => {
		const page = await newClientConsent(server.url);
		expect((await answerConsent(server.url, page, { workspace_token: 'not-the-token' })).status).toBe(400);
		expect((await answerConsent(server.url, page, { workspace_token: WORKSPACE_TOKEN })).status).toBe(303);
		const replayed = await answerConsent(server.url, page, { workspace_token: WORKSPACE_TOKEN });
		expect(replayed.status).toBe(403);
		expect(replayed.location).toBeNull();
	});
});

describe('errors are answered short, without a stack, and stderr.logged without what the request carried', () => {
	const noStack = (text: string) => expect(text).not.toMatch(/^\s*at /m);

	test('a consent cookie that is not URI-encoded is no cookie: 403, no stack', async () => {
		const page = await newClientConsent(server.url);
		const answer = await answerConsent(
			server.url,
			{ ...page, cookie: 'chat-messaging-consent=%E0%A4%A' },
			{ workspace_token: WORKSPACE_TOKEN },
		);
		expect(answer.status).toBe(403);
		noStack(answer.text);
	});

	test('a /register body that is not JSON: 400 invalid_request, and neither the answer nor the log quotes it', async () => {
		const before = stderr.logged.length;
		const body = '{"client_name": "leaky-body-marker", ';
		const response = await fetch(`${server.url}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
		const text = await response.text();
		expect(response.status).toBe(400);
		expect(JSON.parse(text)).toMatchObject({ error: 'invalid_request' });
		expect(text).not.toContain('leaky-body-marker');
		noStack(text);
		const log = stderr.logged.slice(before).join('');
		expect(log).toContain('POST /register answered 400');
		expect(log).not.toContain('leaky-body-marker');
	});

	test('bodies too large for /register and /consent: 413, short, without a stack', async () => {
		const large = 'x'.repeat(200 * 1024);
		const register = await fetch(`${server.url}/register`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ client_name: large, redirect_uris: [REDIRECT] }),
		});
		const registerText = await register.text();
		expect(register.status).toBe(413);
		expect(JSON.parse(registerText)).toMatchObject({ error: 'invalid_request' });
		noStack(registerText);
		const consent = await fetch(`${server.url}/consent`, {
			method: 'POST',
			headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
			body: new URLSearchParams({ workspace_token: large }),
		});
		const consentText = await consent.text();
		expect(consent.status).toBe(413);
		expect(consent.headers.get('content-type')).toMatch(/^text\/plain/);
		noStack(consentText);
	});
});

test('a grant sealed with a key the server no longer has: 401 invalid_token (the client connects again), and the grant is gone', async () => {
	const connected = await connect(server.url, WORKSPACE_TOKEN);
	const { grantId } = (await server.oauth.store.get<{ grantId: string }>('access', tokenHash(connected.accessToken)))!;
	const grant = await server.oauth.store.get<Record<string, unknown>>('grant', grantId);
	// As a grant sealed before its key was taken out of CHAT_MESSAGING_MCP_SECRET_KEY reads to this server.
	const removedKey = new SecretBox([randomBytes(32)]);
	await server.oauth.store.put('grant', grantId, { ...grant, sealedWorkspaceToken: removedKey.seal(WORKSPACE_TOKEN, 'workspace') }, 3600);
	const listed = await mcpPost(server.url, connected.accessToken, { method: 'tools/list' });
	expect(listed.status).toBe(401);
	expect(listed.headers.get('www-authenticate')).toContain('error="invalid_token"');
	expect(await server.oauth.store.get('grant', grantId)).toBeUndefined();
	const refreshed = await tokenRequest(server.url, {
		grant_type: 'refresh_token',
		refresh_token: connected.refreshToken,
		client_id: connected.clientId,
	});
	expect(refreshed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
});

test("one person opening more sessions than an owner may keep closes their own oldest, never another person's", async () => {
	const [alice, bob] = [await connect(server.url, WORKSPACE_TOKEN), await connect(server.url, WORKSPACE_TOKEN)];
	const initialize = async (token: string) =>
		(
			await mcpPost(server.url, token, {
				method: 'initialize',
				params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
			})
		).headers.get('mcp-session-id')!;
	const listIn = async (token: string, sessionId: string) =>
		(await mcpPost(server.url, token, { method: 'tools/list' }, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' }))
			.status;
	const bobs = await initialize(bob.accessToken);
	const alices: string[] = [];
	for (let i = 0; i <= MAX_SESSIONS_PER_OWNER; i++) alices.push(await initialize(alice.accessToken));
	expect(await listIn(bob.accessToken, bobs)).toBe(200);
	expect(await listIn(alice.accessToken, alices[0]!)).toBe(404);
	expect(await listIn(alice.accessToken, alices.at(-1)!)).toBe(200);
});

describe('registration: where a code may be sent, and how the client authenticates', () => {
	const registered = (metadata: Record<string, unknown>) =>
		server.oauth.server.provider.clientsStore.registerClient({ token_endpoint_auth_method: 'none', ...metadata } as never).then(
			(client) => client,
			(error: { errorCode?: string; message: string }) => ({ refused: error.errorCode, message: error.message }),
		);

	test('refused, by name: cleartext beyond loopback, a fragment, a user, a file or script, a wildcard, none, too many, too long', async () => {
		for (const uri of [
			'http://evil.example/cb',
			'https://client.example/cb#frag',
			'https://user:pass@client.example/cb',
			'file:///etc/passwd',
			'javascript:alert(1)',
			'data:text/html,hi',
			'mailto:someone@client.example',
			'https://*.client.example/cb',
			`https://client.example/${'a'.repeat(2000)}`,
		])
			expect(await registered({ redirect_uris: [uri] })).toEqual({
				refused: 'invalid_redirect_uri',
				message: expect.stringContaining(uri.slice(0, 40)),
			});
		expect(await registered({ redirect_uris: [] })).toMatchObject({ refused: 'invalid_redirect_uri' });
		const many = Array.from({ length: 11 }, (_, i) => `https://client.example/cb${i}`);
		expect(await registered({ redirect_uris: many })).toMatchObject({ refused: 'invalid_redirect_uri' });
		expect(await registered({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' })).toMatchObject({
			refused: 'invalid_client_metadata',
			message: expect.stringContaining('client_secret_basic'),
		});
	});

	test("accepted: https, loopback http (the Inspector's, the conformance suite's), a native app's scheme (Cursor's registration), ten URIs", async () => {
		for (const uris of [
			['https://client.example/cb'],
			['http://127.0.0.1:51234/callback', 'http://localhost:6274/oauth/callback', 'http://[::1]:8080/cb'],
			['com.example.app:/oauth2redirect'],
			// What Cursor registers, in one request: its app scheme, its hosted callback and a loopback one.
			[
				'cursor://anysphere.cursor-mcp/oauth/callback',
				'https://www.cursor.com/agents/mcp/oauth/callback',
				'http://localhost:8787/callback',
			],
			['vscode://client.example/callback'],
			Array.from({ length: 10 }, (_, i) => `https://client.example/cb${i}`),
		])
			expect(await registered({ redirect_uris: uris })).toMatchObject({ client_id: expect.any(String) });
		expect(await registered({ redirect_uris: [REDIRECT], token_endpoint_auth_method: undefined })).toMatchObject({
			token_endpoint_auth_method: 'client_secret_post',
		});
	});

	test('through /register: 400 invalid_redirect_uri naming the URI', async () => {
		const response = await fetch(`${server.url}/register`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ client_name: 'Cleartext', redirect_uris: ['http://evil.example/cb'], token_endpoint_auth_method: 'none' }),
		});
		expect(response.status).toBe(400);
		expect(await response.json()).toEqual({
			error: 'invalid_redirect_uri',
			error_description: expect.stringContaining('http://evil.example/cb'),
		});
	});
});
