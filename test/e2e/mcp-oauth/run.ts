/**
 * The MCP server as a remote OAuth connector, end to end (`npm run test:e2e:mcp-oauth`): the built server on Node 24,
 * two replicas on one real redis-server behind a round-robin proxy on loopback (so consecutive requests of one flow
 * land on different replicas), the sandbox behind them. Clients nobody here wrote drive it:
 * - the official MCP TypeScript SDK's OAuth client (`auth()` with an OAuthClientProvider: discovery, dynamic
 *   registration, PKCE, the resource indicator, then a refresh), its consent answered in Chromium;
 * - the conformance suite's authorization-server scenarios (`conformance authorization --url <issuer>`), its
 *   authorization URL opened in Chromium;
 * then a replica's death and restart, with the grants still good. Ends with the `N passed, N failed` line
 * test/run-all.sh counts. Needs Node 24 and the suite (test/e2e/mcp/tools.sh), Debian's chromium and redis-server.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationFull, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Browser, Page } from 'playwright-core';

import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';

import { launchChromium } from '../../support/chromium';
import { builtPackage } from '../../support/packages';
import { assert, CheckRun } from '../n8n/checks';

const ROOT = resolve(__dirname, '../../..');
const WORKSPACE_TOKEN = `ws-${randomBytes(9).toString('hex')}`;
const SECRET_KEY = randomBytes(32).toString('base64');
const secrets: string[] = [WORKSPACE_TOKEN, SECRET_KEY];
const redact = (text: string) => secrets.reduce((out, secret) => out.split(secret).join('<secret>'), text);

function tools(): { node24: string; conformance: string } {
	const out = execFileSync('bash', [join(ROOT, 'test/e2e/mcp/tools.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
	const value = (name: string) => new RegExp(`^${name}='([^']*)'$`, 'm').exec(out)?.[1] ?? '';
	return { node24: value('NODE24_BIN'), conformance: value('MCP_CONFORMANCE_BIN') };
}

function freePort(): Promise<number> {
	return new Promise((done, fail) => {
		const probe = createNetServer();
		probe.once('error', fail);
		probe.listen(0, '127.0.0.1', () => {
			const { port } = probe.address() as { port: number };
			probe.close(() => done(port));
		});
	});
}

/** A redis-server of this run's own on a free loopback port, nothing kept on disk. */
async function startRedis(): Promise<{ url: string; child: ChildProcess }> {
	for (let attempt = 0; ; attempt++) {
		const port = await freePort();
		const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		const ready = await new Promise<boolean>((done) => {
			let out = '';
			child.stdout!.on('data', (chunk: Buffer) => {
				out += chunk.toString();
				if (out.includes('Ready to accept connections')) done(true);
			});
			child.once('exit', () => done(false));
		});
		if (ready) return { url: `redis://127.0.0.1:${port}`, child };
		if (attempt >= 3) throw new Error('redis-server did not start');
	}
}

interface Replica {
	child: ChildProcess;
	port: number;
	log: () => string;
}

function startReplica(node24: string, env: NodeJS.ProcessEnv, publicUrl: string): Promise<Replica> {
	const cli = join(builtPackage('mcp-server').dir, 'dist', 'cli.js');
	const child = spawn(join(node24, 'node'), [cli, '--http', '0', '--public-url', publicUrl], { env, stdio: ['ignore', 'ignore', 'pipe'] });
	let log = '';
	return new Promise((resolvePromise, reject) => {
		const timer = setTimeout(() => reject(new Error(`a replica did not start: ${redact(log)}`)), 15_000);
		child.stderr!.on('data', (chunk: Buffer) => {
			log += chunk.toString();
			const match = /Streamable HTTP at http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(log);
			if (match) {
				clearTimeout(timer);
				resolvePromise({ child, port: Number(match[1]), log: () => log });
			}
		});
		child.once('exit', (code) => reject(new Error(`a replica exited (${code}): ${redact(log)}`)));
	});
}

/** A load balancer on loopback: each request to the next live replica in turn, Host kept as the client sent it. */
function roundRobin(port: number, replicas: () => Replica[], seen: number[]): Promise<Server> {
	let next = 0;
	const proxy = createServer((req, res) => {
		const live = replicas().filter((replica) => replica.child.exitCode === null && !replica.child.killed);
		const target = live[next++ % live.length];
		if (!target) return void res.writeHead(502).end();
		seen.push(target.port);
		const upstream = request(
			{ host: '127.0.0.1', port: target.port, method: req.method, path: req.url, headers: req.headers },
			(answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			},
		);
		upstream.on('error', () => res.headersSent || res.writeHead(502).end());
		req.pipe(upstream);
	});
	return new Promise((done, fail) => {
		proxy.once('error', fail);
		proxy.listen(port, '127.0.0.1', () => done(proxy));
	});
}

/** Answers the consent page in the browser: the workspace token, an access choice, Connect. */
async function consentInBrowser(page: Page, url: string, access: 'default' | 'read-only', workspaceToken = WORKSPACE_TOKEN): Promise<void> {
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

class TestProvider implements OAuthClientProvider {
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

async function toolNames(mcpUrl: string, token: string): Promise<string[]> {
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

interface Context {
	check: CheckRun['check'];
	page: Page;
	pageErrors: string[];
	replicas: Replica[];
	seen: number[];
	publicUrl: string;
	redirectUrl: string;
	env: NodeJS.ProcessEnv;
	node24: string;
	conformance: string;
	work: string;
}

/** The checks of a connector's life, in order: each leaves what the next needs (the grant, the replicas). */
async function connectorChecks(context: Context): Promise<void> {
	const { check, page, pageErrors, replicas, seen, publicUrl, redirectUrl, env, node24, work } = context;
	const provider = new TestProvider(redirectUrl);
	const mcpUrl = `${publicUrl}/mcp`;
	/** The SDK's flow: auth() to the consent page, the consent answered in Chromium, auth() with the code. */
	const connectWithSdk = async (client: TestProvider, access: 'default' | 'read-only') => {
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
	};

	await check('the SDK client: discovery, registration, PKCE and resource, the consent in Chromium, tokens', async () => {
		const tokens = await connectWithSdk(provider, 'default');
		return `scope "${tokens.scope}", expires in ${tokens.expires_in} s`;
	});

	await check('a grant made through the proxy works on each replica directly, and the flow crossed both', async () => {
		const token = provider.saved?.access_token ?? '';
		const counts = replicas.map((replica) => seen.filter((port) => port === replica.port).length);
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

	await check("a replica's death: the other serves every grant; restarted, it serves them again", async () => {
		const token = (await connectWithSdk(new TestProvider(redirectUrl), 'read-only')).access_token;
		const [dead] = replicas.splice(0, 1, undefined as unknown as Replica);
		dead!.child.kill('SIGKILL');
		await new Promise((done) => dead!.child.once('exit', done));
		replicas.shift();
		const survivor = await toolNames(mcpUrl, token);
		assert(survivor.includes('chat_get_many'), 'not served by the survivor');
		replicas.unshift(await startReplica(node24, env, publicUrl));
		const restarted = await toolNames(`http://127.0.0.1:${replicas[0]!.port}/mcp`, token);
		assert(restarted.includes('chat_get_many'), 'not served by the restarted replica');
		return `killed the replica on ${dead!.port}; the survivor and the restarted one (${replicas[0]!.port}) accept the same access token`;
	});

	await check("no token of any kind in either replica's log", async () => {
		const logs = replicas.map((replica) => replica.log()).join('');
		const leaked = secrets.filter((secret) => logs.includes(secret));
		assert(!leaked.length && !/cm[acr]_[\w-]{20}/.test(logs), `${leaked.length} secrets in the logs`);
		return `${logs.split('\n').length} lines of log, none with a token`;
	});
}

/** The conformance suite's authorization-server scenarios against the issuer, its authorization URL opened in Chromium. */
async function conformanceCheck(context: Context): Promise<void> {
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

async function main(): Promise<void> {
	const run = new CheckRun(redact);
	const { check } = run;
	const work = mkdtempSync(join(tmpdir(), 'mcp-oauth-e2e-'));
	let sandbox: RunningSandbox | undefined;
	let redis: ChildProcess | undefined;
	let proxy: Server | undefined;
	let browser: Browser | undefined;
	const replicas: Replica[] = [];
	const seen: number[] = [];
	let endedByError = false;
	try {
		const { node24, conformance } = tools();
		sandbox = await startSandbox({ tokens: [WORKSPACE_TOKEN], chats: 5, port: 0 });
		const redisServer = await startRedis();
		redis = redisServer.child;
		const proxyPort = await freePort();
		const publicUrl = `http://127.0.0.1:${proxyPort}`;
		const env = {
			PATH: process.env.PATH ?? '',
			CHAT_MESSAGING_BASE_URL: sandbox.url,
			CHAT_MESSAGING_MCP_STORE: redisServer.url,
			CHAT_MESSAGING_MCP_SECRET_KEY: SECRET_KEY,
			CHAT_MESSAGING_MCP_TOOLSETS: 'all',
		};
		await check(
			'two replicas on one redis-server behind a round-robin proxy',
			async () => {
				replicas.push(await startReplica(node24, env, publicUrl), await startReplica(node24, env, publicUrl));
				proxy = await roundRobin(proxyPort, () => replicas, seen);
				return `replicas on ports ${replicas.map((replica) => replica.port).join(' and ')}, public URL ${publicUrl}`;
			},
			true,
		);
		browser = await launchChromium();
		const page = await browser.newPage();
		const pageErrors: string[] = [];
		page.on('pageerror', (error) => pageErrors.push(error.message));
		const callbackPort = await freePort();
		const redirectUrl = `http://127.0.0.1:${callbackPort}/callback`;

		await connectorChecks({ check, page, pageErrors, replicas, seen, publicUrl, redirectUrl, env, node24, conformance, work });
	} catch (error) {
		endedByError = true;
		console.log(`the run ended early: ${redact(error instanceof Error ? (error.stack ?? error.message) : String(error))}`);
	} finally {
		await browser?.close();
		proxy?.closeAllConnections();
		proxy?.close();
		for (const replica of replicas) replica?.child.kill();
		redis?.kill();
		await sandbox?.stop();
		if (process.env.KEEP_E2E_DIR === '1') console.log(`results kept in ${work}`);
		else if (existsSync(work)) rmSync(work, { recursive: true, force: true });
	}
	console.log(`\n${run.summary(endedByError)}`);
	process.exitCode = run.failed || endedByError ? 1 : 0;
}

void main();
