/**
 * The demo: the sandbox (200 chats, token "demo") and Node-RED 5 on Node 24 with this package and its
 * example flows deployed, all sharing one config node that points at the sandbox. On loopback, no account.
 *   npm run demo      (Ctrl-C stops everything)
 *
 * Node-RED 5 needs Node >= 22.9: it runs as a child process on the Node 24 the end-to-end tests keep in
 * ~/.cache/chat-messaging (installed the first time, about a minute), so its editor shows no
 * "unsupported version" banner. Telemetry, update notifications and the welcome tour are switched off, so
 * there is no dialog to dismiss. Environment: EDITOR_PORT (1880), SANDBOX_PORT (4010).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, ensurePortFree, fail, onStop, ROOT, runtimes, SANDBOX_PORT, startDemoSandbox, TOKEN, tryInbound } from './demo-support';

const EDITOR_PORT = Number(process.env.EDITOR_PORT ?? 1880);
const PACKAGE_NAME = '@chat-messaging/node-red-chat-messaging';
/** The package as built (its dist/ and examples/), linked into the demo's user dir as if installed. */
const NODE_RED_PACKAGE = join(ROOT, 'packages', 'node-red');
const CONFIG_ID = 'demo-sandbox-config';
/** The editor opens on the first tab: the flow the first thing to try shows at work. */
const FIRST_TABS = ['react-to-inbound-messages.json', 'label-and-assign-new-chats.json'];

type FlowNode = Record<string, unknown> & { id: string; type: string };

/** The example flows the package ships, each one's config node replaced by the one shared config node. */
function exampleFlows(sandboxUrl: string, editorUrl: string): FlowNode[] {
	const dir = join(NODE_RED_PACKAGE, 'examples');
	const shared: FlowNode = {
		id: CONFIG_ID,
		type: 'chat-messaging-config',
		name: 'Sandbox',
		baseUrl: sandboxUrl,
		publicUrl: editorUrl,
		credentials: { token: TOKEN },
	};
	const nodes = [shared];
	const rank = (file: string) => (FIRST_TABS.includes(file) ? FIRST_TABS.indexOf(file) : FIRST_TABS.length);
	const files = readdirSync(dir)
		.filter((name) => name.endsWith('.json'))
		.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
	for (const file of files) {
		for (const node of JSON.parse(readFileSync(join(dir, file), 'utf8')) as FlowNode[]) {
			if (node.type !== 'chat-messaging-config') nodes.push(node.config ? { ...node, config: CONFIG_ID } : node);
		}
	}
	return nodes;
}

/** A user dir with the built package linked in as an installed module (so its examples show under Import too). */
function createUserDir(): string {
	const userDir = mkdtempSync(join(tmpdir(), 'chat-messaging-demo-'));
	const packageDir = NODE_RED_PACKAGE;
	writeFileSync(
		join(userDir, 'package.json'),
		JSON.stringify({ name: 'chat-messaging-demo', private: true, dependencies: { [PACKAGE_NAME]: `file:${packageDir}` } }, null, 2),
	);
	mkdirSync(join(userDir, 'node_modules', '@chat-messaging'), { recursive: true });
	symlinkSync(packageDir, join(userDir, 'node_modules', PACKAGE_NAME), 'dir');
	const settings = {
		uiHost: '127.0.0.1',
		uiPort: EDITOR_PORT,
		flowFile: 'flows.json',
		credentialSecret: 'chat-messaging-demo',
		// No consent dialog and no "new version" notification: telemetry off, decided here.
		telemetry: { enabled: false, updateNotification: false },
		diagnostics: { enabled: false, ui: false },
		editorTheme: { tours: false },
		logging: { console: { level: 'error', metrics: false, audit: false } },
	};
	writeFileSync(join(userDir, 'settings.js'), `module.exports = ${JSON.stringify(settings, null, 2)};\n`);
	return userDir;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
	await ensurePortFree(EDITOR_PORT, 'EDITOR_PORT');
	await ensurePortFree(SANDBOX_PORT, 'SANDBOX_PORT');
	build();
	console.log('Node 24 and Node-RED 5 (installed into ~/.cache/chat-messaging the first time) ...');
	const { NODE24_BIN, NODE_RED5_DIR } = runtimes('node-red-runtimes.sh', { SKIP_NODE_RED4: '1' });
	if (!NODE24_BIN || !NODE_RED5_DIR) fail('test/e2e/node-red-runtimes.sh did not report Node 24 and Node-RED 5');
	const nodeRedVersion = (
		JSON.parse(readFileSync(join(NODE_RED5_DIR, 'node_modules', 'node-red', 'package.json'), 'utf8')) as { version: string }
	).version;
	const nodeVersion = execFileSync(join(NODE24_BIN, 'node'), ['--version'], { encoding: 'utf8' }).trim();

	const sandbox = await startDemoSandbox();
	const editorUrl = `http://127.0.0.1:${EDITOR_PORT}`;
	const userDir = createUserDir();
	// Its own process group: Ctrl-C reaches it once, through stop() below, while the sandbox is still up
	// (the event nodes remove their subscriptions on the way out).
	const nodeRed = spawn(
		join(NODE24_BIN, 'node'),
		[join(NODE_RED5_DIR, 'node_modules', 'node-red', 'red.js'), '-u', userDir, '-s', join(userDir, 'settings.js')],
		{ cwd: userDir, detached: true, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, NODE_OPTIONS: '' } },
	);
	const exited = new Promise<void>((resolve) => nodeRed.once('exit', () => resolve()));
	let stopping = false;
	const stop = async () => {
		stopping = true;
		if (nodeRed.exitCode === null && nodeRed.signalCode === null) {
			nodeRed.kill('SIGINT');
			const late = await Promise.race([exited.then(() => false), sleep(15_000).then(() => true)]);
			if (late) nodeRed.kill('SIGKILL');
		}
		await sandbox.stop();
		rmSync(userDir, { recursive: true, force: true });
	};
	process.on('exit', () => nodeRed.exitCode === null && nodeRed.kill('SIGKILL'));
	onStop(stop);
	void exited.then(async () => {
		if (stopping) return;
		await stop();
		fail(`Node-RED exited (code ${nodeRed.exitCode})`);
	});

	for (let waited = 0; ; waited += 200) {
		const settings = await fetch(`${editorUrl}/settings`).catch(() => undefined);
		if (settings?.ok) break;
		if (waited > 60_000) fail('Node-RED did not answer within 60 s');
		await sleep(200);
	}
	const flows = exampleFlows(sandbox.url, editorUrl);
	const deployed = await fetch(`${editorUrl}/flows`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'Node-RED-Deployment-Type': 'full' },
		body: JSON.stringify(flows),
	});
	if (!deployed.ok) fail(`deploying the example flows failed: HTTP ${deployed.status} ${await deployed.text()}`);
	// Ready once every event node in webhook mode holds its subscriptions on the sandbox (one in polling mode has none).
	const expected = flows
		.filter((node) => node.type === 'chat-messaging-event' && node.mode !== 'polling')
		.flatMap((node) => node.events as string[]).length;
	for (let waited = 0; ; waited += 200) {
		const hooks = await fetch(`${sandbox.url}/_sandbox/webhooks`, { headers: { authorization: `Bearer ${TOKEN}` } });
		const body = (await hooks.json()) as { data?: { webhooks?: unknown[] } | unknown[] };
		const list = Array.isArray(body.data) ? body.data : (body.data?.webhooks ?? []);
		if (list.length >= expected) break;
		if (waited > 30_000) fail(`the example flows' event nodes did not subscribe (${list.length} of ${expected})`);
		await sleep(200);
	}
	const tabs = flows.filter((node) => node.type === 'tab').map((node) => String(node.label));

	console.log(`
Chat Messaging demo is running
  Node-RED editor  ${editorUrl}   (Node-RED ${nodeRedVersion} on Node ${nodeVersion}; no login)
  sandbox          ${sandbox.url}   token: ${TOKEN}   (200 chats)
  example flows    ${tabs.join(' · ')}
                   all on one config node "Sandbox" (Configuration nodes in the editor's sidebar)

First thing to try: write in as a customer; the "React to inbound messages" flow answers in the chat
and "Label and assign new chats" labels and assigns it (watch the editor's Debug sidebar):
  ${tryInbound(sandbox.url)}
Then the chat (labels, responsible) and its messages, with the id the call printed:
  curl -H 'Authorization: Bearer ${TOKEN}' ${sandbox.url}/chats/<chat_id>/messages
Ctrl-C stops everything.`);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
