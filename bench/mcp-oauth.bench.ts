/**
 * `npm run bench:mcp-oauth`: what OAuth costs a connector, side by side in one run, against the sandbox on
 * loopback (no added latency, so the server's own work shows): the built server on Node 24 three ways, the static
 * secret (CHAT_MESSAGING_MCP_AUTH_TOKEN), OAuth on SQLite, OAuth on a redis-server of the run's own.
 * - the time a token check adds to a call: the same stateless 2025-11-25 POST, tools/list (the whole request
 *   path without a request to the service, whose pacing at 30/s per process would otherwise dominate), interleaved
 *   across the three, its median;
 * - a connector's first call after consent: the consent's answer (the workspace token checked against the
 *   service), the code exchanged for tokens, the first tools/call, as a client sees each;
 * - replicas pacing one workspace (`--no-replicas` leaves it out): the same sends through one replica and through
 *   two on one Redis store, against a sandbox at the service's 30 requests a second: the time against the floor and
 *   the share of requests the service refused.
 * `--before=<dist/cli.js of another build>` adds that build's three servers, interleaved with this one's (a before
 * and after in one run). Not a test: nothing is asserted on time; the figures and their ratios are printed.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { startSandbox } from '@chat-messaging/sandbox';

import { CONNECTOR_PACING as PACING, floorSeconds, sendThroughSessions, serviceCounts } from '../test/support/mcp-pacing';
import { freePort } from '../test/e2e/node-red/e2e-support';
import { startRedis } from '../test/support/redis';

const ROOT = resolve(__dirname, '..');
const ARGS = process.argv.join(' ');
const CALLS = Number(/--calls=(\d+)/.exec(ARGS)?.[1] ?? 200);
const BEFORE = /--before=(\S+)/.exec(ARGS)?.[1];
const REPLICAS = !ARGS.includes('--no-replicas');
const CLI = join(ROOT, 'packages/mcp-server/dist/cli.js');
const TOKEN = `bench-${randomBytes(6).toString('hex')}`;
const SECRET = randomBytes(24).toString('hex');

function start(node: string, cli: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
	const child = spawn(node, [cli, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
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
async function firstCallAfterConsent(url: string, workspaceToken = TOKEN): Promise<Record<string, number>> {
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
			workspace_token: workspaceToken,
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

/** One build's three servers: the static secret, OAuth on SQLite, OAuth on Redis; each OAuth one connected once. */
async function servers(build: { label: string; cli: string }, node: string, env: NodeJS.ProcessEnv, dir: string, redisUrl: string) {
	const children: ChildProcess[] = [];
	const oauthServer = async (store: string) => {
		const port = await freePort();
		const started = await start(node, build.cli, ['--http', String(port), '--public-url', `http://127.0.0.1:${port}`], {
			...env,
			CHAT_MESSAGING_MCP_STORE: store,
			CHAT_MESSAGING_MCP_SECRET_KEY: randomBytes(32).toString('base64'),
		});
		children.push(started.child);
		return started.url;
	};
	const staticServer = await start(node, build.cli, ['--http', '0'], {
		...env,
		CHAT_MESSAGING_TOKEN: TOKEN,
		CHAT_MESSAGING_MCP_AUTH_TOKEN: SECRET,
	});
	children.push(staticServer.child);
	const sqliteUrl = await oauthServer(join(dir, `${build.label || 'now'}.sqlite`));
	const redisOauthUrl = await oauthServer(redisUrl);
	const flows = { sqlite: await firstCallAfterConsent(sqliteUrl), redis: await firstCallAfterConsent(redisOauthUrl) };
	const suffix = build.label ? ` (${build.label})` : '';
	return {
		children,
		flows,
		contestants: [
			{ name: `static secret${suffix}`, url: staticServer.url, token: SECRET },
			{ name: `OAuth, SQLite${suffix}`, url: sqliteUrl, token: flows.sqlite.accessToken as unknown as string },
			{ name: `OAuth, Redis${suffix}`, url: redisOauthUrl, token: flows.redis.accessToken as unknown as string },
		],
	};
}

/** The same sends through `count` replicas sharing one Redis store and one public URL, at the service's rate. */
async function replicasPacing(count: number, node: string, baseUrl: string, redisUrl: string, workspaceToken: string) {
	const children: ChildProcess[] = [];
	try {
		const port = await freePort();
		const publicUrl = `http://127.0.0.1:${port}`;
		const env = {
			PATH: process.env.PATH ?? '',
			CHAT_MESSAGING_BASE_URL: baseUrl,
			CHAT_MESSAGING_MCP_STORE: redisUrl,
			CHAT_MESSAGING_MCP_SECRET_KEY: REPLICA_KEY,
		};
		const urls: string[] = [];
		for (let index = 0; index < count; index++) {
			const replica = await start(node, CLI, ['--http', index ? '0' : String(port), '--public-url', publicUrl], env);
			children.push(replica.child);
			urls.push(replica.url);
		}
		const token = (await firstCallAfterConsent(urls[0]!, workspaceToken)).accessToken as unknown as string;
		const service = { url: baseUrl, token: workspaceToken };
		const chats = (await (await fetch(`${baseUrl}/chats`, { headers: { authorization: `Bearer ${workspaceToken}` } })).json()) as {
			data: { chats: Array<{ id: number }> };
		};
		const before = await serviceCounts(service);
		const sent = await sendThroughSessions(
			urls.map((url) => `${url}/mcp`),
			token,
			chats.data.chats[0]!.id,
			PACING,
			`replicas-${count}`,
		);
		const after = await serviceCounts(service);
		const total = PACING.sessions * PACING.sends;
		return {
			replicas: count,
			seconds: sent.ms / 1000,
			timesFloor: sent.ms / 1000 / floorSeconds(total),
			requests: after.requests - before.requests,
			refused: after.refused - before.refused,
			charged: after.charged - before.charged,
			toolErrors: sent.toolErrors,
		};
	} finally {
		for (const child of children) child.kill();
	}
}

const REPLICA_KEY = randomBytes(32).toString('base64');

async function main(): Promise<void> {
	const out = execFileSync('bash', [join(ROOT, 'test/e2e/runtimes.sh')], {
		encoding: 'utf8',
		env: { ...process.env, SKIP_N8N: '1' },
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const node = join(/^NODE24_BIN='([^']*)'$/m.exec(out)?.[1] ?? '', 'node');
	const dir = mkdtempSync(join(tmpdir(), 'bench-oauth-'));
	const sandbox = await startSandbox({ tokens: [TOKEN], chats: 3, port: 0 });
	const redis = await startRedis();
	const children: ChildProcess[] = [];
	try {
		const env = { PATH: process.env.PATH ?? '', CHAT_MESSAGING_BASE_URL: sandbox.url };
		const builds = [{ label: '', cli: CLI }, ...(BEFORE ? [{ label: 'before', cli: resolve(BEFORE) }] : [])];
		const started: Array<Awaited<ReturnType<typeof servers>>> = [];
		for (const build of builds) {
			const made = await servers(build, node, env, dir, redis.url);
			children.push(...made.children);
			started.push(made);
		}
		const contestants = started.flatMap((made) => made.contestants);
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
				`  ${contestant.name.padEnd(24)} ${ms(value).padStart(10)}  ×${(value / floor).toFixed(2)}  (${value - floor >= 0 ? '+' : ''}${ms(value - floor)})`,
			);
		}
		console.log("\nA connector's first call after consent (one run each):");
		for (const [build, made] of builds.map((build, index) => [build, started[index]!] as const))
			for (const [name, steps] of Object.entries(made.flows))
				console.log(
					`  OAuth, ${`${name}${build.label ? ` (${build.label})` : ''}`.padEnd(16)} consent answered ${ms(steps.consent!)}, tokens ${ms(steps.token!)}, first call ${ms(steps.firstCall!)}: ${ms(steps.total!)}`,
				);
		const pacing: Array<Awaited<ReturnType<typeof replicasPacing>>> = [];
		if (REPLICAS) {
			const limitedToken = `${TOKEN}-limited`;
			const limited = await startSandbox({ tokens: [limitedToken], chats: 3, port: 0, rateLimit: 30, quota: 100_000 });
			try {
				for (const count of [1, 2]) {
					pacing.push(await replicasPacing(count, node, limited.url, redis.url, limitedToken));
					// The service's bucket full again before the next.
					await new Promise((done) => setTimeout(done, 2000));
				}
			} finally {
				await limited.stop();
			}
			console.log(
				`\n${PACING.sessions * PACING.sends} sends (${PACING.sessions} sessions, ${PACING.inFlight} in flight each) against the service's 30/s:`,
			);
			for (const row of pacing)
				console.log(
					`  ${row.replicas} replica${row.replicas > 1 ? 's' : ' '}  ${row.seconds.toFixed(1)} s, ×${row.timesFloor.toFixed(2)} the floor; ${row.refused} of ${row.requests} requests refused (${((100 * row.refused) / row.requests).toFixed(2)} %); ${row.charged} charged, ${row.toolErrors} tool errors`,
				);
		}
		console.log(
			JSON.stringify({
				callMs: Object.fromEntries(contestants.map((contestant, index) => [contestant.name, Number(median(times[index]!).toFixed(3))])),
				firstCallAfterConsentMs: Object.fromEntries(
					builds.flatMap((build, index) =>
						Object.entries(started[index]!.flows).map(([name, steps]) => [
							`${name}${build.label ? ` (${build.label})` : ''}`,
							Number(steps.total!.toFixed(1)),
						]),
					),
				),
				pacing,
			}),
		);
	} finally {
		for (const child of children) child.kill();
		await redis.stop();
		await sandbox.stop();
		rmSync(dir, { recursive: true, force: true });
	}
}

main().catch((error: unknown) => {
	console.error(error instanceof Error ? error.message : error);
	process.exitCode = 1;
});
