/**
 * OAuth keeps its grants in node:sqlite, which Node 22.13 and later have: on an older Node the built server
 * refuses to start with a public URL and says why, rather than failing later. (Its tests run on Node 24:
 * test/node24, `npm run test:mcp-oauth`.) On a Node that has it, the same command starts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { runServer, sandboxForTests, serverEnvironment, startHttpServer } from './support';

const TOKEN = 'oauth-node-version';
const { sandbox } = sandboxForTests({ tokens: [TOKEN], chats: 2, port: 0 });
const hasSqlite = Number(process.versions.node.split('.')[0]) > 22 || /^22\.(1[3-9]|[2-9]\d)\./.test(process.versions.node);

test(`--public-url on Node ${process.versions.node}: ${hasSqlite ? 'starts with a SQLite store' : 'refused, naming the Node it needs'}`, async () => {
	const dir = mkdtempSync(join(tmpdir(), 'oauth-node-'));
	const env = serverEnvironment(sandbox(), TOKEN, { CHAT_MESSAGING_MCP_STORE: join(dir, 'grants.sqlite') });
	try {
		if (hasSqlite) {
			const started = await startHttpServer(['--http', '0', '--public-url', 'http://127.0.0.1:1'], env);
			started.server.kill();
			expect(started.stderr()).toContain('OAuth grants in SQLite');
		} else {
			const run = await runServer(['--http', '0', '--public-url', 'http://127.0.0.1:1'], env);
			expect(run.code).toBe(2);
			expect(run.stderr).toContain(`The SQLite store needs Node.js 22.13 or later (this is ${process.version}); or use a redis:// store`);
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
