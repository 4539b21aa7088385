/**
 * Drives a real n8n (the version test/e2e/runtimes.sh installs) on Node 24: its CLI for imports and
 * manual executions, `n8n start` for webhooks, and its REST and public APIs.
 * Settings follow /work/shared/notes/runtimes.md: a quiet instance listening on loopback only.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, createWriteStream, existsSync, mkdirSync, type WriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { basename, join } from 'node:path';

import { builtPackage } from '../../support/packages';

export interface CliResult {
	code: number | null;
	/** The signal that ended the process, when one did (code is then null). */
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
	ms: number;
}

/** What `n8n execute --rawOutput` prints: the run of a workflow (IRun). */
export interface N8nRun {
	data: {
		resultData: {
			runData: Record<
				string,
				Array<{ executionStatus?: string; data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> }; error?: unknown }>
			>;
			error?: { message?: string; description?: string; name?: string; [key: string]: unknown };
			lastNodeExecuted?: string;
		};
	};
	status?: string;
	[key: string]: unknown;
}

/** Where Node 24 and n8n are: test/e2e/runtimes.sh installs them into the runtimes cache the first time and prints them. */
export function n8nRuntimes(): { nodeBin: string; n8nBin: string } {
	const script = join(__dirname, '..', 'runtimes.sh');
	const out = execFileSync('bash', [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
	const vars = Object.fromEntries([...out.matchAll(/^(\w+)='([^']*)'$/gm)].map((match) => [match[1], match[2]]));
	const nodeBin = vars.NODE24_BIN ?? '';
	const n8nBin = vars.N8N_BIN ?? '';
	if (!nodeBin || !n8nBin) throw new Error(`runtimes.sh printed no NODE24_BIN / N8N_BIN: ${out}`);
	return { nodeBin, n8nBin };
}

export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
		});
	});
}

export interface OwnerAccount {
	email: string;
	firstName: string;
	lastName: string;
	password: string;
}

const E2E_OWNER: OwnerAccount = { email: 'owner@example.com', firstName: 'End', lastName: 'ToEnd', password: 'E2e-password-1' };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** n8n exited at start because its task broker's port was taken between choosing and binding it. */
export class BrokerPortTaken extends Error {
	constructor(readonly port: number) {
		super(`n8n's task broker port ${port} was taken before n8n bound it`);
	}
}

export class N8nInstance {
	readonly baseUrl: string;
	private server?: ChildProcess;
	private serverLog?: WriteStream;
	private serverExit?: Promise<void>;
	/** Every n8n process group started and not yet reaped, for the exit handlers. */
	private readonly live = new Set<ChildProcess>();
	private cookie = '';
	private apiKey = '';

	constructor(
		private readonly nodeBin: string,
		private readonly n8nBin: string,
		readonly userFolder: string,
		readonly port: number,
		private brokerPort: number,
		private readonly logDir: string,
	) {
		this.baseUrl = `http://127.0.0.1:${port}`;
	}

	/** Environment of every n8n process: Node 24 first on PATH, loopback only, no phoning home. */
	env(): NodeJS.ProcessEnv {
		return {
			...process.env,
			PATH: `${this.nodeBin}:${process.env.PATH ?? ''}`,
			N8N_USER_FOLDER: this.userFolder,
			N8N_PORT: String(this.port),
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_HOST: '127.0.0.1',
			N8N_PROTOCOL: 'http',
			N8N_WEBHOOK_URL: `${this.baseUrl}/`,
			N8N_EDITOR_BASE_URL: `${this.baseUrl}/`,
			// The task runner broker has a fixed default port: another n8n on this machine would clash.
			N8N_RUNNERS_BROKER_PORT: String(this.brokerPort),
			N8N_DIAGNOSTICS_ENABLED: 'false',
			N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
			N8N_PERSONALIZATION_ENABLED: 'false',
			N8N_TEMPLATES_ENABLED: 'false',
			N8N_SECURE_COOKIE: 'false',
			N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
			N8N_LOG_OUTPUT: 'console',
			// npm scripts export npm_config_* and NODE_OPTIONS tweaks meant for Node 20; n8n must not inherit them.
			NODE_OPTIONS: '',
		};
	}

	/** Runs one n8n CLI command to completion. */
	cli(args: string[], timeoutMs = 120_000): Promise<CliResult> {
		const started = Date.now();
		return new Promise((resolve, reject) => {
			const child = spawn(join(this.nodeBin, 'node'), [this.n8nBin, ...args], {
				env: this.env(),
				stdio: ['ignore', 'pipe', 'pipe'],
				detached: true,
			});
			this.live.add(child);
			let stdout = '';
			let stderr = '';
			child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
			child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
			const timer = setTimeout(() => {
				killGroup(child, 'SIGKILL');
				reject(new Error(`n8n ${args[0]} did not finish within ${timeoutMs} ms`));
			}, timeoutMs);
			child.on('error', (error) => {
				clearTimeout(timer);
				reject(error);
			});
			child.on('close', (code, signal) => {
				clearTimeout(timer);
				// A CLI command can leave its task-runner child behind; end the whole group.
				killGroup(child, 'SIGKILL');
				this.live.delete(child);
				resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
			});
		});
	}

	/**
	 * `n8n execute --id=<id> --rawOutput`: runs a manual-trigger workflow. Log lines come first on
	 * stdout; the run is the JSON from the first line that starts with `{`.
	 */
	async execute(workflowId: string): Promise<{ cli: CliResult; run?: N8nRun }> {
		const cli = await this.cli(['execute', `--id=${workflowId}`, '--rawOutput']);
		const lines = cli.stdout.split('\n');
		const start = lines.findIndex((line) => line.startsWith('{'));
		if (start < 0) return { cli };
		// Tolerate log lines after the JSON too: take the longest prefix that parses.
		for (let end = lines.length; end > start; end--) {
			try {
				return { cli, run: JSON.parse(lines.slice(start, end).join('\n')) as N8nRun };
			} catch {
				// keep shortening
			}
		}
		return { cli };
	}

	/**
	 * `n8n start`, logging to a file, resolved once /healthz/readiness answers 200. The task broker's port was
	 * chosen free but is bound only now: another process on a busy machine may have taken it meanwhile, and n8n
	 * then exits saying so. It is started again on another free port (nothing outside n8n uses that one).
	 */
	async start(timeoutMs = 90_000, attempts = 4): Promise<number> {
		for (let attempt = 1; ; attempt++) {
			try {
				return await this.startOnce(timeoutMs);
			} catch (error) {
				if (!(error instanceof BrokerPortTaken) || attempt >= attempts) throw error;
				this.brokerPort = await freePort();
			}
		}
	}

	private async startOnce(timeoutMs: number): Promise<number> {
		const started = Date.now();
		this.serverLog = createWriteStream(join(this.logDir, 'n8n-start.log'), { flags: 'a' });
		const child = spawn(join(this.nodeBin, 'node'), [this.n8nBin, 'start'], {
			env: this.env(),
			stdio: ['ignore', 'pipe', 'pipe'],
			detached: true,
		});
		this.server = child;
		this.live.add(child);
		child.stdout?.pipe(this.serverLog, { end: false });
		child.stderr?.pipe(this.serverLog, { end: false });
		let output = '';
		child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
		child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
		let exited = false;
		this.serverExit = new Promise((resolve) => child.on('exit', () => ((exited = true), this.live.delete(child), resolve())));
		while (Date.now() - started < timeoutMs) {
			if (exited) {
				if (output.includes(`Task Broker's port ${this.brokerPort} is already in use`)) throw new BrokerPortTaken(this.brokerPort);
				throw new Error(`n8n start exited early (exit code ${child.exitCode}); see ${join(this.logDir, 'n8n-start.log')}`);
			}
			try {
				const response = await fetch(`${this.baseUrl}/healthz/readiness`, { signal: AbortSignal.timeout(2000) });
				if (response.status === 200) return Date.now() - started;
			} catch {
				// not listening yet
			}
			await sleep(300);
		}
		throw new Error(`n8n was not ready within ${timeoutMs} ms`);
	}

	/** SIGTERM to the process group (n8n and its task runner), SIGKILL after a grace period. */
	async stop(graceMs = 15_000): Promise<void> {
		const child = this.server;
		const exit = this.serverExit;
		if (!child || !exit || child.exitCode !== null || child.signalCode !== null) return this.closeLog();
		killGroup(child, 'SIGTERM');
		const timedOut = await Promise.race([exit.then(() => false), sleep(graceMs).then(() => true)]);
		if (timedOut) killGroup(child, 'SIGKILL');
		// The task runner may outlive its parent for a moment.
		killGroup(child, 'SIGKILL');
		this.closeLog();
	}

	/** Synchronous last resort for process exit handlers: every n8n process group still alive. */
	killNow(): void {
		for (const child of this.live) killGroup(child, 'SIGKILL');
	}

	private closeLog(): void {
		this.serverLog?.end();
	}

	/** Creates the owner account (cookie session), then an API key for the public API. */
	async setupOwnerAndApiKey(account: OwnerAccount = E2E_OWNER): Promise<void> {
		const owner = await fetch(`${this.baseUrl}/rest/owner/setup`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(account),
		});
		if (!owner.ok) throw new Error(`owner setup answered ${owner.status}: ${await owner.text()}`);
		this.cookie = (owner.headers.getSetCookie?.() ?? []).map((cookie) => cookie.split(';')[0]).join('; ');
		const scopes = (await this.rest('GET', '/rest/api-keys/scopes')) as string[];
		const wanted = scopes.filter((scope) => /^(workflow|execution):/.test(scope));
		const key = (await this.rest('POST', '/rest/api-keys', { label: 'e2e', scopes: wanted, expiresAt: null })) as { rawApiKey: string };
		this.apiKey = key.rawApiKey;
	}

	/** The owner's session cookie (for requests made without fetch). */
	get sessionCookie(): string {
		return this.cookie;
	}

	/** The editor's internal REST API with the owner's session; returns `data`. */
	async rest(method: string, path: string, body?: unknown): Promise<unknown> {
		const response = await fetch(`${this.baseUrl}${path}`, {
			method,
			headers: { cookie: this.cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
		return (JSON.parse(text) as { data: unknown }).data;
	}

	/** The public API (`/api/v1`) with the API key; returns the parsed body. */
	async publicApi(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
		const response = await fetch(`${this.baseUrl}/api/v1${path}`, {
			method,
			headers: { 'X-N8N-API-KEY': this.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		let parsed: unknown = text;
		try {
			parsed = JSON.parse(text);
		} catch {
			// keep the text
		}
		return { status: response.status, body: parsed };
	}
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined) return;
	try {
		process.kill(-child.pid, signal);
	} catch {
		// already gone
	}
}

/** The n8n package as `npm run build` packed it: a copy of its tarball in `destination`, and the files inside it. */
export interface PackedPackage {
	tarball: string;
	filename: string;
	files: string[];
	/** The package's folder, where its built files are. */
	dir: string;
}

/** The n8n package's tarball from the last build, copied into `destination` (a build running meanwhile cannot change it). */
export function packN8nPackage(destination: string): PackedPackage {
	const built = builtPackage('n8n');
	if (!built.tarballPath || !existsSync(built.tarballPath)) throw new Error(`the build packed no tarball of ${built.name}`);
	const tarball = join(destination, basename(built.tarballPath));
	copyFileSync(built.tarballPath, tarball);
	return { tarball, filename: basename(tarball), files: built.files ?? [], dir: built.dir };
}

/** Extracts a packed package where n8n looks for community packages of `userFolder` (N8N_USER_FOLDER). */
export function installCommunityPackage(tarball: string, userFolder: string, packageName: string): void {
	const target = join(userFolder, '.n8n', 'nodes', 'node_modules', ...packageName.split('/'));
	mkdirSync(target, { recursive: true });
	execFileSync('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
}
