/**
 * The newcomer's path (`npm run test:demo`): a fresh `git clone` of this repository (its committed HEAD) into a
 * temporary folder, node_modules linked from this checkout instead of installed, then `npm run demo` started the
 * way a user starts it. Checks, in real Chromium, that the editor opens with no banner, notification or dialog
 * to dismiss; that the example flows share one config node on the sandbox; that a simulated inbound message gets
 * the example's auto-reply; and that Ctrl-C (SIGINT to the demo's process group, as a terminal sends it) stops
 * every process the demo started. The demo runs twice: cold (a fresh clone, nothing built) and warm (started
 * again in the same clone); both times from clone to running demo are printed. Ends with `N passed, N failed`.
 * The screenshot of the editor stays in the temporary folder printed at the start.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { CHROMIUM, launchChromium } from '../support/chromium';
import { Checks, REPO_ROOT, assert, assertEqual, freePort, httpJson, sleep, waitFor } from '../e2e/node-red/e2e-support';
import { sandboxClient } from '../support/harness';

type Json = Record<string, unknown>;

const READY_LINE = 'Chat Messaging demo is running';
const AUTO_REPLY = 'Thanks for your message, we will answer shortly.';
/** What a newcomer would have to dismiss: notifications (version, update), dialogs (telemetry consent), tours. */
const OVERLAYS = '.red-ui-notification, .red-ui-dialog-body, .ui-dialog, .red-ui-tourGuide-popover';

interface RunningDemo {
	child: ChildProcess;
	output: () => string;
	/** How npm ended: its exit code, or the signal it ended by. */
	exited: Promise<number | NodeJS.Signals | null>;
	editorUrl: string;
	sandboxUrl: string;
	token: string;
	readyMs: number;
}

/** Every demo started, so that a failed check never leaves one running. */
const demos: ChildProcess[] = [];

/** Starts `npm run demo` in its own process group, as a shell does; resolves once it prints that it is ready. */
async function startDemo(clone: string, startedAt: number): Promise<RunningDemo> {
	const [editorPort, sandboxPort] = [await freePort(), await freePort()];
	const child = spawn('npm', ['run', 'demo'], {
		cwd: clone,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
		env: { ...process.env, EDITOR_PORT: String(editorPort), SANDBOX_PORT: String(sandboxPort) },
	});
	demos.push(child);
	let output = '';
	child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
	child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
	const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
	try {
		await waitFor(
			'the demo to say it is running',
			async () => {
				if (child.exitCode !== null) throw new Error(`npm run demo exited with ${child.exitCode}`);
				return output.includes(READY_LINE) ? true : undefined;
			},
			{ timeoutMs: 10 * 60_000, intervalMs: 200 },
		);
	} catch (error) {
		stopGroup(child, 'SIGKILL');
		throw new Error(`${(error as Error).message}\n${output.split('\n').slice(-20).join('\n')}`);
	}
	const readyMs = Date.now() - startedAt;
	const find = (pattern: RegExp, what: string) => {
		const match = pattern.exec(output);
		if (!match) throw new Error(`the demo's output names no ${what}:\n${output}`);
		return match[1];
	};
	return {
		child,
		output: () => output,
		exited,
		editorUrl: find(/Node-RED editor\s+(http:\/\/\S+)/, 'editor URL'),
		sandboxUrl: find(/sandbox\s+(http:\/\/\S+)/, 'sandbox URL'),
		token: find(/token:\s+(\S+)/, 'token'),
		readyMs,
	};
}

function stopGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	try {
		if (child.pid) process.kill(-child.pid, signal);
	} catch {
		// already gone
	}
}

/** Every live process below `pid` (children, grandchildren, ...), from /proc. */
function descendants(pid: number): number[] {
	const parents = new Map<number, number[]>();
	for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
		try {
			const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
			const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
			parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
		} catch {
			// exited meanwhile
		}
	}
	const found: number[] = [];
	const walk = (parent: number) => {
		for (const child of parents.get(parent) ?? []) {
			found.push(child);
			walk(child);
		}
	};
	walk(pid);
	return found;
}

/** Alive and not a zombie waiting for its parent. */
function isAlive(pid: number): boolean {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
	} catch {
		return false;
	}
}

const commandLine = (pid: number): string => {
	try {
		return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
	} catch {
		return '';
	}
};

const sandbox = <T = Json>(demo: RunningDemo, method: string, pathAndQuery: string, body?: unknown): Promise<T> =>
	sandboxClient(demo.sandboxUrl, demo.token).data<T>(method, pathAndQuery, body);

/** Ctrl-C as a terminal sends it: SIGINT to the demo's process group. Then nothing it started may be left. */
async function checkStops(checks: Checks, demo: RunningDemo, label: string): Promise<void> {
	await checks.check(`${label}: Ctrl-C stops the demo: no process left, both ports closed, its Node-RED folder removed`, async () => {
		const pid = demo.child.pid;
		assert(pid, 'the demo has no pid');
		const started = descendants(pid);
		// Node-RED renames its process to "node-red"; its working directory is the demo's user dir.
		const nodeRed = started.find((child) => /^node-red\b|red\.js/.test(commandLine(child)));
		const userDir = nodeRed === undefined ? undefined : readlinkSync(`/proc/${nodeRed}/cwd`);
		process.kill(-pid, 'SIGINT');
		const code = await Promise.race([demo.exited, sleep(30_000).then(() => 'timeout' as const)]);
		if (code === 'timeout') stopGroup(demo.child, 'SIGKILL');
		assert(code !== 'timeout', 'the demo did not stop within 30 s of Ctrl-C');
		// npm ends itself by the signal once its script has stopped, as a shell expects of Ctrl-C.
		assert(code === 0 || code === 'SIGINT', `npm run demo ended with ${String(code)}`);
		assert(nodeRed, `no Node-RED process among the demo's processes: ${started.map(commandLine).join(' | ')}`);
		await waitFor('its processes to be gone', async () => (started.some(isAlive) ? undefined : true)).catch(() => undefined);
		const left = started.filter(isAlive);
		assertEqual(left.map(commandLine), [], 'processes left after Ctrl-C');
		for (const url of [demo.editorUrl, demo.sandboxUrl]) {
			const open = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
				() => true,
				() => false,
			);
			assert(!open, `${url} still answers`);
		}
		assert(userDir && !existsSync(userDir), `the demo's Node-RED folder ${userDir} is still there`);
	});
}

async function main(): Promise<void> {
	const checks = new Checks();
	const work = realpathSync(
		execFileSync('mktemp', ['-d', path.join(tmpdir(), 'chat-messaging-demo-test-XXXXXX')], { encoding: 'utf8' }).trim(),
	);
	const clone = path.join(work, 'repo');
	console.log(`demo from a fresh clone (work folder ${work})`);
	if (execFileSync('git', ['status', '--porcelain'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim()) {
		console.log('  note: uncommitted changes are not in the clone; this tests the committed HEAD');
	}
	let browser: Browser | undefined;
	const timings: string[] = [];
	try {
		const cloneStarted = Date.now();
		const cloned = await checks.step('git clone of the committed HEAD, node_modules linked from this checkout', async () => {
			const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
			execFileSync('git', ['clone', '--quiet', '--no-checkout', REPO_ROOT, clone]);
			execFileSync('git', ['checkout', '--quiet', head], { cwd: clone });
			assert(!existsSync(path.join(clone, 'dist')), 'the clone already holds a build');
			symlinkSync(realpathSync(path.join(REPO_ROOT, 'node_modules')), path.join(clone, 'node_modules'), 'dir');
			// A package whose dependency's major differs from the root's has its own (the sandbox's zod 4 beside the
			// root's zod 3, which n8n-workflow pins): npm install puts it in the package's folder, so it is linked too.
			for (const name of readdirSync(path.join(REPO_ROOT, 'packages'))) {
				const own = path.join(REPO_ROOT, 'packages', name, 'node_modules');
				if (existsSync(own) && existsSync(path.join(clone, 'packages', name)))
					symlinkSync(realpathSync(own), path.join(clone, 'packages', name, 'node_modules'), 'dir');
			}
			return Date.now() - cloneStarted;
		});
		if (cloned === undefined) return;

		const cold = await checks.step('cold: npm run demo in the fresh clone says it is running', () => startDemo(clone, cloneStarted));
		if (!cold) return;
		timings.push(`cold ${(cold.readyMs / 1000).toFixed(1)} s (clone and link ${(cloned / 1000).toFixed(1)} s)`);

		await checks.check('it prints the editor URL, the sandbox URL and token, and the first thing to try', () => {
			assert(/First thing to try/.test(cold.output()), 'no "First thing to try"');
			assert(cold.output().includes(`${cold.sandboxUrl}/_sandbox/incoming`), 'the first thing to try is not the simulated inbound message');
			assert(/Ctrl-C stops everything/.test(cold.output()), 'it does not say how to stop');
		});

		await checks.check('the example flows are deployed on one config node that points at the sandbox', async () => {
			const { body } = await httpJson<Json[]>('GET', `${cold.editorUrl}/flows`);
			const configs = body.filter((node) => node.type === 'chat-messaging-config');
			assertEqual(
				configs.map((node) => node.baseUrl),
				[cold.sandboxUrl],
				'config nodes (base URL)',
			);
			const users = body.filter((node) => node.type === 'chat-messaging' || node.type === 'chat-messaging-event');
			assert(users.length >= 5, `only ${users.length} chat-messaging nodes are deployed`);
			assert(
				users.every((node) => node.config === configs[0].id),
				'a node uses another config node',
			);
		});

		await checks.check('Chromium: the editor opens with no banner, notification or dialog, the example flows as tabs', async () => {
			assert(existsSync(CHROMIUM), `${CHROMIUM} not found: apt-get install -y chromium`);
			browser = await launchChromium();
			const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
			await page.goto(cold.editorUrl, { waitUntil: 'domcontentloaded' });
			await page.locator('.red-ui-palette-node[data-palette-type="chat-messaging"]').waitFor({ state: 'visible', timeout: 60_000 });
			// The telemetry question comes 100 ms after load, runtime notifications once the comms socket connects.
			await sleep(3000);
			const shot = path.join(work, 'editor.png');
			await page.screenshot({ path: shot });
			const overlays = await page
				.locator(OVERLAYS)
				.evaluateAll((elements) =>
					elements
						.filter((element) => (element as HTMLElement).offsetParent !== null)
						.map((element) => (element as HTMLElement).innerText.trim()),
				);
			assertEqual(overlays, [], `visible notifications or dialogs (screenshot ${shot})`);
			const tabs = await page.locator('#red-ui-workspace-tabs .red-ui-tab-label').allInnerTexts();
			for (const label of ['React to inbound messages', 'Label and assign new chats', 'Export unread chats every morning']) {
				assert(
					tabs.some((tab) => tab.trim() === label),
					`no "${label}" tab among ${JSON.stringify(tabs)}`,
				);
			}
		});

		await checks.check('a simulated inbound message gets the example auto-reply, once', async () => {
			const phone = '+4915166' + String(Date.now() % 1_000_000).padStart(6, '0');
			const incoming = await sandbox(cold, 'POST', '/_sandbox/incoming', { phone, text: 'Hello, I have a question' });
			const replies = async () =>
				(await sandbox<{ messages: Json[] }>(cold, 'GET', `/chats/${String(incoming.chat_id)}/messages`)).messages.filter(
					(message) => message.from_me === true && message.text === AUTO_REPLY,
				).length;
			await waitFor('the auto-reply', async () => ((await replies()) > 0 ? true : undefined), { timeoutMs: 20_000 });
			await sleep(1000);
			assertEqual(await replies(), 1, 'auto-replies');
		});
		await browser?.close();
		browser = undefined;
		await checkStops(checks, cold, 'cold');

		const warmStarted = Date.now();
		const warm = await checks.step('warm: npm run demo again in the same clone says it is running', () => startDemo(clone, warmStarted));
		if (!warm) return;
		timings.push(`warm ${(warm.readyMs / 1000).toFixed(1)} s`);
		await checkStops(checks, warm, 'warm');
	} finally {
		await browser?.close();
		for (const child of demos.filter((demo) => demo.exitCode === null && demo.pid)) {
			const pids = descendants(child.pid ?? 0);
			stopGroup(child, 'SIGKILL');
			for (const pid of pids.filter(isAlive)) process.kill(pid, 'SIGKILL');
		}
		console.log(`\nclone to running demo: ${timings.join(', ') || 'not measured'}`);
		// The screenshot is kept for a look; the clone goes.
		rmSync(clone, { recursive: true, force: true });
		if (existsSync(path.join(work, 'editor.png'))) console.log(`screenshot: ${path.join(work, 'editor.png')}`);
		else rmSync(work, { recursive: true, force: true });
		checks.report();
	}
}

main().catch((error: unknown) => {
	console.error(error);
	console.log('0 passed, 1 failed');
	process.exitCode = 1;
});
