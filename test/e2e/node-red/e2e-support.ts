/**
 * Harness shared by the Node-RED end-to-end test (e2e.ts) and the editor test in a real browser (browser.ts):
 * real Node-RED runtimes installed outside the clone, the package built and packed as users get it, one
 * Node-RED process per runtime driven over HTTP, and a small pass/fail recorder.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { httpJson, sleep, waitFor as sharedWaitFor, type WaitOptions } from '../../support/harness';

import { builtPackage } from '../../support/packages';

const run = promisify(execFile);
export const REPO_ROOT = path.resolve(__dirname, '../../..');
export const PACKAGE_NAME = '@chat-messaging/node-red-chat-messaging';

export interface Runtimes {
	node24Bin: string;
	nodeRed5Dir: string;
	nodeRed4Dir: string;
}

/** Installs (first time) and locates Node 24, Node-RED 5 and Node-RED 4 via test/e2e/node-red-runtimes.sh. */
export async function loadRuntimes(): Promise<Runtimes> {
	const { stdout } = await run('bash', [path.join(REPO_ROOT, 'test/e2e/node-red-runtimes.sh')], {
		cwd: REPO_ROOT,
		maxBuffer: 16 * 1024 * 1024,
		timeout: 15 * 60_000,
	});
	const values: Record<string, string> = {};
	for (const line of stdout.split('\n')) {
		const match = /^(\w+)='(.*)'$/.exec(line.trim());
		if (match) values[match[1]] = match[2];
	}
	for (const key of ['NODE24_BIN', 'NODE_RED5_DIR', 'NODE_RED4_DIR']) {
		if (!values[key]) throw new Error(`test/e2e/node-red-runtimes.sh printed no ${key}:\n${stdout}`);
	}
	return { node24Bin: values.NODE24_BIN, nodeRed5Dir: values.NODE_RED5_DIR, nodeRed4Dir: values.NODE_RED4_DIR };
}

/**
 * `npm run build` (which packs every package), then a copy of the Node-RED package's tarball in `destination`
 * (a build running meanwhile cannot change it); returns the copy's path.
 * CHAT_MESSAGING_E2E_REUSE_BUILD=1 takes the tarball of the last build as it is (to rerun quickly);
 * CHAT_MESSAGING_E2E_TARBALL=<file> tests that tarball instead (e.g. a deliberately broken build, to see the tests fail).
 */
export async function buildAndPack(destination: string): Promise<string> {
	const given = process.env.CHAT_MESSAGING_E2E_TARBALL;
	if (given) return path.resolve(given);
	if (process.env.CHAT_MESSAGING_E2E_REUSE_BUILD !== '1') {
		await run('npm', ['run', 'build'], { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024, timeout: 5 * 60_000 });
	}
	const built = builtPackage('node-red');
	if (built.name !== PACKAGE_NAME) throw new Error(`packages/node-red is ${built.name}, expected ${PACKAGE_NAME}`);
	if (!built.tarballPath || !existsSync(built.tarballPath)) throw new Error(`the build packed no tarball of ${PACKAGE_NAME}`);
	const copy = path.join(destination, path.basename(built.tarballPath));
	await copyFile(built.tarballPath, copy);
	return copy;
}

export async function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as { port: number };
			server.close(() => resolve(port));
		});
	});
}

export async function makeTempDir(prefix: string): Promise<string> {
	return mkdtemp(path.join(tmpdir(), prefix));
}

export const HTTP_NODE_ROOT = '/api';
/** Fixed so that the test can tell an encrypted credentials file from a plain one; not a real secret. */
export const CREDENTIAL_SECRET = 'chat-messaging-e2e-credential-secret';

/**
 * A fresh Node-RED user dir with the packed package installed the way a user installs it (npm, from the
 * registry for its dependencies) and a settings.js for a quiet loopback instance.
 */
export async function createUserDir(tarball: string, port: number): Promise<string> {
	const userDir = await makeTempDir('nr-user-');
	await writeFile(path.join(userDir, 'package.json'), JSON.stringify({ name: 'node-red-project', private: true }, null, 2));
	await run('npm', ['install', '--no-audit', '--no-fund', '--omit=dev', tarball], {
		cwd: userDir,
		maxBuffer: 16 * 1024 * 1024,
		timeout: 5 * 60_000,
	});
	const settings = {
		flowFile: 'flows.json',
		flowFilePretty: true,
		credentialSecret: CREDENTIAL_SECRET,
		uiHost: '127.0.0.1',
		uiPort: port,
		httpNodeRoot: HTTP_NODE_ROOT,
		logging: { console: { level: process.env.CHAT_MESSAGING_E2E_LOG_LEVEL ?? 'warn', metrics: false, audit: false } },
		diagnostics: { enabled: false, ui: false },
		telemetry: { enabled: false },
		functionExternalModules: false,
		// A context store on disk (flushed every second and at shutdown), for what a test counts across restarts.
		contextStorage: { default: { module: 'memory' }, file: { module: 'localfilesystem', config: { flushInterval: 1 } } },
		editorTheme: { tours: false, projects: { enabled: false } },
		// Loopback test instance; the admin API is open so that the test can deploy without a login.
	};
	await writeFile(path.join(userDir, 'settings.js'), `module.exports = ${JSON.stringify(settings, null, 2)};\n`);
	return userDir;
}

export interface NodeRedInstance {
	url: string;
	userDir: string;
	/** Everything the process wrote to stdout and stderr so far. */
	output(): string;
	stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
/** Last resort if the script dies between start and stop: never leave a Node-RED behind. */
process.on('exit', () => {
	for (const child of running) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
	process.once(signal, () => {
		console.log(`\ninterrupted (${signal}): stopping Node-RED\n0 passed, 1 failed`);
		process.exit(130); // the 'exit' handler above kills the children
	});
}

export async function startNodeRed(options: {
	nodeBin: string;
	nodeRedDir: string;
	userDir: string;
	port: number;
	/** Added to the environment (the registry test puts the runtime's Node first on PATH, for the palette's npm). */
	env?: Record<string, string>;
	/** Another settings file than the user dir's settings.js. */
	settingsFile?: string;
}): Promise<NodeRedInstance> {
	const redJs = path.join(options.nodeRedDir, 'node_modules/node-red/red.js');
	const child = spawn(
		options.nodeBin,
		[redJs, '-u', options.userDir, '-p', String(options.port), '-s', options.settingsFile ?? path.join(options.userDir, 'settings.js')],
		{
			cwd: options.userDir,
			stdio: ['ignore', 'pipe', 'pipe'],
			env: { ...process.env, NODE_ENV: 'production', ...options.env },
		},
	);
	running.add(child);
	let output = '';
	child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
	child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	const url = `http://127.0.0.1:${options.port}`;
	const instance: NodeRedInstance = {
		url,
		userDir: options.userDir,
		output: () => output,
		stop: async () => {
			if (child.exitCode === null && child.signalCode === null) {
				// SIGINT is Node-RED's orderly shutdown: it closes every node (the event node removes its subscriptions).
				child.kill('SIGINT');
				let timer: NodeJS.Timeout | undefined;
				const tooSlow = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), 15_000)));
				const killed = await Promise.race([exited.then(() => false), tooSlow]);
				clearTimeout(timer);
				if (killed) {
					child.kill('SIGKILL');
					await exited;
				}
			}
			running.delete(child);
		},
	};
	const deadline = Date.now() + 60_000;
	for (;;) {
		if (child.exitCode !== null || child.signalCode !== null) throw new Error(`Node-RED exited during start:\n${output}`);
		try {
			const response = await fetch(`${url}/settings`);
			if (response.ok || response.status === 401) break; // 401: up, with adminAuth
		} catch {
			// not listening yet
		}
		if (Date.now() > deadline) {
			await instance.stop();
			throw new Error(`Node-RED did not answer within 60 s:\n${output}`);
		}
		await sleep(200);
	}
	return instance;
}

let deployCounter = 0;

/**
 * Full deploy through the admin API, the way the editor's Deploy button does it. Node-RED 4 answers before
 * the new flows have started, so the deploy appends a probe endpoint (last, after every other node) that
 * answers with a marker unique to this deploy, and waits until the marker comes back.
 */
export async function deployFlows(url: string, flows: Array<Record<string, unknown>>): Promise<void> {
	const marker = `deploy-${process.pid}-${++deployCounter}`;
	const tab = 'e2e-deploy-probe';
	const probe = [
		{ id: tab, type: 'tab', label: 'deploy probe' },
		{ id: `${tab}-in`, z: tab, type: 'http in', url: '/_deployed', method: 'get', wires: [[`${tab}-fn`]] },
		{
			id: `${tab}-fn`,
			z: tab,
			type: 'function',
			func: `msg.payload = ${JSON.stringify(marker)};\nreturn msg;`,
			outputs: 1,
			wires: [[`${tab}-out`]],
		},
		{ id: `${tab}-out`, z: tab, type: 'http response', wires: [] },
	];
	const response = await fetch(`${url}/flows`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json', 'Node-RED-Deployment-Type': 'full', 'Node-RED-API-Version': 'v2' },
		body: JSON.stringify({ flows: [...flows, ...probe] }),
	});
	if (!response.ok) throw new Error(`POST /flows answered ${response.status}: ${await response.text()}`);
	await waitFor('the deployed flows to start', async () => {
		const answer = await fetch(`${url}${HTTP_NODE_ROOT}/_deployed`);
		return (await answer.text()) === marker ? true : undefined;
	});
}

export async function readTextIfExists(file: string): Promise<string | undefined> {
	try {
		return await readFile(file, 'utf8');
	} catch {
		return undefined;
	}
}

export async function removeDir(dir: string): Promise<void> {
	await rm(dir, { recursive: true, force: true });
}

/** The shared wait, with this script's patience: a Node-RED start or deploy takes seconds. */
export const waitFor = <T>(what: string, probe: () => Promise<T | undefined>, options: WaitOptions = {}): Promise<T> =>
	sharedWaitFor(what, probe, { timeoutMs: 15_000, intervalMs: 150, ...options });

export { httpJson, sleep };

export class AssertionFailure extends Error {}

export function assert(condition: unknown, message: string): asserts condition {
	if (!condition) throw new AssertionFailure(message);
}

export function assertEqual<T>(actual: T, expected: T, message: string): void {
	const same = JSON.stringify(actual) === JSON.stringify(expected);
	if (!same) throw new AssertionFailure(`${message}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

/** Records named checks; a failing check is printed with its reason and does not stop the others. */
export class Checks {
	passed = 0;
	failed = 0;
	readonly failures: string[] = [];

	constructor(private readonly prefix = '') {}

	async check(name: string, body: () => Promise<void> | void): Promise<boolean> {
		const started = Date.now();
		const label = this.prefix ? `${this.prefix} ${name}` : name;
		try {
			await body();
			this.passed++;
			console.log(`  ok    ${label} (${Date.now() - started} ms)`);
			return true;
		} catch (error) {
			this.failed++;
			const reason = error instanceof Error ? error.message : String(error);
			this.failures.push(`${label}: ${reason}`);
			console.log(`  FAIL  ${label} (${Date.now() - started} ms)\n        ${reason.replace(/\n/g, '\n        ')}`);
			return false;
		}
	}

	/** Prints the failures and the closing `N passed, N failed` line, and sets the exit code. */
	report(): void {
		if (this.failures.length) console.log(`\nFailures:\n${this.failures.map((failure) => `  - ${failure}`).join('\n')}`);
		console.log(`\n${this.passed} passed, ${this.failed} failed`);
		process.exitCode = this.failed > 0 ? 1 : 0;
	}

	/** A setup step: its failure counts once, and the caller skips what depends on it. */
	async step<T>(name: string, body: () => Promise<T>): Promise<T | undefined> {
		let value: T | undefined;
		const ok = await this.check(name, async () => {
			value = await body();
		});
		return ok ? value : undefined;
	}

	add(other: Checks): void {
		this.passed += other.passed;
		this.failed += other.failed;
		this.failures.push(...other.failures);
	}
}

/**
 * The example flows an installed package ships (`<userDir>/node_modules/<package>/examples`), each one's config
 * node replaced by `configId`, the way the demo wires them: every flow on one configuration. Keyed by file name.
 */
export async function installedExampleFlows(userDir: string, configId: string): Promise<Record<string, Array<Record<string, unknown>>>> {
	const dir = path.join(userDir, 'node_modules', PACKAGE_NAME, 'examples');
	const flows: Record<string, Array<Record<string, unknown>>> = {};
	for (const file of (await readdir(dir)).filter((name) => name.endsWith('.json')).sort()) {
		const nodes = JSON.parse(await readFile(path.join(dir, file), 'utf8')) as Array<Record<string, unknown>>;
		flows[file.replace(/\.json$/, '')] = nodes
			.filter((node) => node.type !== 'chat-messaging-config')
			.map((node) => (node.config ? { ...node, config: configId } : node));
	}
	return flows;
}
