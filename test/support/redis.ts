/**
 * A real redis-server from Debian's package (CI installs it: test/run-all.sh), on a free loopback port, keeping
 * nothing on disk. A port found free may be taken before Redis binds it: then another is tried.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

import { freePort } from '../e2e/node-red/e2e-support';

export const hasRedisServer = (): boolean => spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

export interface RunningRedis {
	url: string;
	stop(): Promise<void>;
}

function startOnce(port: number): Promise<ChildProcess> {
	return new Promise((resolve, reject) => {
		const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let output = '';
		const timer = setTimeout(() => {
			child.kill('SIGKILL');
			reject(new Error(`redis-server did not start on ${port}: ${output.slice(-500)}`));
		}, 15_000);
		const read = (chunk: Buffer) => {
			output += chunk.toString();
			if (/Ready to accept connections/.test(output)) {
				clearTimeout(timer);
				child.stdout?.off('data', read);
				resolve(child);
			}
		};
		child.stdout?.on('data', read);
		child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
		child.once('exit', (code) => {
			clearTimeout(timer);
			reject(new Error(`redis-server exited (${code}) on port ${port}: ${output.slice(-500)}`));
		});
	});
}

export async function startRedis(attempts = 5): Promise<RunningRedis> {
	let last: unknown;
	for (let attempt = 0; attempt < attempts; attempt++) {
		const port = await freePort();
		try {
			const child = await startOnce(port);
			child.removeAllListeners('exit');
			return {
				url: `redis://127.0.0.1:${port}`,
				stop: () =>
					new Promise((resolve) => {
						child.once('exit', () => resolve());
						child.kill('SIGTERM');
					}),
			};
		} catch (error) {
			last = error; // most likely the port was taken meanwhile
		}
	}
	throw last;
}
