/**
 * The n8n demo: the sandbox (200 chats, token "demo") and a real n8n (the version the end-to-end tests run,
 * from ~/.cache/chat-messaging, installed the first time) with this package installed as a community
 * package, an owner account, a "Chat Messaging account" credential for the sandbox and the example
 * workflows of packages/n8n/examples imported; the two triggered by events are active.
 *   npm run demo:n8n      (Ctrl-C stops everything; the n8n data lives in a temporary folder)
 * Environment: N8N_PORT (5678), SANDBOX_PORT (4010).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { N8nInstance, freePort, installCommunityPackage, packN8nPackage, type OwnerAccount } from '../test/e2e/n8n/n8n-instance';
import { build, ensurePortFree, fail, onStop, ROOT, runtimes, SANDBOX_PORT, startDemoSandbox, TOKEN, tryInbound } from './demo-support';

const N8N_PORT = Number(process.env.N8N_PORT ?? 5678);
const PACKAGE_NAME = '@chat-messaging/n8n-nodes-chat-messaging';
const EXAMPLES = join(ROOT, 'packages', 'n8n', 'examples');
/** The credential the examples refer to, so they run as imported. */
const CREDENTIAL = { id: 'cmSandboxCred001', name: 'Chat Messaging account', type: 'chatMessagingApi' };
const OWNER: OwnerAccount = { email: 'demo@example.com', firstName: 'Demo', lastName: 'User', password: 'Demo-password-1' };

interface Example {
	id: string;
	name: string;
	nodes: Array<{ type: string }>;
}

/** `npm pack` of the repository, extracted where n8n looks for community packages. */
function installPackage(work: string, userFolder: string): void {
	installCommunityPackage(packN8nPackage(work).tarball, userFolder, PACKAGE_NAME);
}

async function main(): Promise<void> {
	await ensurePortFree(N8N_PORT, 'N8N_PORT');
	await ensurePortFree(SANDBOX_PORT, 'SANDBOX_PORT');
	build();
	console.log('Node 24 and n8n (installed into ~/.cache/chat-messaging the first time: several minutes) ...');
	const { NODE24_BIN, N8N_BIN } = runtimes('runtimes.sh', {});
	if (!NODE24_BIN || !N8N_BIN) fail('test/e2e/runtimes.sh did not report Node 24 and n8n');
	const work = mkdtempSync(join(tmpdir(), 'chat-messaging-demo-n8n-'));
	const userFolder = join(work, 'n8n');
	installPackage(work, userFolder);

	const sandbox = await startDemoSandbox();
	const n8n = new N8nInstance(NODE24_BIN, N8N_BIN, userFolder, N8N_PORT, await freePort(), work);
	onStop(async () => {
		await n8n.stop();
		await sandbox.stop();
		rmSync(work, { recursive: true, force: true });
	});
	process.on('exit', () => n8n.killNow());

	console.log('importing the credential and the example workflows ...');
	const credentialFile = join(work, 'credential.json');
	writeFileSync(credentialFile, JSON.stringify([{ ...CREDENTIAL, data: { baseUrl: sandbox.url, apiToken: TOKEN } }]));
	const credential = await n8n.cli(['import:credentials', `--input=${credentialFile}`]);
	rmSync(credentialFile);
	if (credential.code !== 0) fail(`n8n import:credentials failed:\n${credential.stderr}`);
	const imported = await n8n.cli(['import:workflow', '--separate', `--input=${EXAMPLES}`]);
	if (imported.code !== 0) fail(`n8n import:workflow failed:\n${imported.stderr}`);

	console.log('starting n8n ...');
	await n8n.start().catch((error: Error) => fail(error.message));
	await n8n.setupOwnerAndApiKey(OWNER);
	const examples = readdirSync(EXAMPLES)
		.filter((file) => file.endsWith('.json'))
		.map((file) => JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as Example);
	const triggered = examples.filter((example) => example.nodes.some((node) => node.type.endsWith('.chatMessagingTrigger')));
	for (const example of triggered) {
		const activated = await n8n.publicApi('POST', `/workflows/${example.id}/activate`);
		if (activated.status !== 200) fail(`activating "${example.name}" answered ${activated.status}: ${JSON.stringify(activated.body)}`);
	}

	console.log(`
Chat Messaging n8n demo is running
  n8n        ${n8n.baseUrl}   login: ${OWNER.email} / ${OWNER.password}
  sandbox    ${sandbox.url}   token: ${TOKEN}   (200 chats; credential "${CREDENTIAL.name}")
  workflows  ${examples.map((example) => example.name.replace(/^Chat Messaging: /, '')).join(' · ')}
             active: ${triggered.map((example) => example.name.replace(/^Chat Messaging: /, '')).join(', ')}

First thing to try: write in as a customer; "auto-reply to inbound messages" answers, "label and assign
new chats" labels and assigns the new chat (see each workflow's Executions tab):
  ${tryInbound(sandbox.url)}
Ctrl-C stops everything (the n8n data is temporary).`);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
