/**
 * The MCP server as an OAuth authorization and resource server, in process on a SQLite store in front of the
 * sandbox: the flow a connector goes through, and each hostile case on its own, with the answer it gets.
 * Needs Node 22.13 or later (node:sqlite): run by `npm run test:mcp-oauth` on Node 24.
 */
import { request } from 'node:http';

import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';

import { tokenHash } from '../../src/store/secretBox';
import { REVISION_2026 } from '../../../../test/support/mcp-wire';
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
} from './oauth-support';

const WORKSPACE_TOKEN = `ws-${Math.random().toString(36).slice(2, 14)}`;
let sandbox: RunningSandbox;
let server: RunningOAuthServer;
let stderr: ReturnType<typeof captureStderr>;

beforeAll(async () => {
	stderr = captureStderr();
	sandbox = await startSandbox({ tokens: [WORKSPACE_TOKEN], chats: 5, port: 0 });
	// Every download above 16 bytes a file link, so that links are handed out at all.
	server = await startOAuthServer({ baseUrl: sandbox.url, inlineFileLimit: 16 });
});

afterAll(async () => {
	await server?.stop();
	await sandbox?.stop();
	stderr?.restore();
});

const authorizeParams = (clientId: string, challenge: string, extra: Record<string, string> = {}) => ({
	response_type: 'code',
	client_id: clientId,
	redirect_uri: REDIRECT,
	code_challenge: challenge,
	code_challenge_method: 'S256',
	state: 'st',
	...extra,
});

describe('the flow a connector goes through', () => {
	test('401 names the protected resource metadata; the metadata names the issuer; a connected client lists its tools', async () => {
		const unauthorised = await mcpPost(server.url, undefined, { method: 'tools/list' });
		expect(unauthorised.status).toBe(401);
		expect(unauthorised.headers.get('www-authenticate')).toBe(
			`Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp", scope="default"`,
		);
		const resource = (await (await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`)).json()) as any;
		expect(resource).toMatchObject({ resource: `${server.url}/mcp`, authorization_servers: [server.url] });
		const metadata = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as any;
		expect(metadata).toMatchObject({
			issuer: server.url,
			code_challenge_methods_supported: ['S256'],
			client_id_metadata_document_supported: true,
			authorization_response_iss_parameter_supported: true,
		});
		const connected = await connect(server.url, WORKSPACE_TOKEN);
		expect(connected.scope).toBe('default');
		const listed = await mcpPost(server.url, connected.accessToken, { method: 'tools/list' });
		expect(listed.status).toBe(200);
		const names = listed.json.result.tools.map((tool: { name: string }) => tool.name);
		expect(names).toContain('chat_get_many');
		expect(names).not.toContain('webhook_create');
		const called = await mcpPost(server.url, connected.accessToken, {
			method: 'tools/call',
			params: { name: 'workspace_get', arguments: {} },
		});
		expect(called.json.result.isError).toBeFalsy();
	});

	test('the consent page names the client and the redirect host, with CSRF, no framing and no cache', async () => {
		const { client_id } = await register(server.url, { client_name: 'Acme <Agent>' });
		const page = await openConsent(server.url, authorizeParams(client_id, pkce().challenge, { scope: 'default webhooks' }));
		expect(page.status).toBe(200);
		expect(page.html).toContain('Acme &lt;Agent&gt;');
		expect(page.html).toContain('127.0.0.1:9');
		expect(page.csrf).toMatch(/^[\w-]{43}$/);
		expect(page.cookie).toMatch(/^chat-messaging-consent=/);
		expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
		expect(page.headers.get('cache-control')).toBe('no-store');
	});

	test('a read-only grant lists only reads, and a write outside its scope is 403 insufficient_scope naming the scope that covers it', async () => {
		const connected = await connect(server.url, WORKSPACE_TOKEN, { access: 'read-only' });
		expect(connected.scope).toBe('default read-only');
		const listed = await mcpPost(server.url, connected.accessToken, { method: 'tools/list' });
		const tools = listed.json.result.tools as Array<{ name: string; annotations: { readOnlyHint?: boolean } }>;
		expect(tools.every((tool) => tool.annotations.readOnlyHint)).toBe(true);
		const write = await mcpPost(server.url, connected.accessToken, {
			method: 'tools/call',
			params: { name: 'chat_close', arguments: { chat_id: 1 } },
		});
		expect(write.status).toBe(403);
		// The least scope that gives the tool (the pipeline's rule), in a token's words: its toolset.
		expect(write.headers.get('www-authenticate')).toContain('error="insufficient_scope", scope="chats"');
		const admin = await mcpPost(server.url, connected.accessToken, {
			method: 'tools/call',
			params: { name: 'webhook_create', arguments: { url: 'https://example.com/hook' } },
		});
		expect(admin.status).toBe(403);
		expect(admin.headers.get('www-authenticate')).toContain('scope="webhooks"');
	});

	test('a read outside the scope asks for its toolset without read-only (a client adding it to its scope would lose its writes)', async () => {
		const connected = await connect(server.url, WORKSPACE_TOKEN, { access: 'toolsets', toolsets: ['labels'] });
		const read = await mcpPost(server.url, connected.accessToken, {
			method: 'tools/call',
			params: { name: 'chat_get', arguments: { chat_id: 1 } },
		});
		expect(read.status).toBe(403);
		expect(read.headers.get('www-authenticate')).toContain('error="insufficient_scope", scope="chats"');
		// A name the catalogue has no tool of is the protocol's unknown tool, whatever the scope.
		const unknown = await mcpPost(server.url, connected.accessToken, {
			method: 'tools/call',
			params: { name: 'chat_nuke', arguments: {} },
		});
		expect(unknown.status).toBe(200);
		expect(unknown.json.error).toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool') });
		// The same refusal on 2026-07-28, before the request reaches a server.
		const modern = await fetch(`${server.url}/mcp`, {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				accept: 'application/json, text/event-stream',
				authorization: `Bearer ${connected.accessToken}`,
				'mcp-protocol-version': REVISION_2026,
				'mcp-method': 'tools/call',
				'mcp-name': 'chat_get',
			},
			body: JSON.stringify({
				jsonrpc: '2.0',
				id: 1,
				method: 'tools/call',
				params: { name: 'chat_get', arguments: { chat_id: 1 }, _meta: { 'io.modelcontextprotocol/protocolVersion': REVISION_2026 } },
			}),
		});
		expect(modern.status).toBe(403);
		expect(modern.headers.get('www-authenticate')).toContain('scope="chats"');
	});

	test('a tool the server does not offer at all is the unknown tool, not a 403: no consent could give it', async () => {
		const readOnly = await startOAuthServer({ baseUrl: sandbox.url, offered: { readOnly: true } });
		try {
			const connected = await connect(readOnly.url, WORKSPACE_TOKEN);
			const write = await mcpPost(readOnly.url, connected.accessToken, {
				method: 'tools/call',
				params: { name: 'chat_close', arguments: { chat_id: 1 } },
			});
			expect(write.status).toBe(200);
			expect(write.json.error).toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool') });
		} finally {
			await readOnly.stop();
		}
	});

	test('chosen toolsets become the scope: labels alone', async () => {
		const connected = await connect(server.url, WORKSPACE_TOKEN, { access: 'toolsets', toolsets: ['labels'] });
		expect(connected.scope).toBe('labels');
		const listed = await mcpPost(server.url, connected.accessToken, { method: 'tools/list' });
		expect(listed.json.result.tools.map((tool: { name: string }) => tool.name).sort()).toEqual(
			['label_add', 'label_get', 'label_remove', 'label_remove_all', 'label_replace'].sort(),
		);
	});
});

describe('hostile cases', () => {
	test('a code used twice: the second exchange is refused and the grant of the first is revoked', async () => {
		const connected = await connect(server.url, WORKSPACE_TOKEN);
		const again = await tokenRequest(server.url, {
			grant_type: 'authorization_code',
			code: connected.code,
			code_verifier: connected.verifier,
			client_id: connected.clientId,
			redirect_uri: REDIRECT,
		});
		expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
		expect((await mcpPost(server.url, connected.accessToken, { method: 'tools/list' })).status).toBe(401);
	});

	test('a wrong PKCE verifier gets no token', async () => {
		const { client_id } = await register(server.url);
		const { challenge } = pkce();
		const page = await openConsent(server.url, authorizeParams(client_id, challenge));
		const answer = await answerConsent(server.url, page, { workspace_token: WORKSPACE_TOKEN });
		const code = new URL(answer.location!).searchParams.get('code')!;
		const refused = await tokenRequest(server.url, {
			grant_type: 'authorization_code',
			code,
			code_verifier: pkce().verifier,
			client_id,
			redirect_uri: REDIRECT,
		});
		expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
	});

	test('no PKCE, or plain: the browser goes back with an error and no code, and no consent page is shown', async () => {
		const { client_id } = await register(server.url);
		const { code_challenge: _omitted, code_challenge_method: _method, ...withoutPkce } = authorizeParams(client_id, 'x');
		for (const params of [withoutPkce, authorizeParams(client_id, 'a'.repeat(43), { code_challenge_method: 'plain' })]) {
			const page = await openConsent(server.url, params);
			expect(page.status).toBe(302);
			const back = new URL(page.location!);
			expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
			expect(back.searchParams.get('error')).toBe('invalid_request');
			expect(back.searchParams.get('code')).toBeNull();
		}
	});

	test('an unregistered redirect URI is refused on the spot, never redirected to', async () => {
		const { client_id } = await register(server.url);
		for (const redirect of ['https://attacker.example/callback', `${REDIRECT}/../evil`, 'http://127.0.0.1:9/callbackx']) {
			const page = await openConsent(server.url, authorizeParams(client_id, pkce().challenge, { redirect_uri: redirect }));
			expect(page.status).toBe(400);
			expect(page.location).toBeUndefined();
			expect(page.html).toContain('Unregistered redirect_uri');
		}
	});

	test('a token for another resource is refused: asked for at /authorize, and presented to another server', async () => {
		const { client_id } = await register(server.url);
		const page = await openConsent(server.url, authorizeParams(client_id, pkce().challenge, { resource: 'https://other.example/mcp' }));
		expect(page.status).toBe(302);
		expect(new URL(page.location!).searchParams.get('error')).toBe('invalid_target');
		// Another server (another public URL) on the same store: the grant exists, but not for it.
		const dir = server.oauth.store.description.replace(/^SQLite /, '');
		const other = await startOAuthServer({ baseUrl: sandbox.url, store: dir, hostname: 'localhost', secretKey: undefined });
		try {
			const connected = await connect(server.url, WORKSPACE_TOKEN);
			expect((await mcpPost(server.url, connected.accessToken, { method: 'tools/list' })).status).toBe(200);
			const elsewhere = await mcpPost(other.url, connected.accessToken, { method: 'tools/list' });
			expect(elsewhere.status).toBe(401);
			expect(elsewhere.headers.get('www-authenticate')).toContain('error="invalid_token"');
		} finally {
			await other.http.close();
			other.http.closeAllConnections();
		}
	});

	test('made-up and expired access tokens are refused with invalid_token', async () => {
		const madeUp = await mcpPost(server.url, `cma_${'A'.repeat(43)}`, { method: 'tools/list' });
		expect(madeUp.status).toBe(401);
		expect(madeUp.headers.get('www-authenticate')).toContain('error="invalid_token"');
		const connected = await connect(server.url, WORKSPACE_TOKEN);
		const hash = tokenHash(connected.accessToken);
		const record = await server.oauth.store.get<Record<string, unknown>>('access', hash);
		await server.oauth.store.put('access', hash, { ...record, expiresAt: Math.floor(Date.now() / 1000) - 1 }, 60);
		expect((await mcpPost(server.url, connected.accessToken, { method: 'tools/list' })).status).toBe(401);
	});

	test('a refresh token is rotated; reusing the old one is refused and revokes the grant', async () => {
		const connected = await connect(server.url, WORKSPACE_TOKEN);
		const refreshed = await tokenRequest(server.url, {
			grant_type: 'refresh_token',
			refresh_token: connected.refreshToken,
			client_id: connected.clientId,
		});
		expect(refreshed.status).toBe(200);
		expect(refreshed.body.refresh_token).not.toBe(connected.refreshToken);
		expect(refreshed.headers.get('cache-control')).toBe('no-store');
		expect((await mcpPost(server.url, refreshed.body.access_token, { method: 'tools/list' })).status).toBe(200);
		const reused = await tokenRequest(server.url, {
			grant_type: 'refresh_token',
			refresh_token: connected.refreshToken,
			client_id: connected.clientId,
		});
		expect(reused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
		expect((await mcpPost(server.url, refreshed.body.access_token, { method: 'tools/list' })).status).toBe(401);
		const newer = await tokenRequest(server.url, {
			grant_type: 'refresh_token',
			refresh_token: refreshed.body.refresh_token,
			client_id: connected.clientId,
		});
		expect(newer.status).toBe(400);
	});

	test('a refresh may narrow the scope, never widen it', async () => {
		const connected = await connect(server.url, WORKSPACE_TOKEN, { access: 'read-only' });
		const wider = await tokenRequest(server.url, {
			grant_type: 'refresh_token',
			refresh_token: connected.refreshToken,
			client_id: connected.clientId,
			scope: 'all',
		});
		expect(wider).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
	});

	test('revocation: an access token alone, or a refresh token and its whole grant', async () => {
		const connected = await connect(server.url, WORKSPACE_TOKEN);
		const revoke = (token: string) =>
			fetch(`${server.url}/revoke`, {
				method: 'POST',
				headers: { 'content-type': 'application/x-www-form-urlencoded' },
				body: new URLSearchParams({ token, client_id: connected.clientId }),
			});
		expect((await revoke(connected.accessToken)).status).toBe(200);
		expect((await mcpPost(server.url, connected.accessToken, { method: 'tools/list' })).status).toBe(401);
		const refreshed = await tokenRequest(server.url, {
			grant_type: 'refresh_token',
			refresh_token: connected.refreshToken,
			client_id: connected.clientId,
		});
		expect(refreshed.status).toBe(200);
		expect((await revoke(refreshed.body.refresh_token)).status).toBe(200);
		expect((await mcpPost(server.url, refreshed.body.access_token, { method: 'tools/list' })).status).toBe(401);
		expect((await revoke('never-issued')).status).toBe(200);
	});

	test('a wrong workspace token at consent: the page again with a clear message, and no code', async () => {
		const { client_id } = await register(server.url);
		const page = await openConsent(server.url, authorizeParams(client_id, pkce().challenge));
		const answer = await answerConsent(server.url, page, { workspace_token: 'not-the-token' });
		expect(answer.status).toBe(400);
		expect(answer.location).toBeNull();
		expect(answer.text).toContain('The service refused this API token (HTTP 401)');
		expect(answer.text).not.toContain('not-the-token');
		// The same page, once the right token is pasted, connects.
		const retried = await answerConsent(server.url, page, { workspace_token: WORKSPACE_TOKEN });
		expect(retried.status).toBe(303);
		expect(new URL(retried.location!).searchParams.get('code')).toBeTruthy();
	});

	test('a forged consent POST is refused: without the CSRF value, without the browser cookie, from another origin', async () => {
		const { client_id } = await register(server.url);
		const page = await openConsent(server.url, authorizeParams(client_id, pkce().challenge));
		const noCsrf = await answerConsent(server.url, { ...page, csrf: '' }, { workspace_token: WORKSPACE_TOKEN });
		expect(noCsrf.status).toBe(403);
		expect(noCsrf.location).toBeNull();
		const noCookie = await answerConsent(server.url, { ...page, cookie: '' }, { workspace_token: WORKSPACE_TOKEN });
		expect(noCookie.status).toBe(403);
		const foreign = await answerConsent(server.url, page, { workspace_token: WORKSPACE_TOKEN }, 'https://attacker.example');
		expect(foreign.status).toBe(403);
		expect(foreign.location).toBeNull();
	});

	test('forged Host and Origin are refused on every path, the OAuth ones included', async () => {
		for (const path of ['/mcp', '/.well-known/oauth-authorization-server', '/token', '/register']) {
			const response = await fetch(`${server.url}${path}`, {
				method: path === '/mcp' ? 'POST' : 'GET',
				headers: { origin: 'https://attacker.example' },
			});
			expect(response.status).toBe(403);
		}
		const forgedHost = await new Promise<number>((resolve, reject) => {
			const req = request(
				`${server.url}/.well-known/oauth-authorization-server`,
				{ headers: { host: '127.0.0.1.rebind.example' } },
				(res) => {
					res.resume();
					resolve(res.statusCode ?? 0);
				},
			);
			req.on('error', reject);
			req.end();
		});
		expect(forgedHost).toBe(403);
	});

	test("a 2025-11-25 session is its caller's: another grant naming its id is told it does not exist", async () => {
		const first = await connect(server.url, WORKSPACE_TOKEN);
		const second = await connect(server.url, WORKSPACE_TOKEN);
		const init = await mcpPost(server.url, first.accessToken, {
			method: 'initialize',
			params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
		});
		const sessionId = init.headers.get('mcp-session-id')!;
		expect(sessionId).toBeTruthy();
		const hijack = await mcpPost(
			server.url,
			second.accessToken,
			{ method: 'tools/list' },
			{ 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
		);
		expect(hijack.status).toBe(404);
		const own = await mcpPost(
			server.url,
			first.accessToken,
			{ method: 'tools/list' },
			{ 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
		);
		expect(own.status).toBe(200);
	});

	test("a file link is its grant's: read with the grant's refreshed token, not found for another grant", async () => {
		// Two grants of one client (two people connecting the same connector), so the links are told apart by grant.
		const { client_id: clientId } = await register(server.url);
		const owner = await connect(server.url, WORKSPACE_TOKEN, {}, clientId);
		const other = await connect(server.url, WORKSPACE_TOKEN, {}, clientId);
		const call = (token: string, name: string, args: Record<string, unknown>) =>
			mcpPost(server.url, token, { method: 'tools/call', params: { name, arguments: args } });
		const data = Buffer.from('a file larger than the inline limit').toString('base64');
		const uploaded = await call(owner.accessToken, 'file_upload', { file: { data, filename: 'link.txt', mimeType: 'text/plain' } });
		const downloaded = await call(owner.accessToken, 'file_download', { uid: uploaded.json.result.structuredContent.uid });
		const uri = downloaded.json.result.structuredContent.uri as string;
		expect(uri).toMatch(/^chat-messaging-file:\/\//);
		// A refresh gives a new access token of the same grant: the link is still its own.
		const refreshed = await tokenRequest(server.url, {
			grant_type: 'refresh_token',
			refresh_token: owner.refreshToken,
			client_id: owner.clientId,
		});
		const read = await mcpPost(server.url, refreshed.body.access_token, { method: 'resources/read', params: { uri } });
		expect(read.json.result.contents[0].blob).toBe(data);
		const listed = await mcpPost(server.url, other.accessToken, { method: 'resources/list' });
		expect(listed.json.result.resources).toEqual([]);
		const foreign = await mcpPost(server.url, other.accessToken, { method: 'resources/read', params: { uri } });
		expect(foreign.json.error).toMatchObject({ code: -32602, message: expect.stringContaining('Resource not found') });
	});

	test('no token of any kind reached the log', () => {
		const text = stderr.logged.join('');
		expect(text).not.toContain(WORKSPACE_TOKEN);
		expect(text).not.toMatch(/cm[acr]_[\w-]{20}/);
	});
});
