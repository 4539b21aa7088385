/**
 * `npm run bench:mcp-oauth`: what OAuth costs a connector, side by side in one run, against the sandbox on
 * loopback (no added latency, so the server's own work shows): the built server on Node 24 three ways, the static
 * secret (CHAT_MESSAGING_MCP_AUTH_TOKEN), OAuth on SQLite, OAuth on a redis-server of the run's own.
 * - the time a token check adds to a call: the same stateless 2025-11-25 POST, tools/list (the whole request
 *   path without a request to the service, whose pacing at 30/s per process would otherwise dominate), interleaved
 *   across the three, its median;
 * - a connector's first call after consent: the consent's answer (the workspace token checked against the
 *   service), the code exchanged for tokens, the first tools/call, as a client sees each.
 * Not a test: nothing is asserted on time; the figures and their ratios are printed.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { startSandbox } from '@chat-messaging/sandbox';

const ROOT = resolve(__dirname, '..');
const CALLS = Number(/--calls=(\d+)/.exec(process.argv.join(' '))?.[1] ?? 200);
const TOKEN = `bench-${randomBytes(6).toString('hex')}`;
const SECRET = randomBytes(24).toString('hex');

const freePort = () =>
	new Promise<number>((done) => {
		const probe = createServer().listen(0, '127.0.0.1', () => {
			const { port } = probe.address() as { port: number };
			probe.close(() => done(port));
		});
	});

function start(node: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
	const child = spawn(node, [join(ROOT, 'packages/mcp-server/dist/cli.js'), ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
	let log = '';
	return new Promise((done, fail) => {
		child.stderr!.on('data', (chunk: Buffer) => {
			log += chunk.toString();
			const match = /at (http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(log);
			if (match) done({ child, url: match[1]! });
		});
		child.once('exit', (code) => fail(new Error(`the server exited ${code}: ${log}`)));
	});
}

async function call(url: string, token: string, method: 'tools/list' | 'tools/call' = 'tools/call'): Promise<number> {
	const started = performance.now();
	const response = await fetch(`${url}/mcp`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
		body: JSON.stringify({
			jsonrpc: '2.0',
			id: 1,
			method,
			...(method === 'tools/call' ? { params: { name: 'workspace_get', arguments: {} } } : {}),
		}),
	});
	const text = await response.text();
	if (response.status !== 200 || text.includes('"isError":true')) throw new Error(`call: ${response.status} ${text.slice(0, 200)}`);
	return performance.now() - started;
}

/** The flow after the person clicks Connect, each step timed as the client (and the browser) see it. */
async function firstCallAfterConsent(url: string): Promise<Record<string, number>> {
	const redirect = 'http://127.0.0.1:9/callback';
	const client = (await (
		await fetch(`${url}/register`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ client_name: 'bench', redirect_uris: [redirect], token_endpoint_auth_method: 'none' }),
		})
	).json()) as { client_id: string };
	const verifier = randomBytes(32).toString('base64url');
	const challenge = createHash('sha256').update(verifier).digest('base64url');
	const query = new URLSearchParams({
		response_type: 'code',
		client_id: client.client_id,
		redirect_uri: redirect,
		code_challenge: challenge,
		code_challenge_method: 'S256',
	});
	const page = await fetch(`${url}/authorize?${query}`);
	const html = await page.text();
	const hidden = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
	const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0]!;
	let at = performance.now();
	const consent = await fetch(`${url}/consent`, {
		method: 'POST',
		redirect: 'manual',
		headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: url },
		body: new URLSearchParams({
			consent: hidden('consent'),
			csrf: hidden('csrf'),
			workspace_token: TOKEN,
			access: 'default',
			decision: 'approve',
		}),
	});
	const code = new URL(consent.headers.get('location') ?? '').searchParams.get('code') ?? '';
	const steps: Record<string, number> = { consent: performance.now() - at };
	at = performance.now();
	const tokens = (await (
		await fetch(`${url}/token`, {
			method: 'POST',
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
			body: new URLSearchParams({
				grant_type: 'authorization_code',
				code,
				code_verifier: verifier,
				client_id: client.client_id,
				redirect_uri: redirect,
			}),
		})
	).json()) as { access_token: string };
	steps.token = performance.now() - at;
	steps.firstCall = await call(url, tokens.access_token);
	steps.total = steps.consent + steps.token + steps.firstCall;
	(steps as Record<string, unknown>).accessToken = tokens.access_token as unknown as number;
	return steps;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const ms = (value: number) => `${value.toFixed(2)} ms`;

async function main(): Promise<void> {
	const out = execFileSync('bash', [join(ROOT, 'test/e2e/runtimes.sh')], {
		encoding: 'utf8',
		env: { ...process.env, SKIP_N8N: '1' },
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const node = join(/^NODE24_BIN='([^']*)'$/m.exec(out)?.[1] ?? '', 'node');
	const dir = mkdtempSync(join(tmpdir(), 'bench-oauth-'));
	const sandbox = await startSandbox({ tokens: [TOKEN], chats: 3, port: 0 });
	const redisPort = await freePort();
	const redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
		stdio: 'ignore',
	});
	const children: ChildProcess[] = [redis];
	try {
		await new Promise((done) => setTimeout(done, 500));
		const base = { PATH: process.env.PATH ?? '', CHAT_MESSAGING_BASE_URL: sandbox.url };
		const oauthServer = async (store: string) => {
			const port = await freePort();
			const started = await start(node, ['--http', String(port), '--public-url', `http://127.0.0.1:${port}`], {
				...base,
				CHAT_MESSAGING_MCP_STORE: store,
				CHAT_MESSAGING_MCP_SECRET_KEY: randomBytes(32).toString('base64'),
			});
			children.push(started.child);
			return started.url;
		};
		const staticServer = await start(node, ['--http', '0'], {
			...base,
			CHAT_MESSAGING_TOKEN: TOKEN,
			CHAT_MESSAGING_MCP_AUTH_TOKEN: SECRET,
		});
		children.push(staticServer.child);
		const sqliteUrl = await oauthServer(join(dir, 'grants.sqlite'));
		const redisUrl = await oauthServer(`redis://127.0.0.1:${redisPort}`);
		const flows = { sqlite: await firstCallAfterConsent(sqliteUrl), redis: await firstCallAfterConsent(redisUrl) };
		const contestants = [
			{ name: 'static secret', url: staticServer.url, token: SECRET },
			{ name: 'OAuth, SQLite', url: sqliteUrl, token: flows.sqlite.accessToken as unknown as string },
			{ name: 'OAuth, Redis', url: redisUrl, token: flows.redis.accessToken as unknown as string },
		];
		const times = contestants.map(() => [] as number[]);
		for (let warm = 0; warm < 20; warm++) for (const contestant of contestants) await call(contestant.url, contestant.token, 'tools/list');
		for (let round = 0; round < CALLS; round++)
			for (const [index, contestant] of contestants.entries())
				times[index]!.push(await call(contestant.url, contestant.token, 'tools/list'));
		const floor = median(times[0]!);
		console.log(`\nA tools/list (the whole request path, no request to the service and so no pacing), ${CALLS} each, interleaved; median:`);
		for (const [index, contestant] of contestants.entries()) {
			const value = median(times[index]!);
			console.log(
				`  ${contestant.name.padEnd(15)} ${ms(value).padStart(10)}  ×${(value / floor).toFixed(2)}  (${value - floor >= 0 ? '+' : ''}${ms(value - floor)})`,
			);
		}
		console.log("\nA connector's first call after consent (one run each):");
		for (const [name, steps] of Object.entries(flows))
			console.log(
				`  OAuth, ${name.padEnd(7)} consent answered ${ms(steps.consent!)}, tokens ${ms(steps.token!)}, first call ${ms(steps.firstCall!)}: ${ms(steps.total!)}`,
			);
		console.log(
			JSON.stringify({
				callMs: Object.fromEntries(contestants.map((contestant, index) => [contestant.name, Number(median(times[index]!).toFixed(3))])),
				firstCallAfterConsentMs: Object.fromEntries(Object.entries(flows).map(([name, steps]) => [name, Number(steps.total!.toFixed(1))])),
			}),
		);
	} finally {
		for (const child of children) child.kill();
		await sandbox.stop();
		rmSync(dir, { recursive: true, force: true });
	}
}

main().catch((error: unknown) => {
	console.error(error instanceof Error ? error.message : error);
	process.exitCode = 1;
});
