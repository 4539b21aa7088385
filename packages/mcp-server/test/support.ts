/**
 * The built server as the tests start it: over stdio as a desktop client does, with --http as a deployment
 * does, or as a command that runs to its exit. Always the built dist/cli.js, with the environment given only
 * (the tests' own environment never leaks into the server's).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { startSandbox, type RunningSandbox, type SandboxOptions } from '@chat-messaging/sandbox';
import { builtPackage } from '../../../test/support/packages';

export const cli = () => join(builtPackage('mcp-server').dir, 'dist', 'cli.js');

/** The server's environment: the sandbox's address and this token, then `env` (which may replace either). */
export function serverEnvironment(sandbox: RunningSandbox, token: string, env: Record<string, string> = {}): Record<string, string> {
	return { PATH: process.env.PATH ?? '', CHAT_MESSAGING_BASE_URL: sandbox.url, CHAT_MESSAGING_TOKEN: token, ...env };
}

/** The server spawned over stdio by the SDK's client transport; what it says on stderr kept. */
export function stdioServer(args: string[], env: Record<string, string>): { transport: StdioClientTransport; stderr: () => string } {
	const transport = new StdioClientTransport({ command: process.execPath, args: [cli(), ...args], env, stderr: 'pipe' });
	let stderr = '';
	transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
	return { transport, stderr: () => stderr };
}

export interface StartedHttp {
	server: ChildProcess;
	port: number;
	/** The MCP endpoint, as the server's log names it. */
	endpoint: URL;
	stderr: () => string;
}

/**
 * The server spawned with these arguments (--http among them); resolves once it logs its endpoint, rejects with its
 * exit code and output when it exits first.
 */
export function startHttpServer(args: string[], env: Record<string, string>): Promise<StartedHttp> {
	const server = spawn(process.execPath, [cli(), ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
	let stderr = '';
	return new Promise<StartedHttp>((resolve, reject) => {
		server.stderr!.on('data', (chunk: Buffer) => {
			stderr += chunk.toString();
			const found = /at (http:\/\/\S+:(\d+)\/mcp)/.exec(stderr);
			if (found) resolve({ server, port: Number(found[2]), endpoint: new URL(found[1]!), stderr: () => stderr });
		});
		server.once('exit', (code) => reject(Object.assign(new Error(`the server exited (${code}): ${stderr}`), { code, stderr })));
	});
}

/** The command run to its exit (stdin closed at once): its exit code and what it printed. */
export function runServer(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [cli(), ...args], { env });
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
		child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
		child.stdin.end();
		child.on('exit', (code) => resolve({ code, stdout, stderr }));
	});
}

/**
 * A sandbox for the tests of the describe block this is called in: started before them; after them, what was
 * given to `closeAfter` (clients, servers) is closed, in order, and the sandbox stopped.
 */
export function sandboxForTests(options: Partial<SandboxOptions>): {
	sandbox: () => RunningSandbox;
	closeAfter: (close: () => unknown) => void;
} {
	let sandbox: RunningSandbox | undefined;
	const closers: Array<() => unknown> = [];
	beforeAll(async () => {
		sandbox = await startSandbox(options);
	});
	afterAll(async () => {
		for (const close of closers) await close();
		await sandbox?.stop();
	});
	return { sandbox: () => sandbox!, closeAfter: (close) => void closers.push(close) };
}
