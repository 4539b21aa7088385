/**
 * What both demos share (`npm run demo` with Node-RED, `npm run demo:n8n` with n8n): the build, the real
 * runtimes in the cache the end-to-end tests fill, the sandbox, and one orderly stop on Ctrl-C.
 */
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';

export const ROOT = join(__dirname, '..');
export const TOKEN = 'demo';
export const SANDBOX_PORT = Number(process.env.SANDBOX_PORT ?? 4010);

export function build(): void {
	console.log('building ...');
	execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
}

/**
 * Runs a runtime script of test/e2e (installs what is missing into ~/.cache/chat-messaging, the first time
 * only) and returns the `NAME='value'` lines it prints.
 */
export function runtimes(script: string, env: Record<string, string>): Record<string, string> {
	const out = execFileSync('bash', [join(ROOT, 'test', 'e2e', script)], {
		encoding: 'utf8',
		env: { ...process.env, ...env },
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	return Object.fromEntries([...out.matchAll(/^(\w+)='([^']*)'$/gm)].map((match) => [match[1], match[2]]));
}

/** The sandbox both demos talk to: 200 chats, the token "demo", the service's own pace of about 2 s between sends. */
export async function startDemoSandbox(): Promise<RunningSandbox> {
	try {
		return await startSandbox({ port: SANDBOX_PORT, tokens: [TOKEN], chats: 200, seed: 1 });
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
			fail(`port ${SANDBOX_PORT} is in use: stop what holds it or set SANDBOX_PORT`);
		throw error;
	}
}

/** The control API's simulated inbound message, as the first thing to try. */
export function tryInbound(sandboxUrl: string): string {
	return [
		`curl -H 'Authorization: Bearer ${TOKEN}' -H 'Content-Type: application/json' \\`,
		`       -d '{"phone":"+4915112345678","text":"Hello, I have a question"}' ${sandboxUrl}/_sandbox/incoming`,
	].join('\n');
}

/** Refuses a taken port up front: polling it would otherwise find whatever already answers there. */
export async function ensurePortFree(port: number, variable: string): Promise<void> {
	const free = await new Promise<boolean>((resolve) => {
		const probe = createServer();
		probe.once('error', () => resolve(false));
		probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
	});
	if (!free) fail(`port ${port} is in use: stop what holds it or set ${variable}`);
}

export function fail(message: string): never {
	console.error(`demo: ${message}`);
	process.exit(1);
}

/** Runs `stop` once on Ctrl-C or SIGTERM (npm and tsx relay a terminal's Ctrl-C too), then exits. */
export function onStop(stop: () => Promise<void>): void {
	let stopping = false;
	const handler = () => {
		if (stopping) return;
		stopping = true;
		console.log('\nstopping ...');
		stop().then(
			() => process.exit(0),
			(error: unknown) => {
				console.error(error);
				process.exit(1);
			},
		);
	};
	process.on('SIGINT', handler);
	process.on('SIGTERM', handler);
}
