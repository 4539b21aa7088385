/**
 * A client that identifies itself by a client ID metadata document (its client_id is the document's https URL, no
 * registration) connects through the real authorization server, in process: /authorize fetches the document, the
 * consent page names the client it describes, the code is exchanged and refreshed under that client_id, and the
 * token calls tools. The document is served on loopback over TLS with a certificate made for the run; the safe
 * fetch's seam (its resolver, the addresses it may reach, the certificate it trusts) is given to this server alone,
 * in this process: the built server has no way to be told any of it, so a document on loopback stays refused there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';

import { selfSigned } from '../selfSigned';
import {
	connect,
	mcpPost,
	openConsent,
	pkce,
	REDIRECT,
	startOAuthServer,
	tokenRequest,
	type RunningOAuthServer,
	captureStderr,
} from './oauth-support';

const WORKSPACE_TOKEN = `ws-${Math.random().toString(36).slice(2, 14)}`;
const dir = mkdtempSync(join(tmpdir(), 'cimd-flow-'));
let sandbox: RunningSandbox;
let site: Server;
let server: RunningOAuthServer;
let documentUrl: string;
const fetched: string[] = [];
let stderr: ReturnType<typeof captureStderr>;

beforeAll(async () => {
	stderr = captureStderr();
	sandbox = await startSandbox({ tokens: [WORKSPACE_TOKEN], chats: 3, port: 0 });
	const tls = selfSigned(dir, 'client.example');
	site = createServer(tls, (req, res) => {
		fetched.push(req.url ?? '');
		if (req.url === '/moved.json') return void res.writeHead(302, { location: '/client.json' }).end();
		const { port } = site.address() as { port: number };
		const own = `https://client.example:${port}${req.url}`;
		const document = {
			client_id: req.url === '/someone-else.json' ? `https://client.example:${port}/client.json` : own,
			client_name: 'Metadata Document Client',
			client_uri: `https://client.example:${port}/`,
			redirect_uris: [req.url === '/cleartext.json' ? 'http://evil.example/cb' : REDIRECT],
			grant_types: ['authorization_code', 'refresh_token'],
			response_types: ['code'],
			token_endpoint_auth_method: 'none',
		};
		res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
	});
	await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
	documentUrl = `https://client.example:${(site.address() as { port: number }).port}/client.json`;
	server = await startOAuthServer({
		baseUrl: sandbox.url,
		fetchOptions: {
			resolve: async (hostname) =>
				hostname === 'client.example'
					? [{ address: '127.0.0.1', family: 4 }]
					: hostname === 'internal.example'
						? [{ address: '10.20.30.40', family: 4 }]
						: [],
			allowAddress: (address) => address === '127.0.0.1',
			ca: tls.cert,
		},
	});
});

afterAll(async () => {
	await server?.stop();
	site?.closeAllConnections();
	await new Promise((resolve) => site?.close(resolve));
	await sandbox?.stop();
	rmSync(dir, { recursive: true, force: true });
	stderr?.restore();
});

test('the metadata is advertised; the client connects with its document URL as client_id, calls tools and refreshes', async () => {
	const metadata = await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json();
	expect(metadata.client_id_metadata_document_supported).toBe(true);

	const connected = await connect(server.url, WORKSPACE_TOKEN, {}, documentUrl);
	// The page names the client as its document describes it, and where the browser will be sent.
	expect(connected.page.html).toContain('Metadata Document Client');
	expect(connected.page.html).toContain('127.0.0.1:9');
	expect(connected.scope).toBe('default');
	expect(fetched).toContain('/client.json');

	const listed = await mcpPost(server.url, connected.accessToken, { method: 'tools/list' });
	expect(listed.json.result.tools.map((tool: { name: string }) => tool.name)).toContain('chat_get_many');
	const called = await mcpPost(server.url, connected.accessToken, {
		method: 'tools/call',
		params: { name: 'chat_get_many', arguments: {} },
	});
	expect(called.json.result.structuredContent.items).toHaveLength(3);

	const refreshed = await tokenRequest(server.url, {
		grant_type: 'refresh_token',
		refresh_token: connected.refreshToken,
		client_id: documentUrl,
	});
	expect(refreshed.status).toBe(200);
	expect(refreshed.body.refresh_token).not.toBe(connected.refreshToken);
	// Another client_id cannot use this client's refresh token.
	const stolen = await tokenRequest(server.url, {
		grant_type: 'refresh_token',
		refresh_token: refreshed.body.refresh_token,
		client_id: `${documentUrl}?other`,
	});
	expect(stolen.status).toBe(400);
});

test('a document naming another client_id, or a redirect URI it does not list, gets no consent page', async () => {
	const { challenge } = pkce();
	const params = {
		response_type: 'code',
		client_id: documentUrl.replace('/client.json', '/someone-else.json'),
		redirect_uri: REDIRECT,
		code_challenge: challenge,
		code_challenge_method: 'S256',
		state: 'st',
	};
	const foreign = await openConsent(server.url, params);
	expect(foreign.status).toBe(400);
	expect(JSON.parse(foreign.html)).toMatchObject({ error_description: expect.stringContaining('names another client_id') });
	const unlisted = await openConsent(server.url, { ...params, client_id: documentUrl, redirect_uri: 'http://127.0.0.1:9/elsewhere' });
	expect(unlisted.status).toBe(400);
	expect(unlisted.location).toBeUndefined();
	expect(JSON.parse(unlisted.html)).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('redirect_uri') });
});

test('a document that cannot be fetched: the client is told only that, the server log says why', async () => {
	const { port } = site.address() as { port: number };
	for (const [clientId, why] of [
		[`https://internal.example/client.json`, 'internal.example resolves to 10.20.30.40, not a public address'],
		[`https://client.example:${port}/moved.json`, 'answered 302'],
	] as const) {
		const before = stderr.logged.length;
		const page = await openConsent(server.url, {
			response_type: 'code',
			client_id: clientId,
			redirect_uri: REDIRECT,
			code_challenge: pkce().challenge,
			code_challenge_method: 'S256',
		});
		expect(page.status).toBe(400);
		expect(JSON.parse(page.html)).toEqual({
			error: 'invalid_client',
			error_description: `The client metadata document at ${clientId} could not be fetched or is not valid`,
		});
		expect(stderr.logged.slice(before).join('')).toContain(why);
	}
});

test("a document's redirect URIs follow registration's rules: cleartext beyond loopback is refused", async () => {
	const clientId = documentUrl.replace('/client.json', '/cleartext.json');
	const page = await openConsent(server.url, {
		response_type: 'code',
		client_id: clientId,
		redirect_uri: 'http://evil.example/cb',
		code_challenge: pkce().challenge,
		code_challenge_method: 'S256',
	});
	expect(page.status).toBe(400);
	expect(page.location).toBeUndefined();
	expect(JSON.parse(page.html)).toMatchObject({
		error: 'invalid_redirect_uri',
		error_description: expect.stringContaining('http://evil.example/cb'),
	});
});
