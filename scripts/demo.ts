/**
 * The demo: the sandbox with 200 generated chats (token "demo") and a Node-RED editor with this
 * package and its example flows wired to the sandbox, all on loopback, no account needed.
 *   npm run demo      (then open http://127.0.0.1:1880)
 * n8n users point the "Chat Messaging API" credentials at the sandbox URL with the token "demo".
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../sandbox';

const ROOT = join(__dirname, '..');
const SANDBOX_PORT = Number(process.env.SANDBOX_PORT ?? 4010);
const EDITOR_PORT = Number(process.env.EDITOR_PORT ?? 1880);
const TOKEN = 'demo';
const CONFIG_ID = 'demo-config-node';

type FlowNode = Record<string, unknown> & { id: string; type: string };

/** The package's example flows, every config node replaced by one that points at the sandbox. */
function exampleFlows(sandboxUrl: string): FlowNode[] {
	const dir = join(ROOT, 'dist', 'node-red', 'examples');
	const nodes: FlowNode[] = [
		{ id: CONFIG_ID, type: 'chat-messaging-config', name: 'Sandbox', baseUrl: sandboxUrl, publicUrl: `http://127.0.0.1:${EDITOR_PORT}` },
	];
	for (const file of readdirSync(dir)
		.filter((name) => name.endsWith('.json'))
		.sort()) {
		for (const node of JSON.parse(readFileSync(join(dir, file), 'utf8')) as FlowNode[]) {
			if (node.type === 'chat-messaging-config') continue;
			nodes.push(node.config ? { ...node, config: CONFIG_ID } : node);
		}
	}
	return nodes;
}

async function main() {
	console.log('building ...');
	execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] });

	const sandbox = await startSandbox({ port: SANDBOX_PORT, tokens: [TOKEN], chats: 200, seed: 1, paceMs: 1000 });

	// Node-RED embedded in this process (runs on Node 20 and 24), editor at /, HTTP nodes under /api.
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const RED = require('node-red');
	const userDir = mkdtempSync(join(tmpdir(), 'chat-messaging-demo-'));
	const server = createServer((req, res) => {
		if (req.url?.startsWith('/api/')) {
			req.url = req.url.slice('/api'.length);
			return RED.httpNode(req, res);
		}
		return RED.httpAdmin(req, res);
	});
	RED.init(server, {
		userDir,
		httpAdminRoot: '/',
		httpNodeRoot: '/api',
		nodesDir: [join(ROOT, 'dist', 'node-red')],
		credentialSecret: 'demo-only',
		editorTheme: { tours: false, projects: { enabled: false } },
		logging: { console: { level: 'warn' } },
		functionGlobalContext: {},
	});
	await RED.start();
	await new Promise<void>((resolve) => server.listen(EDITOR_PORT, '127.0.0.1', resolve));
	const editorUrl = `http://127.0.0.1:${EDITOR_PORT}`;
	const flows = exampleFlows(sandbox.url).map((node) => (node.id === CONFIG_ID ? { ...node, credentials: { token: TOKEN } } : node));
	const deployed = await fetch(`${editorUrl}/flows`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'Node-RED-Deployment-Type': 'full' },
		body: JSON.stringify(flows),
	});
	if (!deployed.ok) throw new Error(`deploying the example flows failed: HTTP ${deployed.status} ${await deployed.text()}`);

	console.log(`
Chat Messaging demo
  sandbox   ${sandbox.url}   (token: ${TOKEN}, 200 chats)
  Node-RED  ${editorUrl}   (the example flows, wired to the sandbox)

Try:
  curl -H 'Authorization: Bearer ${TOKEN}' '${sandbox.url}/chats?closed=false'
  curl -H 'Authorization: Bearer ${TOKEN}' -H 'Content-Type: application/json' \\
       -d '{"phone":"+4915112345678","text":"Hello"}' ${sandbox.url}/_sandbox/incoming
       (an inbound message: the "React to inbound messages" flow answers it)
  n8n: credentials "Chat Messaging API" with base URL ${sandbox.url} and token ${TOKEN}
Ctrl-C stops everything.`);

	const stop = async () => {
		await RED.stop();
		server.close();
		await sandbox.stop();
		rmSync(userDir, { recursive: true, force: true });
		process.exit(0);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
