/**
 * A connector's life through the replicas, as clients nobody here wrote live it: the official MCP TypeScript SDK's
 * OAuth client (`auth()` with an OAuthClientProvider: discovery, dynamic registration, PKCE, the resource indicator,
 * then a refresh), its consent answered in Chromium; the consent page's answer to a wrong workspace token; the
 * conformance suite's authorization-server scenarios; and what a replica's death does to the grants. Each check
 * leaves what the next needs.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationFull, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Page } from 'playwright-core';

import { assert, type CheckRun } from '../n8n/checks';
import { freePort } from '../node-red/e2e-support';
import { killReplica, redact, secrets, WORKSPACE_TOKEN, type Replica, type Routed } from './cluster';

/** Answers the consent page in the browser: the workspace token, an access choice, Connect. */
export async function consentInBrowser(
	page: Page,
	url: string,
	access: 'default' | 'read-only',
	workspaceToken = WORKSPACE_TOKEN,
): Promise<void> {
	await page.goto(url);
	await page.fill('#workspace_token', workspaceToken);
	await page.check(`input[name=access][value=${access}]`);
	await page.click('button[value=approve]');
}

/** Where a redirect to `prefix` lands, seen in the browser without the page having to load. */
function landing(page: Page, prefix: string): Promise<string> {
	return new Promise((done) => {
		const onRequest = (req: { url(): string }) => {
			if (req.url().startsWith(prefix)) {
				page.off('request', onRequest);
				done(req.url());
			}
		};
		page.on('request', onRequest);
	});
}

export class TestProvider implements OAuthClientProvider {
	info: OAuthClientInformationFull | undefined;
	saved: OAuthTokens | undefined;
	verifier = '';
	authorizationUrl: URL | undefined;
	constructor(readonly redirectUrl: string) {}
	get clientMetadata(): OAuthClientMetadata {
		return {
			client_name: 'SDK e2e client',
			redirect_uris: [this.redirectUrl],
			token_endpoint_auth_method: 'none',
			grant_types: ['authorization_code', 'refresh_token'],
			response_types: ['code'],
		};
	}
	clientInformation() {
		return this.info;
	}
	saveClientInformation(info: OAuthClientInformationFull) {
		this.info = info;
	}
	tokens() {
		return this.saved;
	}
	saveTokens(tokens: OAuthTokens) {
		this.saved = tokens;
		secrets.push(tokens.access_token, ...(tokens.refresh_token ? [tokens.refresh_token] : []));
	}
	redirectToAuthorization(url: URL) {
		this.authorizationUrl = url;
	}
	saveCodeVerifier(verifier: string) {
		this.verifier = verifier;
	}
	codeVerifier() {
		return this.verifier;
	}
}

export async function toolNames(mcpUrl: string, token: string): Promise<string[]> {
	const client = new Client({ name: 'oauth-e2e', version: '1.0.0' });
	await client.connect(
		new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
	);
	try {
		return (await client.listTools()).tools.map((tool) => tool.name);
	} finally {
		await client.close();
	}
}

export interface Context {
	check: CheckRun['check'];
	page: Page;
	pageErrors: string[];
	/** The replicas by position: a killed one is replaced at its place by its restart. */
	replicas: Replica[];
	/** Every replica the run started, the killed ones too (their logs are checked). */
	launched: Replica[];
	/** Starts a replica with the run's environment. */
	launch: () => Promise<Replica>;
	seen: Routed[];
	publicUrl: string;
	redirectUrl: string;
	node24: string;
	conformance: string;
	inspector: string;
	work: string;
	/** The sandbox behind the replicas, and the workspace token the grants are given at consent. */
	service: { url: string; token: string };
}

/** The SDK's flow: auth() to the consent page, the consent answered in Chromium, auth() with the code; the tokens. */
export async function connectWithSdk(context: Context, client: TestProvider, access: 'default' | 'read-only'): Promise<OAuthTokens> {
	const { page, publicUrl, redirectUrl } = context;
	const mcpUrl = `${publicUrl}/mcp`;
	const first = await auth(client, { serverUrl: mcpUrl });
	assert(first === 'REDIRECT' && client.authorizationUrl, `auth() said ${first}`);
	const params = client.authorizationUrl.searchParams;
	assert(
		params.get('code_challenge_method') === 'S256' && params.get('resource') === mcpUrl,
		`authorization URL: ${client.authorizationUrl.href}`,
	);
	const landed = landing(page, redirectUrl);
	await consentInBrowser(page, client.authorizationUrl.href, access);
	const callback = new URL(await landed);
	assert(callback.searchParams.get('iss') === publicUrl, `iss: ${callback.searchParams.get('iss')}`);
	const code = callback.searchParams.get('code');
	assert(code, `no code: ${callback.href}`);
	const second = await auth(client, { serverUrl: mcpUrl, authorizationCode: code });
	assert(second === 'AUTHORIZED' && client.saved?.access_token, `auth() with the code said ${second}`);
	return client.saved;
}

/** The checks of a connector's life, in order: each leaves what the next needs (the grant, the replicas). */
export async function connectorChecks(context: Context): Promise<void> {
	const { check, page, pageErrors, replicas, seen, publicUrl, redirectUrl, work } = context;
	const provider = new TestProvider(redirectUrl);
	const mcpUrl = `${publicUrl}/mcp`;
	await check('the SDK client: discovery, registration, PKCE and resource, the consent in Chromium, tokens', async () => {
		const tokens = await connectWithSdk(context, provider, 'default');
		return `scope "${tokens.scope}", expires in ${tokens.expires_in} s`;
	});

	await check('a grant made through the proxy works on each replica directly, and the flow crossed both', async () => {
		const token = provider.saved?.access_token ?? '';
		const counts = replicas.map((replica) => seen.filter((routed) => routed.port === replica.port).length);
		assert(
			counts.every((count) => count > 0),
			`requests per replica: ${counts.join(', ')}`,
		);
		const lists = await Promise.all(replicas.map((replica) => toolNames(`http://127.0.0.1:${replica.port}/mcp`, token)));
		assert(
			lists.every((names) => names.includes('chat_get_many') && !names.includes('webhook_create')),
			`tools: ${lists.map((names) => names.length).join(', ')}`,
		);
		return `the flow's requests per replica: ${counts.join(' and ')}; ${lists[0]!.length} tools on each (the default scope)`;
	});

	await check('the SDK client refreshes: a new refresh token, the old one refused', async () => {
		const before = provider.saved!;
		const result = await auth(provider, { serverUrl: mcpUrl });
		assert(result === 'AUTHORIZED' && provider.saved!.refresh_token !== before.refresh_token, `refresh: ${result}`);
		const reuse = await fetch(`${publicUrl}/token`, {
			method: 'POST',
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
			body: new URLSearchParams({
				grant_type: 'refresh_token',
				refresh_token: before.refresh_token!,
				client_id: provider.info!.client_id,
			}),
		});
		assert(reuse.status === 400, `the old refresh token: ${reuse.status}`);
		const revoked = await fetch(mcpUrl, {
			method: 'POST',
			headers: {
				authorization: `Bearer ${provider.saved!.access_token}`,
				'content-type': 'application/json',
				accept: 'application/json, text/event-stream',
			},
			body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
		});
		assert(revoked.status === 401, `the grant's newest access token after the reuse: ${revoked.status}`);
		return 'rotated; the old one answered 400 invalid_grant, and the reuse revoked the grant (its newest access token: 401)';
	});

	await check('the consent page in Chromium: a wrong workspace token is told plainly and gets no code', async () => {
		const again = new TestProvider(redirectUrl);
		assert((await auth(again, { serverUrl: mcpUrl })) === 'REDIRECT', 'no redirect');
		let redirected = false;
		page.on('request', (req) => (redirected ||= req.url().startsWith(redirectUrl)));
		await consentInBrowser(page, again.authorizationUrl!.href, 'default', 'not-the-workspace-token');
		const message = await page.textContent('#error');
		assert(message?.includes('The service refused this API token (HTTP 401)'), `message: ${message}`);
		assert(!redirected, 'the browser was sent to the client');
		assert((await page.inputValue('#workspace_token')) === '', 'the token was shown again');
		await page.screenshot({ path: join(work, 'consent-wrong-token.png') });
		assert(!pageErrors.length, `page errors: ${pageErrors.join('; ')}`);
		return `"${message?.trim().slice(0, 80)}…"`;
	});

	await conformanceCheck(context);
}

/** What a replica's death does to the grants, and the logs of every replica at the end. */
export async function endingChecks(context: Context): Promise<void> {
	const { check, replicas, launched, launch, publicUrl, redirectUrl } = context;
	const mcpUrl = `${publicUrl}/mcp`;
	await check("a replica's death: the other serves every grant; restarted, it serves them again", async () => {
		const token = (await connectWithSdk(context, new TestProvider(redirectUrl), 'read-only')).access_token;
		const dead = replicas[0]!;
		await killReplica(dead);
		const survivor = await toolNames(mcpUrl, token);
		assert(survivor.includes('chat_get_many'), 'not served by the survivor');
		replicas[0] = await launch();
		const restarted = await toolNames(`http://127.0.0.1:${replicas[0].port}/mcp`, token);
		assert(restarted.includes('chat_get_many'), 'not served by the restarted replica');
		return `killed the replica on ${dead.port}; the survivor and the restarted one (${replicas[0].port}) accept the same access token`;
	});

	await check("no token of any kind in any replica's log, the killed ones included", async () => {
		const logs = launched.map((replica) => replica.log()).join('');
		const leaked = secrets.filter((secret) => logs.includes(secret));
		assert(!leaked.length && !/cm[acr]_[\w-]{20}/.test(logs), `${leaked.length} secrets in the logs`);
		return `${logs.split('\n').length} lines of log, none with a token`;
	});
}

/** The conformance suite's authorization-server scenarios against the issuer, its authorization URL opened in Chromium. */
export async function conformanceCheck(context: Context): Promise<void> {
	const { check, page, publicUrl, node24, conformance, work } = context;
	const mcpUrl = `${publicUrl}/mcp`;
	await check('conformance authorization: authorization-server-metadata-endpoint and authorization-code-grant', async () => {
		const port = await freePort();
		const registered = (await (
			await fetch(`${publicUrl}/register`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({
					client_name: 'MCP conformance suite',
					redirect_uris: [`http://127.0.0.1:${port}/callback`],
					token_endpoint_auth_method: 'none',
				}),
			})
		).json()) as { client_id: string };
		const out = join(work, 'conformance');
		const args = [
			'authorization',
			'--url',
			publicUrl,
			'--client-id',
			registered.client_id,
			'--resource',
			mcpUrl,
			'-p',
			String(port),
			'-o',
			out,
		];
		const suite = spawn(conformance, args, { env: { PATH: `${node24}:${process.env.PATH ?? ''}`, HOME: work, NO_COLOR: '1', CI: '1' } });
		let printed = '';
		const finished = new Promise<number>((done) => suite.once('close', (code) => done(code ?? -1)));
		const authorizationUrl = await new Promise<string>((done, fail) => {
			const timer = setTimeout(() => fail(new Error(`the suite printed no authorization URL: ${printed}`)), 30_000);
			suite.stdout.on('data', (chunk: Buffer) => {
				printed += chunk.toString();
				const match = /^(http:\/\/\S+\/authorize\?\S+)$/m.exec(printed);
				if (match) {
					clearTimeout(timer);
					done(match[1]!);
				}
			});
			suite.stderr.on('data', (chunk: Buffer) => (printed += chunk.toString()));
		});
		await consentInBrowser(page, authorizationUrl, 'read-only');
		const code = await finished;
		const checks = readdirSync(out, { recursive: true })
			.map(String)
			.filter((name) => name.endsWith('checks.json'))
			.flatMap((name) => JSON.parse(readFileSync(join(out, name), 'utf8')) as Array<{ id: string; status: string; errorMessage?: string }>);
		const failed = checks.filter((item) => item.status === 'FAILURE');
		assert(
			checks.length && !failed.length,
			`exit ${code}; ${failed.map((item) => `${item.id}: ${item.errorMessage}`).join('; ') || redact(printed.slice(-600))}`,
		);
		return checks.map((item) => `${item.id} ${item.status}`).join(', ');
	});
}
