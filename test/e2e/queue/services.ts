/**
 * What n8n's queue mode needs beside n8n, started for one test run and ended with it: PostgreSQL and
 * Redis from Debian's packages on loopback (data in the run's own folder), and long-running processes
 * whose output goes to a log file. Every process runs in its own process group, so stopping it also
 * ends its children (n8n's task runners, the postgres backends). Ports are chosen free; one taken by
 * another process between choosing and binding makes the service exit saying so, and it is started
 * again on others (`onFreePorts`).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, createWriteStream, existsSync, mkdirSync, readFileSync, statSync, type WriteStream } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../n8n/n8n-instance';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What PostgreSQL, Redis and n8n's servers (main, worker health, webhook, task broker) log when their port is taken. */
const PORT_TAKEN = /already in use|Address already in use|could not bind|EADDRINUSE/i;

/** A service exited at start because a port chosen free was taken before it bound it. */
export class PortTaken extends Error {}

/**
 * `start` on `count` distinct ports chosen free, again on others (up to `attempts` times) when it throws PortTaken:
 * another process on this machine may take a port between the choosing and the binding.
 */
export async function onFreePorts<T>(count: number, start: (ports: number[]) => Promise<T>, attempts = 4): Promise<T> {
	for (let attempt = 1; ; attempt++) {
		const ports = new Set<number>();
		while (ports.size < count) ports.add(await freePort());
		try {
			return await start([...ports]);
		} catch (error) {
			if (!(error instanceof PortTaken) || attempt >= attempts) throw error;
			console.log(`    (${error.message}; again on other ports)`);
		}
	}
}

export const POSTGRES_BIN = process.env.POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

/** A long-running process with its log file. */
export class Service {
	private exited = false;
	private readonly exit: Promise<void>;

	/** The log as written so far: the process's output ends it when the process has exited (`closeLog`). */
	private readonly logWritten: Promise<void>;

	private constructor(
		readonly name: string,
		readonly child: ChildProcess,
		readonly logFile: string,
		private readonly logStart: number,
		log: WriteStream,
	) {
		this.exit = new Promise((resolve) =>
			child.on('exit', () => {
				this.exited = true;
				resolve();
			}),
		);
		// Settles once the stream has closed, or failed: an error writing the log must not end the run unnoticed.
		this.logWritten = new Promise((resolve) => {
			log.once('close', resolve);
			log.once('error', (error) => {
				console.log(`    (${name}'s log: ${error.message})`);
				resolve();
			});
		});
		// Both output pipes at their end (the process and its group have let go of them), the log is complete.
		let open = 2;
		const ended = () => {
			if (--open === 0) log.end();
		};
		for (const stream of [child.stdout, child.stderr]) {
			if (!stream) ended();
			else {
				stream.pipe(log, { end: false });
				stream.once('close', ended);
			}
		}
	}

	static start(name: string, command: string, args: string[], options: { env?: NodeJS.ProcessEnv; logDir: string; cwd?: string }): Service {
		const logFile = join(options.logDir, `${name}.log`);
		// A service started again (its port was taken) appends to the same log: its own output begins here.
		const logStart = existsSync(logFile) ? statSync(logFile).size : 0;
		const log = createWriteStream(logFile, { flags: 'a' });
		const child = spawn(command, args, {
			env: options.env ?? process.env,
			cwd: options.cwd,
			stdio: ['ignore', 'pipe', 'pipe'],
			detached: true,
		});
		const service = new Service(name, child, logFile, logStart, log);
		running.add(service);
		return service;
	}

	get alive(): boolean {
		return !this.exited;
	}

	log(): string {
		return existsSync(this.logFile) ? readFileSync(this.logFile, 'utf8') : '';
	}

	/** What this start wrote to the log (a start before it on a taken port wrote to the same file). */
	output(): string {
		return existsSync(this.logFile) ? readFileSync(this.logFile).subarray(this.logStart).toString('utf8') : '';
	}

	/** Polls `probe` until it answers true; fails early when the process has exited (PortTaken when its port was). */
	async waitUntil(what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<number> {
		const started = Date.now();
		while (Date.now() - started < timeoutMs) {
			if (this.exited) {
				await this.stop();
				if (PORT_TAKEN.test(this.output())) throw new PortTaken(`${this.name}: a port was taken before it bound it`);
				throw new Error(`${this.name} exited (code ${this.child.exitCode}) before ${what}; see ${this.logFile}`);
			}
			try {
				if (await probe()) return Date.now() - started;
			} catch {
				// not ready yet
			}
			await sleep(300);
		}
		throw new Error(`${this.name}: ${what} not within ${timeoutMs} ms; see ${this.logFile}`);
	}

	/** `signal` to the whole group, SIGKILL after the grace period; resolves once its log is written and closed. */
	async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 15_000): Promise<void> {
		if (!this.exited) {
			killGroup(this.child, signal);
			await Promise.race([this.exit, sleep(graceMs)]);
		}
		// Children (a task runner, postgres backends) may outlive the group leader for a moment, holding its output open.
		killGroup(this.child, 'SIGKILL');
		await Promise.race([Promise.all([this.exit, this.logWritten]), sleep(5000)]);
		running.delete(this);
	}
}

const running = new Set<Service>();

/**
 * Every service still running stopped, the last started first (n8n before the Redis and PostgreSQL it talks to), each
 * log closed: only then may their folder go. `signal` per service name (PostgreSQL shuts down fastest on SIGINT).
 */
export async function stopAllServices(signals: Record<string, NodeJS.Signals> = {}): Promise<void> {
	for (const service of [...running].reverse()) await service.stop(signals[service.name] ?? 'SIGTERM');
}

/** Synchronous last resort for exit handlers: every service still running, killed. */
export function killAllServicesNow(): void {
	for (const service of running) killGroup(service.child, 'SIGKILL');
	running.clear();
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined) return;
	try {
		process.kill(-child.pid, signal);
	} catch {
		// already gone
	}
}

/** Prefix that runs a command as the postgres user when this process is root: PostgreSQL refuses root. */
function asPostgresUser(): string[] {
	return userInfo().uid === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
}

/**
 * A throw-away PostgreSQL cluster in `dir` on 127.0.0.1 at a port chosen free (trust authentication for user
 * `user`, no fsync: nothing here must survive a crash), with database `database` created.
 */
export async function startPostgres(options: {
	dir: string;
	user: string;
	database: string;
	logDir: string;
}): Promise<{ server: Service; port: number }> {
	const dataDir = join(options.dir, 'data');
	const socketDir = join(options.dir, 'socket');
	mkdirSync(dataDir, { recursive: true });
	mkdirSync(socketDir, { recursive: true });
	const prefix = asPostgresUser();
	if (prefix.length) {
		const { uid, gid } = postgresIds();
		for (const path of [options.dir, dataDir, socketDir]) chownSync(path, uid, gid);
	}
	const run = (command: string, args: string[]) =>
		execFileSync(prefix[0] ?? command, [...prefix.slice(1), ...(prefix.length ? [command] : []), ...args], {
			stdio: ['ignore', 'pipe', 'pipe'],
			encoding: 'utf8',
		});
	run(join(POSTGRES_BIN, 'initdb'), ['-D', dataDir, '-U', options.user, '--auth=trust', '-E', 'UTF8', '--no-instructions']);
	const command = [...prefix, join(POSTGRES_BIN, 'postgres')];
	return onFreePorts(1, async ([port]) => {
		const server = Service.start(
			'postgres',
			command[0],
			[
				...command.slice(1),
				'-D',
				dataDir,
				'-p',
				String(port),
				'-k',
				socketDir,
				'-c',
				'listen_addresses=127.0.0.1',
				'-c',
				'fsync=off',
				'-c',
				'synchronous_commit=off',
				'-c',
				'full_page_writes=off',
			],
			{ logDir: options.logDir },
		);
		const psql = (database: string, sql: string) => psqlQuery({ port, user: options.user, database }, sql);
		await server.waitUntil('accepting connections', async () => psql('postgres', 'select 1').trim() === '1', 30_000);
		psql('postgres', `create database ${options.database}`);
		return { server, port };
	});
}

/** One SQL statement through psql; the rows unaligned, one a line. */
export function psqlQuery(target: { port: number; user: string; database: string }, sql: string): string {
	return execFileSync(
		join(POSTGRES_BIN, 'psql'),
		['-h', '127.0.0.1', '-p', String(target.port), '-U', target.user, '-d', target.database, '-Atc', sql],
		{ stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' },
	);
}

function postgresIds(): { uid: number; gid: number } {
	const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
	return { uid: id('-u'), gid: id('-g') };
}

/** A Redis on 127.0.0.1 at a port chosen free that keeps nothing on disk. */
export async function startRedis(options: { dir: string; logDir: string }): Promise<{ server: Service; port: number }> {
	mkdirSync(options.dir, { recursive: true });
	return onFreePorts(1, async ([port]) => {
		const server = Service.start(
			'redis',
			'redis-server',
			['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', options.dir],
			{ logDir: options.logDir },
		);
		await server.waitUntil('ready', async () => /Ready to accept connections/.test(server.output()), 15_000);
		return { server, port };
	});
}
