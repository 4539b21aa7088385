/**
 * End to end in real Node-RED runtimes: Node-RED 5 on Node 24 and Node-RED 4 on Node 20, each with the
 * package as `npm run build` packed it, installed with npm into a fresh user dir, driven over HTTP against
 * the sandbox. The cases, in the order they run for each runtime: runtime-flow-cases.ts (the base flow),
 * runtime-example-cases.ts (the example flows), runtime-restart-cases.ts (stops, restarts, polling mode), then a
 * restart with adminAuth (runtime-support.ts's adminAuthChecks); what they share is in runtime-support.ts.
 * Run: `npm run test:e2e:node-red`. Ends with `N passed, N failed`; exits non-zero on failure.
 */
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { startSandbox } from '@chat-messaging/sandbox';
import { Checks, buildAndPack, createUserDir, freePort, loadRuntimes, makeTempDir, removeDir, startNodeRed } from './e2e-support';
import {
	E2E_SANDBOX,
	SandboxView,
	adminAuthChecks,
	baseFlow,
	eventNodes,
	writeAdminAuthSettings,
	type RuntimeCase,
	type RuntimeRun,
	type RuntimeUnderTest,
} from './runtime-support';
import { flowCases } from './runtime-flow-cases';
import { exampleCases } from './runtime-example-cases';
import { restartCases } from './runtime-restart-cases';
import { burstCases } from './runtime-burst-cases';

/** CHAT_MESSAGING_E2E_CASES=<text> runs only the cases whose name holds it (with CHAT_MESSAGING_E2E_RUNTIMES=5, on Node-RED 5 only). */
const only = process.env.CHAT_MESSAGING_E2E_CASES;
const CASES: RuntimeCase[] = [...flowCases, ...exampleCases, ...burstCases, ...restartCases].filter((c) => !only || c.name.includes(only));

/** Last: a restart with adminAuth and both roots at "/" (the flows deployed before run on). */
async function adminAuthRestart(r: RuntimeRun, checks: Checks): Promise<void> {
	const beforeAuth = r.nodeRed;
	if (!beforeAuth) return;
	await r.phase('stop before adminAuth', () => beforeAuth.stop());
	r.nodeRed = undefined;
	r.nodeRed = await checks.step('restart with adminAuth (a read-only and a full user), httpAdminRoot = httpNodeRoot = /', () =>
		r.phase('restart with adminAuth', async () =>
			startNodeRed({
				nodeBin: r.runtime.nodeBin,
				nodeRedDir: r.runtime.nodeRedDir,
				userDir: r.dir,
				port: Number(new URL(beforeAuth.url).port),
				settingsFile: await writeAdminAuthSettings(r.dir, r.runtime.nodeRedDir),
			}),
		),
	);
	if (r.nodeRed) await adminAuthChecks(r.nodeRed, r.view, checks);
}

async function testRuntime(runtime: RuntimeUnderTest, tarball: string, checks: Checks, timings: Record<string, number>): Promise<void> {
	const token = `nr-e2e-${randomBytes(12).toString('hex')}`;
	const started = Date.now();
	const phase = async <T>(name: string, body: () => Promise<T>): Promise<T> => {
		const at = Date.now();
		try {
			return await body();
		} finally {
			timings[name] = Date.now() - at;
		}
	};

	const sandbox = await startSandbox({ ...E2E_SANDBOX, tokens: [token] });
	const view = new SandboxView(sandbox, token);
	let run: RuntimeRun | undefined;
	let userDir: string | undefined;
	try {
		const port = await freePort();
		userDir = await checks.step('npm install of the packed package into a fresh user dir', () =>
			phase('install', () => createUserDir(tarball, port)),
		);
		if (!userDir) return;
		const dir = userDir;
		const nodeRed = await checks.step(`${runtime.label} starts`, () =>
			phase('start', () => startNodeRed({ nodeBin: runtime.nodeBin, nodeRedDir: runtime.nodeRedDir, userDir: dir, port })),
		);
		if (!nodeRed) return;
		const r: RuntimeRun = (run = {
			runtime,
			token,
			sandbox,
			view,
			dir,
			nodeRed,
			publicUrl: nodeRed.url,
			fullFlow: [...baseFlow(sandbox.url, nodeRed.url, token), ...eventNodes()],
			phone: '+4915550' + String(Date.now() % 1_000_000).padStart(6, '0'),
			messageUid: '',
			phase,
		});
		for (const c of CASES) {
			if (c.when && !c.when(r)) continue;
			const ok = await checks.check(c.name, () => c.run(r));
			if (!ok && c.stopsRunOnFailure) return;
		}
		await adminAuthRestart(r, checks);
	} finally {
		const nodeRed = run?.nodeRed;
		await nodeRed?.stop();
		if (nodeRed && (checks.failed > 0 || process.env.CHAT_MESSAGING_E2E_VERBOSE === '1')) {
			console.log(`  --- ${runtime.label} log ---\n${nodeRed.output().trim().replace(/^/gm, '  | ')}`);
		}
		await sandbox.stop();
		if (userDir) await removeDir(userDir);
		timings.total = Date.now() - started;
	}
}

async function main(): Promise<void> {
	const checks = new Checks();
	const work = await makeTempDir('nr-e2e-');
	const allTimings: Array<[string, Record<string, number>]> = [];
	try {
		const prepared = Date.now();
		const runtimes = await checks.step('install or reuse the Node-RED 5, Node-RED 4 and Node 24 runtimes', () => loadRuntimes());
		const tarball = await checks.step('npm run build (packs the Node-RED package)', () => buildAndPack(work));
		console.log(`  prepared in ${Date.now() - prepared} ms`);
		if (!runtimes || !tarball) return checks.report();
		const node24 = path.join(runtimes.node24Bin, 'node');
		const under: RuntimeUnderTest[] = [
			{
				label: `Node-RED 5 on Node ${execFileSync(node24, ['--version']).toString().trim()}`,
				nodeBin: node24,
				nodeRedDir: runtimes.nodeRed5Dir,
			},
			{ label: `Node-RED 4 on Node ${process.version}`, nodeBin: process.execPath, nodeRedDir: runtimes.nodeRed4Dir },
		];
		const runtimesWanted = process.env.CHAT_MESSAGING_E2E_RUNTIMES;
		for (const runtime of under.filter((candidate) => !runtimesWanted || candidate.label.startsWith(`Node-RED ${runtimesWanted}`))) {
			console.log(`\n${runtime.label} (${runtime.nodeRedDir})`);
			const timings: Record<string, number> = {};
			const runtimeChecks = new Checks(`[${runtime.label.split(' on ')[0]}]`);
			try {
				await testRuntime(runtime, tarball, runtimeChecks, timings);
			} catch (error) {
				await runtimeChecks.check('runtime run completes', () => {
					throw error;
				});
			}
			checks.add(runtimeChecks);
			allTimings.push([runtime.label, timings]);
		}
	} finally {
		await removeDir(work);
	}
	console.log('\nTimings (ms):');
	for (const [label, timings] of allTimings) {
		console.log(
			`  ${label}: ${Object.entries(timings)
				.map(([name, ms]) => `${name} ${ms}`)
				.join(', ')}`,
		);
	}
	checks.report();
}

main().catch((error: unknown) => {
	console.error(error);
	console.log('0 passed, 1 failed');
	process.exitCode = 1;
});
