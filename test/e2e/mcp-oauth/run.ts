/**
 * The MCP server as a remote OAuth connector, end to end (`npm run test:e2e:mcp-oauth`): the built server on Node 24,
 * two replicas on one real redis-server behind a proxy on loopback (cluster.ts: sticky by Mcp-Session-Id, round-robin
 * otherwise, so consecutive requests of one flow land on different replicas), the sandbox behind them at the service's
 * 30 requests a second. Clients nobody here wrote drive it:
 * - the official MCP TypeScript SDK's OAuth client, the conformance suite's authorization-server scenarios, the
 *   consent page in Chromium (connector-cases.ts);
 * - the replicas pacing one workspace, sessions kept on their replica, tasks read, cancelled and failed across them
 *   (replica-cases.ts);
 * - the MCP Inspector's OAuth flow, headless (inspector-case.ts);
 * then a replica's death and restart with the grants still good, and no token in any log. Ends with the
 * `N passed, N failed` line test/run-all.sh counts. Needs Node 24, the suite and the Inspector (test/e2e/mcp/tools.sh),
 * Debian's chromium and redis-server.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import type { Browser } from 'playwright-core';

import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';

import { launchChromium } from '../../support/chromium';
import { startRedis, type RunningRedis } from '../../support/redis';
import { CheckRun } from '../n8n/checks';
import { freePort } from '../node-red/e2e-support';
import { redact, SECRET_KEY, startReplica, stickyProxy, WORKSPACE_TOKEN, type Replica, type Routed } from './cluster';
import { connectorChecks, endingChecks } from './connector-cases';
import { inspectorCheck } from './inspector-case';
import { replicaChecks } from './replica-cases';

const ROOT = resolve(__dirname, '../../..');

function tools(): { node24: string; conformance: string; inspector: string } {
	const out = execFileSync('bash', [join(ROOT, 'test/e2e/mcp/tools.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
	const value = (name: string) => new RegExp(`^${name}='([^']*)'$`, 'm').exec(out)?.[1] ?? '';
	return { node24: value('NODE24_BIN'), conformance: value('MCP_CONFORMANCE_BIN'), inspector: value('MCP_INSPECTOR_BIN') };
}

async function main(): Promise<void> {
	const run = new CheckRun(redact);
	const { check } = run;
	const work = mkdtempSync(join(tmpdir(), 'mcp-oauth-e2e-'));
	let sandbox: RunningSandbox | undefined;
	let redis: RunningRedis | undefined;
	let proxy: Server | undefined;
	let browser: Browser | undefined;
	const replicas: Replica[] = [];
	const launched: Replica[] = [];
	const seen: Routed[] = [];
	let endedByError = false;
	try {
		const { node24, conformance, inspector } = tools();
		// At the service's own limit: the replicas pace one workspace together against it.
		sandbox = await startSandbox({ tokens: [WORKSPACE_TOKEN], chats: 5, port: 0, rateLimit: 30, quota: 10_000 });
		redis = await startRedis();
		const proxyPort = await freePort();
		const publicUrl = `http://127.0.0.1:${proxyPort}`;
		const env = {
			PATH: process.env.PATH ?? '',
			CHAT_MESSAGING_BASE_URL: sandbox.url,
			CHAT_MESSAGING_MCP_STORE: redis.url,
			CHAT_MESSAGING_MCP_SECRET_KEY: SECRET_KEY,
			CHAT_MESSAGING_MCP_TOOLSETS: 'all',
		};
		const launch = async () => {
			const replica = await startReplica(node24, env, publicUrl);
			launched.push(replica);
			return replica;
		};
		await check(
			'two replicas on one redis-server behind a proxy (sticky by Mcp-Session-Id, round-robin otherwise)',
			async () => {
				replicas.push(await launch(), await launch());
				proxy = await stickyProxy(proxyPort, () => replicas, seen);
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

		const service = { url: sandbox.url, token: WORKSPACE_TOKEN };
		const context = {
			check,
			page,
			pageErrors,
			replicas,
			launched,
			launch,
			seen,
			publicUrl,
			redirectUrl,
			node24,
			conformance,
			inspector,
			work,
			service,
		};
		await connectorChecks(context);
		await replicaChecks(context);
		await inspectorCheck(context);
		await endingChecks(context);
	} catch (error) {
		endedByError = true;
		console.log(`the run ended early: ${redact(error instanceof Error ? (error.stack ?? error.message) : String(error))}`);
	} finally {
		await browser?.close();
		proxy?.closeAllConnections();
		proxy?.close();
		for (const replica of launched) replica.child.kill();
		await redis?.stop();
		await sandbox?.stop();
		if (process.env.KEEP_E2E_DIR === '1') console.log(`results kept in ${work}`);
		else if (existsSync(work)) rmSync(work, { recursive: true, force: true });
	}
	console.log(`\n${run.summary(endedByError)}`);
	process.exitCode = run.failed || endedByError ? 1 : 0;
}

void main();
