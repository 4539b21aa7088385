/**
 * The Node-RED editor in a real browser (Debian's chromium driven by playwright-core): Node-RED 5 on
 * Node 24 with the packed package installed, the sandbox behind it (through a proxy that records the
 * requests the nodes make). The cases, in the order they run:
 * - browser-dialog-cases.ts: the action node from the palette, its dialog (the operation a new node starts on,
 *   needed fields first, the optional ones folded, Page hidden while All pages is on);
 * - browser-config-cases.ts: the config node's validation (red triangle, Deploy warning, Test connection), the
 *   deploy, and the token neither exported nor written to flows.json;
 * - browser-run-cases.ts: a chat picked from the searchable list and the node run, a filter left at Any not sent,
 *   the three outputs of send-and-wait-for-reply and the per-operation help;
 * - browser-import-cases.ts: example flows imported, the event node's dialog, no page error, no token in the log.
 * Screenshots go to docs/screenshots/node-red-*.png.
 * Run: `npm run test:browser`. Ends with `N passed, N failed`; exits non-zero on failure.
 * Needs /usr/bin/chromium (`apt-get install -y chromium`); CHROMIUM_PATH overrides the path.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';
import { startRecordingProxy, type RecordingProxy } from '../../support/recording-proxy';
import { CHROMIUM, DOCS_SCREENSHOTS, launchChromium } from '../../support/chromium';
import {
	Checks,
	buildAndPack,
	createUserDir,
	freePort,
	loadRuntimes,
	makeTempDir,
	removeDir,
	startNodeRed,
	type NodeRedInstance,
} from './e2e-support';
import { SCREENSHOT_DIR, type BrowserCase, type BrowserRun } from './browser-support';
import { dialogCases } from './browser-dialog-cases';
import { configCases, deployCases } from './browser-config-cases';
import { runCases } from './browser-run-cases';
import { importCases } from './browser-import-cases';

const CASES: BrowserCase[] = [...dialogCases, ...configCases, ...deployCases, ...runCases, ...importCases];

async function runBrowserChecks(checks: Checks): Promise<void> {
	const work = await makeTempDir('nr-browser-');
	const token = `nr-browser-${randomBytes(12).toString('hex')}`;
	let sandbox: RunningSandbox | undefined;
	let proxy: RecordingProxy | undefined;
	let nodeRed: NodeRedInstance | undefined;
	let browser: Browser | undefined;
	let userDir: string | undefined;
	try {
		if (!existsSync(CHROMIUM)) {
			await checks.check('chromium is installed', () => {
				throw new Error(`${CHROMIUM} not found: apt-get update && apt-get install -y chromium`);
			});
			return;
		}
		const runtimes = await checks.step('install or reuse Node-RED 5 and Node 24', () => loadRuntimes());
		const tarball = await checks.step('npm run build (packs the Node-RED package)', () => buildAndPack(work));
		if (!runtimes || !tarball) return;
		sandbox = await startSandbox({ tokens: [token], seed: 5, chats: 30, paceMs: 50 });
		const port = await freePort();
		userDir = await checks.step('npm install of the packed package into a fresh user dir', () => createUserDir(tarball, port));
		if (!userDir) return;
		const dir = userDir;
		nodeRed = await checks.step('Node-RED 5 on Node 24 starts', () =>
			startNodeRed({ nodeBin: path.join(runtimes.node24Bin, 'node'), nodeRedDir: runtimes.nodeRed5Dir, userDir: dir, port }),
		);
		if (!nodeRed) return;
		// The nodes reach the sandbox through the recording proxy: the test sees every request they make.
		proxy = await startRecordingProxy(sandbox.url);

		browser = await launchChromium();
		const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
		const pageErrors: string[] = [];
		page.on('pageerror', (error) => pageErrors.push(error.message));
		await mkdir(SCREENSHOT_DIR, { recursive: true });
		await mkdir(DOCS_SCREENSHOTS, { recursive: true });

		const run: BrowserRun = {
			page,
			red: nodeRed,
			token,
			userDir: dir,
			sandboxUrl: proxy.url,
			sandboxDirect: sandbox.url,
			recorded: proxy.requests,
			pageErrors,
			actionId: '',
			configId: '',
			configured: false,
		};
		for (const c of CASES) {
			if (c.when && !c.when(run)) continue;
			const ok = await checks.check(c.name, () => c.run(run));
			if (!ok && c.stopsRunOnFailure) return;
		}
		console.log(`  screenshots: ${SCREENSHOT_DIR}`);
	} catch (error) {
		await checks.check('browser run completes', () => {
			throw error;
		});
	} finally {
		await browser?.close().catch(() => undefined);
		await nodeRed?.stop();
		await proxy?.stop();
		await sandbox?.stop();
		if (userDir) await removeDir(userDir);
		await removeDir(work);
	}
}

async function main(): Promise<void> {
	const checks = new Checks();
	await runBrowserChecks(checks);
	checks.report();
}

main().catch((error: unknown) => {
	console.error(error);
	console.log('0 passed, 1 failed');
	process.exitCode = 1;
});
