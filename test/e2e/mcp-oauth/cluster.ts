/**
 * What the OAuth e2e runs on: its secrets (kept out of every log and failure it prints), the built server's replicas
 * on Node 24, and the proxy in front of them on loopback, routed as the README tells a proxy to: a request carrying
 * Mcp-Session-Id to the replica that opened the session (its stream and elicitations live there), every other
 * request to the next live replica in turn, so consecutive requests of one flow land on different replicas.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';

import { builtPackage } from '../../support/packages';

export const WORKSPACE_TOKEN = `ws-${randomBytes(9).toString('hex')}`;
export const SECRET_KEY = randomBytes(32).toString('base64');
/** Every secret of the run, the OAuth tokens included as they are handed out. */
export const secrets: string[] = [WORKSPACE_TOKEN, SECRET_KEY];
export const redact = (text: string) => secrets.reduce((out, secret) => out.split(secret).join('<secret>'), text);

export interface Replica {
	child: ChildProcess;
	port: number;
	log: () => string;
}

export const isLive = (replica: Replica | undefined): replica is Replica =>
	replica !== undefined && !replica.child.killed && replica.child.exitCode === null;

export function startReplica(node24: string, env: NodeJS.ProcessEnv, publicUrl: string): Promise<Replica> {
	const cli = join(builtPackage('mcp-server').dir, 'dist', 'cli.js');
	const child = spawn(join(node24, 'node'), [cli, '--http', '0', '--public-url', publicUrl], { env, stdio: ['ignore', 'ignore', 'pipe'] });
	let log = '';
	return new Promise((resolvePromise, reject) => {
		const timer = setTimeout(() => reject(new Error(`a replica did not start: ${redact(log)}`)), 15_000);
		child.stderr!.on('data', (chunk: Buffer) => {
			log += chunk.toString();
			const match = /Streamable HTTP at http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(log);
			if (match) {
				clearTimeout(timer);
				resolvePromise({ child, port: Number(match[1]), log: () => log });
			}
		});
		child.once('exit', (code) => reject(new Error(`a replica exited (${code}): ${redact(log)}`)));
	});
}

/** Kills a replica at once (no shutdown of its own, as a crash or an OOM kill) and waits for it to be gone. */
export async function killReplica(replica: Replica): Promise<void> {
	const gone = new Promise((done) => replica.child.once('exit', done));
	replica.child.kill('SIGKILL');
	await gone;
}

/** Where the proxy sent a request: the replica's port, and the session the request named or was given. */
export interface Routed {
	port: number;
	session?: string;
}

/** The proxy: sticky by Mcp-Session-Id, round-robin otherwise, Host kept as the client sent it. */
export function stickyProxy(port: number, replicas: () => Array<Replica | undefined>, seen: Routed[]): Promise<Server> {
	let next = 0;
	const sessions = new Map<string, Replica>();
	const proxy = createServer((req, res) => {
		const live = replicas().filter(isLive);
		const named = req.headers['mcp-session-id'];
		const session = typeof named === 'string' ? sessions.get(named) : undefined;
		// A session whose replica is gone goes anywhere: the replica there answers 404 and the client opens a new one.
		const target = isLive(session) ? session : live[next++ % live.length];
		if (!target) return void res.writeHead(502).end();
		const routed: Routed = { port: target.port, ...(typeof named === 'string' ? { session: named } : {}) };
		seen.push(routed);
		const upstream = request(
			{ host: '127.0.0.1', port: target.port, method: req.method, path: req.url, headers: req.headers },
			(answer) => {
				const opened = answer.headers['mcp-session-id'];
				if (typeof opened === 'string' && !routed.session) {
					sessions.set(opened, target);
					routed.session = opened;
				}
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			},
		);
		upstream.on('error', () => res.headersSent || res.writeHead(502).end());
		req.pipe(upstream);
	});
	return new Promise((done, fail) => {
		proxy.once('error', fail);
		proxy.listen(port, '127.0.0.1', () => done(proxy));
	});
}
