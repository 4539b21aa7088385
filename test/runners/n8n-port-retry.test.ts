/**
 * The e2e harness's n8n starts even when its task broker's port, chosen free, is taken before n8n binds it
 * (another engineer's test on a busy machine): n8n exits saying so, and the harness starts it again on
 * another free port. Runs the real n8n from the runtimes cache; skipped, saying so, where it is not installed.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

import { freePort, N8nInstance, n8nRuntimes } from '../e2e/n8n/n8n-instance';

const installed = existsSync(join(homedir(), '.cache', 'chat-messaging', 'n8n-2.41.1', '.ready'));
if (!installed) console.warn('n8n-port-retry: skipped, n8n 2.41.1 is not in ~/.cache/chat-messaging (test/e2e/runtimes.sh installs it)');

(installed ? test : test.skip)(
	'a task broker port taken between choosing and binding is retried with another',
	async () => {
		const { nodeBin, n8nBin } = n8nRuntimes();
		// n8n run with jest's NODE_ENV=test takes itself for n8n's own tests (and stays up on a taken port).
		const nodeEnv = process.env.NODE_ENV;
		delete process.env.NODE_ENV;
		const taken: Server = createServer();
		await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
		const takenPort = (taken.address() as { port: number }).port;
		const dir = mkdtempSync(join(tmpdir(), 'cm-n8n-port-'));
		const n8n = new N8nInstance(nodeBin, n8nBin, join(dir, 'user'), await freePort(), takenPort, dir);
		try {
			await n8n.start(120_000);
			const answer = await fetch(`${n8n.baseUrl}/healthz/readiness`);
			expect(answer.status).toBe(200);
			expect(n8n.env().N8N_RUNNERS_BROKER_PORT).not.toBe(String(takenPort));
		} finally {
			await n8n.stop();
			process.env.NODE_ENV = nodeEnv;
			await new Promise((resolve) => taken.close(resolve));
			rmSync(dir, { recursive: true, force: true });
		}
	},
	300_000,
);
