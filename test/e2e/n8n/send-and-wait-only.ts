/**
 * Only the Send and Wait for Response cases of the n8n end-to-end test (send-and-wait-cases.ts), in a real n8n with
 * the packed package, for working on them without the whole run (`npx tsx test/e2e/n8n/send-and-wait-only.ts`,
 * about a minute; `npm run test:e2e:n8n` runs them too, among the rest). E2E_SKIP_BUILD=1 packs the dist/ already
 * built; KEEP_E2E_DIR=1 keeps the work folder. Ends with the `N passed, N failed` line.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startSandbox } from '@chat-messaging/sandbox';
import { assert, CheckRun } from './checks';
import { N8nInstance, freePort, installCommunityPackage, n8nRuntimes, packN8nPackage } from './n8n-instance';
import { runSendAndWaitCases } from './send-and-wait-cases';
import { PACKAGE_NAME, credentialExport } from './workflows';
import { sandboxClient } from '../../support/harness';

const ROOT = resolve(__dirname, '../../..');
const TOKEN = `e2e_${randomBytes(16).toString('hex')}`;
const run = new CheckRun((text) => text.split(TOKEN).join('<token>'));

async function main(): Promise<void> {
	const workDir = mkdtempSync(join(tmpdir(), 'chat-messaging-n8n-send-and-wait-'));
	const logDir = join(workDir, 'logs');
	mkdirSync(logDir);
	let n8n: N8nInstance | undefined;
	let stopSandbox: (() => Promise<void>) | undefined;
	let sandboxUrl = '';
	/** The action node's version new nodes get (Send and Wait for Response is an operation of version 2.x). */
	let typeVersion = 2;
	process.on('exit', () => n8n?.killNow());
	const running = (): N8nInstance => {
		assert(n8n, 'n8n did not start');
		return n8n;
	};

	await run.check(
		'setup: the packed package in a fresh n8n, the sandbox, the credential, n8n started with an owner',
		async () => {
			const { nodeBin, n8nBin } = n8nRuntimes();
			if (process.env.E2E_SKIP_BUILD !== '1') execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
			const packed = packN8nPackage(workDir);
			const userFolder = join(workDir, 'n8n-user');
			installCommunityPackage(packed.tarball, userFolder, PACKAGE_NAME);
			const sandbox = await startSandbox({ tokens: [TOKEN], seed: 7, chats: 20, paceMs: 50, deliveredAfterMs: 200, readAfterMs: 400 });
			sandboxUrl = sandbox.url.replace(/\/+$/, '');
			stopSandbox = () => sandbox.stop();
			n8n = new N8nInstance(nodeBin, n8nBin, userFolder, await freePort(), await freePort(), logDir);
			const credentialFile = join(workDir, 'credential.json');
			writeFileSync(credentialFile, JSON.stringify(credentialExport(sandboxUrl, TOKEN)));
			try {
				const imported = await n8n.cli(['import:credentials', `--input=${credentialFile}`]);
				assert(imported.code === 0, `import:credentials failed: ${imported.stderr.slice(-500)}`);
			} finally {
				rmSync(credentialFile, { force: true });
			}
			const ready = await n8n.start();
			await n8n.setupOwnerAndApiKey();
			const manifest = JSON.parse(readFileSync(join(packed.dir, 'package.json'), 'utf8')) as { n8n: { nodes: string[] } };
			const nodeFile = manifest.n8n.nodes.find((file) => file.endsWith('/ChatMessaging.node.js'));
			assert(nodeFile, 'the package lists no ChatMessaging node');
			// eslint-disable-next-line @typescript-eslint/no-require-imports
			const exported = require(join(packed.dir, nodeFile)) as Record<string, new () => { description: { defaultVersion?: number } }>;
			typeVersion = new (Object.values(exported)[0])().description.defaultVersion ?? 2;
			return `${packed.filename}; n8n ready after ${ready} ms on ${n8n.baseUrl}`;
		},
		true,
	);

	await runSendAndWaitCases({
		check: run.check,
		n8n: running,
		sandbox: <T = unknown>(method: string, path: string, body?: unknown) => sandboxClient(sandboxUrl, TOKEN).data<T>(method, path, body),
		typeVersion,
	});

	await n8n?.stop();
	await stopSandbox?.();
	if (run.failed === 0 && process.env.KEEP_E2E_DIR !== '1') rmSync(workDir, { recursive: true, force: true });
	else console.log(`work folder kept: ${workDir}`);
	console.log(run.summary());
	process.exitCode = run.failed === 0 ? 0 : 1;
}

main().catch((error: unknown) => {
	console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
	console.log(run.summary(true));
	process.exit(1);
});
