/**
 * What n8n's queue mode needs beside n8n, started for one test run and ended with it: PostgreSQL and
 * Redis from Debian's packages on loopback (data in the run's own folder), and long-running processes
 * whose output goes to a log file. Every process runs in its own process group, so stopping it also
 * ends its children (n8n's task runners, the postgres backends).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, createWriteStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const POSTGRES_BIN = process.env.POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

/** A long-running process with its log file. */
export class Service {
	private exited = false;
	private readonly exit: Promise<void>;

	private constructor(
		readonly name: string,
		readonly child: ChildProcess,
		readonly logFile: string,
	) {
		this.exit = new Promise((resolve) =>
			child.on('exit', () => {
				this.exited = true;
				resolve();
			}),
		);
	}

	static start(name: string, command: string, args: string[], options: { env?: NodeJS.ProcessEnv; logDir: string; cwd?: string }): Service {
		const logFile = join(options.logDir, `${name}.log`);
		const log = createWriteStream(logFile, { flags: 'a' });
		const child = spawn(command, args, {
			env: options.env ?? process.env,
			cwd: options.cwd,
			stdio: ['ignore', 'pipe', 'pipe'],
			detached: true,
		});
		child.stdout?.pipe(log, { end: false });
		child.stderr?.pipe(log, { end: false });
		child.on('exit', () => log.end());
		const service = new Service(name, child, logFile);
		running.add(service);
		return service;
	}

	get alive(): boolean {
		return !this.exited;
	}

	log(): string {
		return existsSync(this.logFile) ? readFileSync(this.logFile, 'utf8') : '';
	}

	/** Polls `probe` until it answers true; fails early when the process has exited. */
	async waitUntil(what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<number> {
		const started = Date.now();
		while (Date.now() - started < timeoutMs) {
			if (this.exited) throw new Error(`${this.name} exited (code ${this.child.exitCode}) before ${what}; see ${this.logFile}`);
			try {
				if (await probe()) return Date.now() - started;
			} catch {
				// not ready yet
			}
			await sleep(300);
		}
		throw new Error(`${this.name}: ${what} not within ${timeoutMs} ms; see ${this.logFile}`);
	}

	/** `signal` to the whole group, SIGKILL after the grace period. */
	async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 15_000): Promise<void> {
		if (!this.exited) {
			killGroup(this.child, signal);
			await Promise.race([this.exit, sleep(graceMs)]);
		}
		// Children (a task runner, postgres backends) may outlive the group leader for a moment.
		killGroup(this.child, 'SIGKILL');
		running.delete(this);
	}
}

const running = new Set<Service>();

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
 * A throw-away PostgreSQL cluster in `dir` on 127.0.0.1:`port` (trust authentication for user
 * `user`, no fsync: nothing here must survive a crash), with database `database` created.
 */
export async function startPostgres(options: {
	dir: string;
	port: number;
	user: string;
	database: string;
	logDir: string;
}): Promise<Service> {
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
	const server = Service.start(
		'postgres',
		command[0],
		[
			...command.slice(1),
			'-D',
			dataDir,
			'-p',
			String(options.port),
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
	const psql = (database: string, sql: string) => psqlQuery({ port: options.port, user: options.user, database }, sql);
	await server.waitUntil('accepting connections', async () => psql('postgres', 'select 1').trim() === '1', 30_000);
	psql('postgres', `create database ${options.database}`);
	return server;
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

/** A Redis on 127.0.0.1:`port` that keeps nothing on disk. */
export async function startRedis(options: { dir: string; port: number; logDir: string }): Promise<Service> {
	mkdirSync(options.dir, { recursive: true });
	const server = Service.start(
		'redis',
		'redis-server',
		['--port', String(options.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', options.dir],
		{ logDir: options.logDir },
	);
	await server.waitUntil('ready', async () => /Ready to accept connections/.test(server.log()), 15_000);
	return server;
}
