/**
 * The setup steps of the n8n end-to-end run, each a check that stops the run when it fails: the runtimes, the
 * package built and packed, installed as a community package, the sandbox, the credential and workflows imported;
 * later, n8n started (and its credential test, which needs the running editor API).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startSandbox } from '@chat-messaging/sandbox';
import { assert } from './checks';
import { N8nInstance, freePort, installCommunityPackage, n8nRuntimes, packN8nPackage, type CliResult } from './n8n-instance';
import { CHAT_COUNT, describeCli, required, type Case, type N8nE2e } from './run-context';
import { startRecordingProxy } from '../../support/recording-proxy';
import { CREDENTIAL_ID, PACKAGE_NAME, credentialExport, exampleWorkflows, savedV1Workflow, v2Workflows, workflows } from './workflows';

const ROOT = resolve(__dirname, '../../..');

type NodeClass = new () => {
	description: { version?: number | number[]; defaultVersion?: number };
	nodeVersions?: Record<string, unknown>;
};

/** The versions a packed node file serves (a versioned node: one per entry), and the one new nodes get. */
function versionsOf(file: string): { all: number[]; latest: number } {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const exported = require(file) as Record<string, NodeClass>;
	const node = new (Object.values(exported)[0])();
	const all = node.nodeVersions ? Object.keys(node.nodeVersions).map(Number) : ([] as number[]).concat(node.description.version ?? []);
	return { all, latest: node.description.defaultVersion ?? Math.max(...all) };
}

async function packPackage(e: N8nE2e): Promise<string> {
	// CI may have built dist/ in an earlier stage; E2E_SKIP_BUILD=1 packs that build as it is.
	if (process.env.E2E_SKIP_BUILD !== '1') execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
	const packed = packN8nPackage(e.workDir);
	e.tarball = packed.tarball;
	const files = packed.files;
	const manifest = JSON.parse(readFileSync(join(packed.dir, 'package.json'), 'utf8')) as {
		n8n: { nodes: string[]; credentials: string[] };
	};
	// Another build running at the same time could have emptied dist/: refuse a half-built package.
	for (const entry of [...manifest.n8n.nodes, ...manifest.n8n.credentials]) assert(files.includes(entry), `the tarball lacks ${entry}`);
	const nodeFile = (name: string) =>
		join(
			packed.dir,
			required(
				manifest.n8n.nodes.find((file) => file.endsWith(`/${name}.node.js`)),
				`the n8n.nodes entry of ${name}`,
			),
		);
	const action = versionsOf(nodeFile('ChatMessaging'));
	e.actionVersions = action.all;
	e.actionDefaultVersion = action.latest;
	assert(e.actionVersions.includes(1), `the action node no longer serves version 1: ${JSON.stringify(e.actionVersions)}`);
	e.triggerVersion = versionsOf(nodeFile('ChatMessagingTrigger')).latest;
	return `${packed.filename}, ${files.length} files, action versions ${e.actionVersions.join(', ')} (new nodes: ${e.actionDefaultVersion}), trigger ${e.triggerVersion}`;
}

async function importCredentialAndWorkflows(e: N8nE2e): Promise<string> {
	const { labelChat, inboundChat } = e;
	assert(labelChat && inboundChat, 'the sandbox has no direct chat with a phone');
	e.n8n = new N8nInstance(e.nodeBin, e.n8nBin, e.userFolder, await freePort(), await freePort(), e.logDir);
	const credentialFile = join(e.workDir, 'credential.json');
	e.proxy = await startRecordingProxy(e.sandboxUrl);
	writeFileSync(credentialFile, JSON.stringify(credentialExport(e.sandboxUrl, e.token, e.proxy.url)));
	let cli: CliResult;
	try {
		cli = await e.n8n.cli(['import:credentials', `--input=${credentialFile}`]);
	} finally {
		// The token lives on in n8n's database, encrypted; not in a plain file.
		rmSync(credentialFile, { force: true });
	}
	e.cliOutputs.push(cli.stdout, cli.stderr);
	assert(cli.code === 0, `import:credentials failed: ${describeCli(cli)}`);
	const workflowFile = join(e.workDir, 'workflows.json');
	const ours = workflows({
		actionTypeVersion: e.actionVersion,
		triggerTypeVersion: e.triggerVersion,
		chatId: labelChat.id,
		phone: e.sendPhone,
		text: e.sendText,
		labelsToAdd: e.labelsToAdd.join(', '),
		labelsReplacement: e.labelsReplacement.join(','),
		errorPhones: e.errorPhones,
	});
	// The example workflows users import (packages/n8n/examples), pointed at this run's credential.
	const v2 = v2Workflows({ typeVersion: e.actionDefaultVersion, chat: { id: labelChat.id, name: labelChat.name }, text: e.v2Text });
	writeFileSync(workflowFile, JSON.stringify([...ours, ...v2, savedV1Workflow(), ...Object.values(exampleWorkflows())]));
	const imported = await e.n8n.cli(['import:workflow', `--input=${workflowFile}`]);
	e.cliOutputs.push(imported.stdout, imported.stderr);
	assert(imported.code === 0, `import:workflow failed: ${describeCli(imported)}`);
	return `credentials ${cli.ms} ms, workflows ${imported.ms} ms`;
}

export const setupCases: Case[] = [
	{
		name: 'runtimes: Node 24 and n8n installed (test/e2e/runtimes.sh)',
		stopsRunOnFailure: true,
		run: async (e) => {
			({ nodeBin: e.nodeBin, n8nBin: e.n8nBin } = n8nRuntimes());
			const nodeVersion = execFileSync(join(e.nodeBin, 'node'), ['--version'], { encoding: 'utf8' }).trim();
			return `node ${nodeVersion}`;
		},
	},
	{ name: 'package: npm run build (packs every package)', stopsRunOnFailure: true, run: packPackage },
	{
		name: 'install: tarball extracted as a community package of the fresh user folder',
		stopsRunOnFailure: true,
		run: async (e) => {
			installCommunityPackage(e.tarball, e.userFolder, PACKAGE_NAME);
			const target = join(e.userFolder, '.n8n', 'nodes', 'node_modules', ...PACKAGE_NAME.split('/'));
			// n8n-workflow is a peer: n8n puts its own node_modules on NODE_PATH before loading packages.
			assert(readdirSync(join(target, 'dist')).includes('nodes'), 'dist/nodes missing after extraction');
			return target.slice(e.userFolder.length + 1);
		},
	},
	{
		name: `sandbox: started with ${CHAT_COUNT} chats`,
		stopsRunOnFailure: true,
		run: async (e) => {
			const started = await startSandbox({
				tokens: [e.token],
				seed: 7,
				chats: CHAT_COUNT,
				paceMs: 50,
				deliveredAfterMs: 200,
				readAfterMs: 400,
			});
			e.sandboxUrl = started.url.replace(/\/+$/, '');
			e.stopSandbox = () => started.stop();
			e.allChats = await e.sandboxChats();
			assert(e.allChats.length === CHAT_COUNT, `the sandbox lists ${e.allChats.length} chats, expected ${CHAT_COUNT}`);
			return e.sandboxUrl;
		},
	},
	{
		name: 'import: credential and workflows (n8n import:credentials, import:workflow)',
		stopsRunOnFailure: true,
		run: importCredentialAndWorkflows,
	},
];

export const startCases: Case[] = [
	{
		name: 'n8n start: ready, owner and API key created',
		stopsRunOnFailure: true,
		run: async (e) => {
			const ready = await e.running().start();
			await e.running().setupOwnerAndApiKey();
			return `ready after ${ready} ms on ${e.running().baseUrl}`;
		},
	},
	{
		name: "Credential: n8n's Test button passes with the stored token and names a wrong one",
		run: async (e) => {
			// As the editor does: read the credential (n8n redacts the token), send it back to /test.
			const stored = (await e.running().rest('GET', `/rest/credentials/${CREDENTIAL_ID}?includeData=true`)) as {
				id: string;
				name: string;
				type: string;
				data: Record<string, unknown>;
			};
			assert(!JSON.stringify(stored).includes(e.token), 'the editor API returns the token in clear');
			const test = async (data: Record<string, unknown>) =>
				(await e.running().rest('POST', '/rest/credentials/test', {
					credentials: { id: stored.id, name: stored.name, type: stored.type, data },
				})) as { status: string; message: string };
			// A trailing slash on the base address must not break the test request.
			const good = await test({ ...stored.data, baseUrl: `${e.sandboxUrl}/` });
			assert(good.status === 'OK', `the stored token failed the test: ${JSON.stringify(good)}`);
			const bad = await test({ ...stored.data, apiToken: 'not-the-token' });
			assert(bad.status === 'Error' && /401|token/i.test(bad.message), `a wrong token gave ${JSON.stringify(bad)}`);
			return `wrong token: "${bad.message}"`;
		},
	},
];
