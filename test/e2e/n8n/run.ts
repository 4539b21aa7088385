/**
 * End-to-end test of the n8n package in a real n8n 2.x on Node 24 (`npm run test:e2e:n8n`).
 *
 * Builds and packs the repository, installs the tarball as a community package into a fresh n8n user
 * folder, starts the sandbox, imports a credential and workflows, then checks with real n8n
 * executions: list all chats, send a message, add and replace labels, refuse bad input, and the
 * trigger's webhook lifecycle (subscribe with a secret, one execution for a duplicated delivery,
 * unsubscribe on deactivation). Prints per-step timings and ends with `N passed, N failed`.
 *
 * Environment: KEEP_E2E_DIR=1 keeps the temporary folder (logs, n8n database) even on success;
 * E2E_SKIP_BUILD=1 packs the dist/ already built instead of running `npm run build`.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startSandbox } from '@chat-messaging/sandbox';
import { assert, CheckRun } from './checks';
import { N8nInstance, freePort, installCommunityPackage, n8nRuntimes, packN8nPackage, type CliResult, type N8nRun } from './n8n-instance';
import { startRecordingProxy, type RecordingProxy } from '../../support/recording-proxy';
import { runTriggerCases } from './trigger-cases';
import { runSendAndWaitCases } from './send-and-wait-cases';
import {
	ACTION_NODE_NAME,
	CREDENTIAL_ID,
	PACKAGE_NAME,
	TRIGGER_NODE_NAME,
	TRIGGER_WEBHOOK_ID,
	WORKFLOW_IDS,
	credentialExport,
	exampleWorkflows,
	savedV1Workflow,
	v2Workflows,
	workflows,
} from './workflows';
import { sandboxClient, sleep, waitFor } from '../../support/harness';

const ROOT = resolve(__dirname, '../../..');
const CHAT_COUNT = 130;

// ---------------------------------------------------------------------------------------------
// Checks: each one timed, reported, and counted in the summary (checks.ts). The token is hidden in what they print.
const run = new CheckRun((text) => redact(text));
const { check } = run;

function required<T>(value: T | undefined, what: string): T {
	assert(value !== undefined, `${what} is missing`);
	return value;
}

function equalSets(actual: string[], expected: string[]): boolean {
	const a = [...new Set(actual)].sort();
	const b = [...new Set(expected)].sort();
	return a.length === actual.length && a.length === b.length && a.every((value, i) => value === b[i]);
}

// ---------------------------------------------------------------------------------------------
// The sandbox seen from the outside: its public API with the token, and its control API.

const TOKEN = `e2e_${randomBytes(16).toString('hex')}`;
/** Never print the token, even inside an error message. */
const redact = (text: string) => text.split(TOKEN).join('<token>');

let sandboxUrl = '';

const sandbox = <T = unknown>(method: string, path: string, body?: unknown): Promise<T> =>
	sandboxClient(sandboxUrl, TOKEN).data<T>(method, path, body);

interface SandboxChat {
	id: number;
	name: string;
	phone: string | null;
	is_group: boolean;
	labels: string[];
}

/** Every chat, page by page, straight from the sandbox. */
async function sandboxChats(): Promise<SandboxChat[]> {
	const chats: SandboxChat[] = [];
	for (let page = 1; ; page++) {
		const data = await sandbox<{ chats: SandboxChat[]; has_more_pages: boolean }>('GET', `/chats?page=${page}`);
		chats.push(...data.chats);
		if (!data.has_more_pages) return chats;
		assert(page < 100, 'the sandbox reports more pages forever');
	}
}

interface SandboxWebhook {
	id: number;
	event_type: string;
	url: string;
	enabled: boolean;
}

async function sandboxWebhooks(): Promise<SandboxWebhook[]> {
	const data = await sandbox<SandboxWebhook[] | { webhooks: SandboxWebhook[] }>('GET', '/webhooks');
	return Array.isArray(data) ? data : data.webhooks;
}

// ---------------------------------------------------------------------------------------------
// n8n executions.

type Items = Array<{ json: Record<string, unknown> }>;

/** Output items of a node in a run, or a readable reason why there are none. */
function nodeItems(run: N8nRun | undefined, nodeName: string): Items {
	assert(run, 'n8n printed no run JSON');
	const error = run.data.resultData.error;
	assert(!error, `the execution failed: ${error?.message ?? ''} ${error?.description ?? ''}`);
	const runs = run.data.resultData.runData[nodeName];
	assert(runs && runs.length > 0, `node "${nodeName}" did not run`);
	return runs[runs.length - 1].data?.main?.[0] ?? [];
}

/** Every main output of a node in a run (index 1 is the error output under "Continue (using error output)"). */
function nodeOutputs(run: N8nRun | undefined, nodeName: string): Items[] {
	assert(run, 'n8n printed no run JSON');
	const error = run.data.resultData.error;
	assert(!error, `the execution failed: ${error?.message ?? ''} ${error?.description ?? ''}`);
	const runs = run.data.resultData.runData[nodeName];
	assert(runs && runs.length > 0, `node "${nodeName}" did not run`);
	return (runs[runs.length - 1].data?.main ?? []).map((items) => items ?? []);
}

function describeCli(cli: CliResult): string {
	const tail = (text: string) => text.trim().split('\n').slice(-8).join('\n');
	return `exit code ${cli.code}${cli.signal ? ` (ended by ${cli.signal})` : ''}\nstdout: ${tail(cli.stdout)}\nstderr: ${tail(cli.stderr)}`;
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
	const workDir = mkdtempSync(join(tmpdir(), 'chat-messaging-n8n-e2e-'));
	const logDir = join(workDir, 'logs');
	mkdirSync(logDir);
	const cliOutputs: string[] = [];
	let n8n: N8nInstance | undefined;
	const running = () => required(n8n, 'the n8n instance');
	let stopSandbox: (() => Promise<void>) | undefined;
	const onSignal = (signal: NodeJS.Signals) => {
		console.log(`\n${signal}: stopping n8n and the sandbox`);
		n8n?.killNow();
		if (process.env.KEEP_E2E_DIR !== '1') rmSync(workDir, { recursive: true, force: true });
		process.exit(130);
	};
	process.on('SIGINT', onSignal);
	process.on('SIGTERM', onSignal);
	process.on('exit', () => n8n?.killNow());

	console.log(`n8n end-to-end test (work folder ${workDir})`);
	let nodeBin = '';
	let n8nBin = '';
	let tarball = '';
	// The workflows below were written for version 1 of the action node, as users saved them before version 2.
	const actionVersion = 1;
	let actionVersions: number[] = [];
	let actionDefaultVersion = 1;
	let triggerVersion = 1;

	await check(
		'runtimes: Node 24 and n8n installed (test/e2e/runtimes.sh)',
		async () => {
			({ nodeBin, n8nBin } = n8nRuntimes());
			const nodeVersion = execFileSync(join(nodeBin, 'node'), ['--version'], { encoding: 'utf8' }).trim();
			return `node ${nodeVersion}`;
		},
		true,
	);

	await check(
		'package: npm run build (packs every package)',
		async () => {
			// CI may have built dist/ in an earlier stage; E2E_SKIP_BUILD=1 packs that build as it is.
			if (process.env.E2E_SKIP_BUILD !== '1') execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
			const packed = packN8nPackage(workDir);
			tarball = packed.tarball;
			const files = packed.files;
			const manifest = JSON.parse(readFileSync(join(packed.dir, 'package.json'), 'utf8')) as {
				n8n: { nodes: string[]; credentials: string[] };
			};
			// Another build running at the same time could have emptied dist/: refuse a half-built package.
			for (const entry of [...manifest.n8n.nodes, ...manifest.n8n.credentials]) assert(files.includes(entry), `the tarball lacks ${entry}`);
			/** The versions a node file serves (a versioned node: one per entry), and the one new nodes get. */
			const versions = (file: string): { all: number[]; latest: number } => {
				// eslint-disable-next-line @typescript-eslint/no-require-imports
				const exported = require(join(packed.dir, file)) as Record<
					string,
					new () => { description: { version?: number | number[]; defaultVersion?: number }; nodeVersions?: Record<string, unknown> }
				>;
				const node = new (Object.values(exported)[0])();
				const all = node.nodeVersions
					? Object.keys(node.nodeVersions).map(Number)
					: ([] as number[]).concat(node.description.version ?? []);
				return { all, latest: node.description.defaultVersion ?? Math.max(...all) };
			};
			const nodeFile = (name: string) =>
				required(
					manifest.n8n.nodes.find((file) => file.endsWith(`/${name}.node.js`)),
					`the n8n.nodes entry of ${name}`,
				);
			const action = versions(nodeFile('ChatMessaging'));
			actionVersions = action.all;
			actionDefaultVersion = action.latest;
			assert(actionVersions.includes(1), `the action node no longer serves version 1: ${JSON.stringify(actionVersions)}`);
			triggerVersion = versions(nodeFile('ChatMessagingTrigger')).latest;
			return `${packed.filename}, ${files.length} files, action versions ${actionVersions.join(', ')} (new nodes: ${actionDefaultVersion}), trigger ${triggerVersion}`;
		},
		true,
	);

	const userFolder = join(workDir, 'n8n-user');
	await check(
		'install: tarball extracted as a community package of the fresh user folder',
		async () => {
			installCommunityPackage(tarball, userFolder, PACKAGE_NAME);
			const target = join(userFolder, '.n8n', 'nodes', 'node_modules', ...PACKAGE_NAME.split('/'));
			// n8n-workflow is a peer: n8n puts its own node_modules on NODE_PATH before loading packages.
			assert(readdirSync(join(target, 'dist')).includes('nodes'), 'dist/nodes missing after extraction');
			return target.slice(userFolder.length + 1);
		},
		true,
	);

	let allChats: SandboxChat[] = [];
	await check(
		`sandbox: started with ${CHAT_COUNT} chats`,
		async () => {
			const started = await startSandbox({
				tokens: [TOKEN],
				seed: 7,
				chats: CHAT_COUNT,
				paceMs: 50,
				deliveredAfterMs: 200,
				readAfterMs: 400,
			});
			sandboxUrl = started.url.replace(/\/+$/, '');
			stopSandbox = () => started.stop();
			allChats = await sandboxChats();
			assert(allChats.length === CHAT_COUNT, `the sandbox lists ${allChats.length} chats, expected ${CHAT_COUNT}`);
			return sandboxUrl;
		},
		true,
	);

	const labelChat = allChats.find((chat) => !chat.is_group && chat.phone);
	const inboundChat = allChats.filter((chat) => !chat.is_group && chat.phone).at(-1);
	const sendPhone = '+4915199' + String(Date.now()).slice(-5);
	const sendText = `E2E hello from n8n ${randomBytes(4).toString('hex')}\nsecond line ✓`;
	const labelsToAdd = ['e2e-added-1', 'e2e-added-2'];
	const labelsReplacement = ['e2e-replaced'];
	const v2Text = `E2E v2 Send To Chat Name ${randomBytes(4).toString('hex')}`;
	let proxy: RecordingProxy | undefined;
	const recorded = () => required(proxy, 'the recording proxy').requests;
	const errorPhones = ['+4915188' + String(Date.now()).slice(-5), '+49 151 not valid', '+4915177' + String(Date.now()).slice(-5)];

	await check(
		'import: credential and workflows (n8n import:credentials, import:workflow)',
		async () => {
			assert(labelChat && inboundChat, 'the sandbox has no direct chat with a phone');
			n8n = new N8nInstance(nodeBin, n8nBin, userFolder, await freePort(), await freePort(), logDir);
			const credentialFile = join(workDir, 'credential.json');
			proxy = await startRecordingProxy(sandboxUrl);
			writeFileSync(credentialFile, JSON.stringify(credentialExport(sandboxUrl, TOKEN, proxy.url)));
			let cli: CliResult;
			try {
				cli = await n8n.cli(['import:credentials', `--input=${credentialFile}`]);
			} finally {
				// The token lives on in n8n's database, encrypted; not in a plain file.
				rmSync(credentialFile, { force: true });
			}
			cliOutputs.push(cli.stdout, cli.stderr);
			assert(cli.code === 0, `import:credentials failed: ${describeCli(cli)}`);
			const workflowFile = join(workDir, 'workflows.json');
			const ours = workflows({
				actionTypeVersion: actionVersion,
				triggerTypeVersion: triggerVersion,
				chatId: labelChat.id,
				phone: sendPhone,
				text: sendText,
				labelsToAdd: labelsToAdd.join(', '),
				labelsReplacement: labelsReplacement.join(','),
				errorPhones,
			});
			// The example workflows users import (packages/n8n/examples), pointed at this run's credential.
			const v2 = v2Workflows({ typeVersion: actionDefaultVersion, chat: { id: labelChat.id, name: labelChat.name }, text: v2Text });
			writeFileSync(workflowFile, JSON.stringify([...ours, ...v2, savedV1Workflow(), ...Object.values(exampleWorkflows())]));
			const imported = await n8n.cli(['import:workflow', `--input=${workflowFile}`]);
			cliOutputs.push(imported.stdout, imported.stderr);
			assert(imported.code === 0, `import:workflow failed: ${describeCli(imported)}`);
			return `credentials ${cli.ms} ms, workflows ${imported.ms} ms`;
		},
		true,
	);

	/** Executes a manual-trigger workflow with the CLI; keeps its output for the token check. */
	const execute = async (id: string) => {
		const result = await running().execute(id);
		cliOutputs.push(result.cli.stdout, result.cli.stderr);
		return result;
	};

	await check(`(a) Chat: Get Many with Return All gives every chat (${CHAT_COUNT} > 120, 3 pages)`, async () => {
		const { cli, run } = await execute(WORKFLOW_IDS.listChats);
		assert(cli.code === 0, `n8n execute failed: ${describeCli(cli)}`);
		const items = nodeItems(run, ACTION_NODE_NAME);
		const sandboxIds = (await sandboxChats()).map((chat) => String(chat.id));
		const ids = items.map((item) => String(item.json.id));
		assert(items.length === sandboxIds.length, `n8n returned ${items.length} items, the sandbox holds ${sandboxIds.length} chats`);
		assert(equalSets(ids, sandboxIds), 'the items are not the sandbox chats, each once');
		return `${items.length} items, one per chat; n8n execute ${cli.ms} ms`;
	});

	await check('(b) Message: Send to Phone reaches the sandbox, once', async () => {
		const { cli, run } = await execute(WORKFLOW_IDS.sendMessage);
		assert(cli.code === 0, `n8n execute failed: ${describeCli(cli)}`);
		const items = nodeItems(run, ACTION_NODE_NAME);
		assert(items.length === 1, `expected 1 output item, got ${items.length}`);
		const uid = items[0].json.message_uid;
		assert(typeof uid === 'string' && uid, `the output has no message_uid: ${JSON.stringify(items[0].json)}`);
		const message = await sandbox<{ text: string; chat_id: number; from_me: boolean }>('GET', `/messages/${encodeURIComponent(uid)}`);
		assert(message.text === sendText, `the sandbox holds text ${JSON.stringify(message.text)}`);
		assert(message.from_me === true, 'the message is not from the workspace');
		const chat = (await sandboxChats()).find((c) => c.id === message.chat_id);
		assert(
			chat && chat.phone && chat.phone.replace(/^\+/, '') === sendPhone.replace(/^\+/, ''),
			`the message went to chat ${JSON.stringify(chat)}`,
		);
		const history = await sandbox<{ messages: Array<{ text: string }> }>('GET', `/chats/${message.chat_id}/messages`);
		const copies = history.messages.filter((m) => m.text === sendText).length;
		assert(copies === 1, `the chat holds ${copies} copies of the message`);
		return `uid ${uid}; n8n execute ${cli.ms} ms`;
	});

	await check('(c) Chat Label: Add keeps existing labels, Replace All sets exactly the new set', async () => {
		const chatForLabels = required(labelChat, 'a direct chat');
		const before = await sandbox<{ labels: string[] }>('GET', `/chats/${chatForLabels.id}/labels`);
		const added = await execute(WORKFLOW_IDS.addLabels);
		assert(added.cli.code === 0, `add: n8n execute failed: ${describeCli(added.cli)}`);
		nodeItems(added.run, ACTION_NODE_NAME);
		const afterAdd = await sandbox<{ labels: string[] }>('GET', `/chats/${chatForLabels.id}/labels`);
		const expectedAfterAdd = [...new Set([...before.labels, ...labelsToAdd])];
		assert(
			equalSets(afterAdd.labels, expectedAfterAdd),
			`after add: ${JSON.stringify(afterAdd.labels)}, expected ${JSON.stringify(expectedAfterAdd)}`,
		);
		const replaced = await execute(WORKFLOW_IDS.replaceLabels);
		assert(replaced.cli.code === 0, `replace: n8n execute failed: ${describeCli(replaced.cli)}`);
		nodeItems(replaced.run, ACTION_NODE_NAME);
		const afterReplace = await sandbox<{ labels: string[] }>('GET', `/chats/${chatForLabels.id}/labels`);
		assert(
			equalSets(afterReplace.labels, labelsReplacement),
			`after replace: ${JSON.stringify(afterReplace.labels)}, expected ${JSON.stringify(labelsReplacement)}`,
		);
		return `${JSON.stringify(before.labels)} → ${JSON.stringify(afterAdd.labels)} → ${JSON.stringify(afterReplace.labels)}`;
	});

	await check('(v2) a chat picked from the list (resource locator, mode list) is read by its id', async () => {
		const chat = required(labelChat, 'a direct chat');
		recorded().length = 0;
		const { cli, run } = await execute(WORKFLOW_IDS.v2ChatFromList);
		assert(cli.code === 0, `n8n execute failed: ${describeCli(cli)}`);
		const items = nodeItems(run, ACTION_NODE_NAME);
		assert(
			items.length === 1 && items[0].json.id === chat.id,
			`expected chat ${chat.id}, got ${JSON.stringify(items[0]?.json).slice(0, 200)}`,
		);
		assert(equalSets(recorded(), [`GET /chats/${chat.id}`]), `requests: ${JSON.stringify(recorded())}`);
		return `version ${actionDefaultVersion}; requests ${JSON.stringify(recorded())}`;
	});

	await check('(v2) Send To = Chat Name (resource and operation left at their defaults) sends into that chat, once', async () => {
		const chat = required(labelChat, 'a direct chat');
		recorded().length = 0;
		const { cli, run } = await execute(WORKFLOW_IDS.v2SendToChatName);
		assert(cli.code === 0, `n8n execute failed: ${describeCli(cli)}`);
		const items = nodeItems(run, ACTION_NODE_NAME);
		const uid = items[0]?.json.message_uid;
		assert(typeof uid === 'string' && uid, `no message_uid: ${JSON.stringify(items[0]?.json)}`);
		assert(equalSets(recorded(), ['POST /messages/to_chat_name']), `requests: ${JSON.stringify(recorded())}`);
		const message = await sandbox<{ text: string; chat_id: number }>('GET', `/messages/${encodeURIComponent(uid)}`);
		assert(message.chat_id === chat.id && message.text === v2Text, `the message went to ${JSON.stringify(message)}`);
		const history = await sandbox<{ messages: Array<{ text: string }> }>('GET', `/chats/${chat.id}/messages`);
		assert(history.messages.filter((m) => m.text === v2Text).length === 1, 'the message is not in the chat exactly once');
		return `uid ${uid}`;
	});

	await check('(v2) tri-state filters on Any send no filter; Direct Chats Only sends group=false', async () => {
		recorded().length = 0;
		const { cli, run } = await execute(WORKFLOW_IDS.v2AnyFilter);
		assert(cli.code === 0, `n8n execute failed: ${describeCli(cli)}`);
		const items = nodeItems(run, ACTION_NODE_NAME);
		assert(items.length === 5 && items.every((item) => item.json.is_group === false), `items: ${items.length}`);
		const lists = recorded().filter((line) => line.startsWith('GET /chats?'));
		assert(lists.length >= 1, `no chat list request: ${JSON.stringify(recorded())}`);
		for (const line of lists) {
			const query = new URL(line.slice(4), 'http://x').searchParams;
			assert(!query.has('closed') && !query.has('read'), `a filter left on Any was sent: ${line}`);
			assert(query.get('group') === 'false', `group=false missing: ${line}`);
		}
		return JSON.stringify(lists);
	});

	await check('(v1) a workflow saved with version 1 before version 2 imports and runs as saved', async () => {
		const { cli, run } = await execute(WORKFLOW_IDS.savedV1);
		assert(cli.code === 0, `n8n execute failed: ${describeCli(cli)}`);
		const open = nodeItems(run, 'Open direct chats');
		assert(open.length === 5 && open.every((item) => item.json.closed === false && item.json.is_group === false), 'Open direct chats');
		const greetings = nodeItems(run, 'Send a greeting');
		assert(
			greetings.every((item) => typeof item.json.message_uid === 'string'),
			'Send a greeting gave no message_uid',
		);
		nodeItems(run, 'Label the chat');
		const workspace = nodeItems(run, 'Workspace');
		assert(typeof workspace[0]?.json.workspace_id === 'string', 'Workspace gave no workspace_id');
		const chat = await sandbox<{ closed: boolean; labels: string[] }>('GET', '/chats/1000001');
		assert(
			chat.closed === true && ['vip', 'follow-up'].every((label) => chat.labels.includes(label)),
			`chat 1000001: ${JSON.stringify(chat)}`,
		);
		return `${greetings.length} greetings sent, chat 1000001 labelled and closed`;
	});

	await check('bad input: a phone with spaces fails the execution with an error naming the field', async () => {
		const quotaBefore = await sandbox<{ quota: { used: number } }>('GET', '/_sandbox/queue');
		const { cli, run } = await execute(WORKFLOW_IDS.invalidPhone);
		assert(cli.code !== 0, `n8n execute exited ${cli.code} for an invalid phone`);
		const error = run?.data.resultData.error;
		const text = `${error?.message ?? ''} ${error?.description ?? ''} ${cli.stdout} ${cli.stderr}`;
		assert(/phone/i.test(text), `the error does not name the field "phone": ${describeCli(cli)}`);
		// Refused by the node itself: a service answer would be a NodeApiError carrying its HTTP status.
		assert(
			error?.name === 'NodeOperationError' && !error.httpCode,
			`not refused before the request: ${JSON.stringify(error).slice(0, 400)}`,
		);
		const quotaAfter = await sandbox<{ quota: { used: number } }>('GET', '/_sandbox/queue');
		assert(quotaAfter.quota.used === quotaBefore.quota.used, 'a message was charged');
		return `error: ${(error?.message ?? '').slice(0, 120)}`;
	});

	await check('On Error "Continue (using error output)": the invalid item leaves on the error output, the others are sent', async () => {
		const { cli, run } = await execute(WORKFLOW_IDS.errorOutput);
		assert(cli.code === 0, `n8n execute failed: ${describeCli(cli)}`);
		const [success, failed = []] = nodeOutputs(run, ACTION_NODE_NAME);
		assert(
			success.length === 2 && success.every((item) => typeof item.json.message_uid === 'string'),
			`success output: ${JSON.stringify(success).slice(0, 300)}`,
		);
		assert(failed.length === 1, `error output holds ${failed.length} items: ${JSON.stringify(failed).slice(0, 300)}`);
		assert(
			/phone/i.test(String(failed[0].json.error)),
			`the error item does not name the phone: ${JSON.stringify(failed[0].json).slice(0, 300)}`,
		);
		assert(
			(failed[0].json.details as { field?: string } | undefined)?.field === 'phone',
			`details: ${JSON.stringify(failed[0].json).slice(0, 300)}`,
		);
		const uids = success.map((item) => String(item.json.message_uid));
		assert(new Set(uids).size === 2, `message uids ${JSON.stringify(uids)}`);
		for (const uid of uids) {
			const message = await sandbox<{ text: string }>('GET', `/messages/${encodeURIComponent(uid)}`);
			assert(message.text === 'error output check', `message ${uid} holds ${JSON.stringify(message.text)}`);
		}
		return `2 sent, 1 on the error output: ${String(failed[0].json.error).slice(0, 80)}`;
	});

	await check(
		'On Error "Continue (regular output)": all three items leave on the one output, the invalid one as an error item',
		async () => {
			const { cli, run } = await execute(WORKFLOW_IDS.errorRegular);
			assert(cli.code === 0, `n8n execute failed: ${describeCli(cli)}`);
			const outputs = nodeOutputs(run, ACTION_NODE_NAME);
			const items = outputs[0];
			assert(outputs.length === 1 || (outputs[1] ?? []).length === 0, 'a second output was filled');
			assert(items.length === 3, `${items.length} items on the output`);
			assert(
				typeof items[1].json.error === 'string' && items[1].json.field === 'phone',
				`item 2: ${JSON.stringify(items[1].json).slice(0, 300)}`,
			);
			return 'items 1 and 3 sent, item 2 an error item naming phone';
		},
	);

	const examples = exampleWorkflows();
	await check('(examples) Export unread chats every morning: run now, one CSV row per unread chat', async () => {
		const { cli, run } = await execute(examples['export-unread-chats-every-morning'].id);
		assert(cli.code === 0, `n8n execute failed: ${describeCli(cli)}`);
		const unread: string[] = [];
		for (let page = 1; ; page++) {
			const data = await sandbox<{ chats: SandboxChat[]; has_more_pages: boolean }>('GET', `/chats?read=false&page=${page}`);
			unread.push(...data.chats.map((chat) => String(chat.id)));
			if (!data.has_more_pages) break;
		}
		assert(unread.length > 0, 'the sandbox has no unread chat to export');
		const rows = nodeItems(run, 'Columns');
		assert(
			equalSets(
				rows.map((row) => String(row.json.id)),
				unread,
			),
			`rows ${JSON.stringify(rows.map((row) => row.json.id))}, unread chats ${JSON.stringify(unread)}`,
		);
		assert(
			rows.every((row) => Object.keys(row.json).sort().join() === 'id,labels,last_message,name,phone,responsible'),
			`unexpected columns: ${JSON.stringify(rows[0]?.json)}`,
		);
		const [file] = nodeItems(run, 'CSV file') as Array<{
			binary?: Record<string, { fileName?: string; mimeType?: string; data?: string }>;
		}>;
		const csv = file?.binary?.data;
		assert(
			csv?.fileName === 'unread-chats.csv' && csv.mimeType === 'text/csv',
			`the CSV file item is ${JSON.stringify(file).slice(0, 300)}`,
		);
		return `${rows.length} unread chats; n8n execute ${cli.ms} ms`;
	});

	await check('(examples) Send a file and wait for delivery: delivered, with its attachment, once', async () => {
		const { cli, run } = await execute(examples['send-attachment-and-wait-for-delivery'].id);
		assert(cli.code === 0, `n8n execute failed: ${describeCli(cli)}`);
		const items = nodeItems(run, 'Send with attachment, wait for delivery');
		assert(items.length === 1, `expected 1 output item, got ${items.length}`);
		const { message_uid: uid, status } = items[0].json;
		assert(status === 'delivered' || status === 'read', `the output says status ${String(status)}`);
		const message = await sandbox<{ text: string; chat_id: number; has_attachment: boolean; attachment_filename: string }>(
			'GET',
			`/messages/${encodeURIComponent(String(uid))}`,
		);
		assert(message.has_attachment && message.attachment_filename === 'price-list.pdf', `the sandbox holds ${JSON.stringify(message)}`);
		const history = await sandbox<{ messages: Array<{ uid: string; text: string }> }>('GET', `/chats/${message.chat_id}/messages`);
		const copies = history.messages.filter((m) => m.text === message.text).length;
		assert(copies === 1, `the chat holds ${copies} copies of the message`);
		return `uid ${String(uid)} ${String(status)}; n8n execute ${cli.ms} ms`;
	});

	await check(
		'n8n start: ready, owner and API key created',
		async () => {
			const ready = await running().start();
			await running().setupOwnerAndApiKey();
			return `ready after ${ready} ms on ${running().baseUrl}`;
		},
		true,
	);

	await check("Credential: n8n's Test button passes with the stored token and names a wrong one", async () => {
		// As the editor does: read the credential (n8n redacts the token), send it back to /test.
		const stored = (await running().rest('GET', `/rest/credentials/${CREDENTIAL_ID}?includeData=true`)) as {
			id: string;
			name: string;
			type: string;
			data: Record<string, unknown>;
		};
		assert(!JSON.stringify(stored).includes(TOKEN), 'the editor API returns the token in clear');
		const test = async (data: Record<string, unknown>) =>
			(await running().rest('POST', '/rest/credentials/test', {
				credentials: { id: stored.id, name: stored.name, type: stored.type, data },
			})) as { status: string; message: string };
		// A trailing slash on the base address must not break the test request.
		const good = await test({ ...stored.data, baseUrl: `${sandboxUrl}/` });
		assert(good.status === 'OK', `the stored token failed the test: ${JSON.stringify(good)}`);
		const bad = await test({ ...stored.data, apiToken: 'not-the-token' });
		assert(bad.status === 'Error' && /401|token/i.test(bad.message), `a wrong token gave ${JSON.stringify(bad)}`);
		return `wrong token: "${bad.message}"`;
	});

	const ourHooks = async () => (await sandboxWebhooks()).filter((hook) => hook.url.includes(TRIGGER_WEBHOOK_ID));
	let subscription: SandboxWebhook | undefined;
	await check('(d) Trigger: activation subscribes its production URL with a secret', async () => {
		const activated = await running().publicApi('POST', `/workflows/${WORKFLOW_IDS.trigger}/activate`);
		assert(activated.status === 200, `activate answered ${activated.status}: ${JSON.stringify(activated.body).slice(0, 500)}`);
		const hooks = await waitFor('the sandbox subscription', async () => ((await ourHooks()).length > 0 ? ourHooks() : undefined), {
			timeoutMs: 10_000,
		});
		assert(hooks.length === 1, `expected one subscription, the sandbox holds ${hooks.length}: ${JSON.stringify(hooks)}`);
		subscription = hooks[0];
		const url = new URL(subscription.url);
		assert(subscription.event_type === 'message:received:new', `subscribed to ${subscription.event_type}`);
		assert(subscription.enabled, 'the subscription is disabled');
		assert(
			url.origin === running().baseUrl && url.pathname === `/webhook/${TRIGGER_WEBHOOK_ID}/chat-messaging`,
			`unexpected webhook URL ${url.origin}${url.pathname}`,
		);
		assert((url.searchParams.get('secret') ?? '').length >= 16, 'the URL carries no secret of at least 16 characters');
		// What n8n stored of the trigger's static data at activation (reported, not asserted).
		const stored = (await running().publicApi('GET', `/workflows/${WORKFLOW_IDS.trigger}`)).body as {
			staticData?: Record<string, Record<string, unknown>> | null;
		};
		const staticKeys = Object.values(stored.staticData ?? {}).flatMap((entry) => Object.keys(entry ?? {}));
		return `${url.origin}${url.pathname}?secret=…; static data keys: ${staticKeys.join(', ') || 'none'}`;
	});

	type Execution = { id: string; status: string; finished: boolean; mode?: string; data?: { resultData: N8nRun['data']['resultData'] } };
	const executions = async () => {
		const listed = await running().publicApi('GET', `/executions?workflowId=${WORKFLOW_IDS.trigger}&includeData=true`);
		assert(listed.status === 200, `executions answered ${listed.status}`);
		return (listed.body as { data: Execution[] }).data;
	};

	await check('(d) Trigger: a call without the secret is refused and starts nothing', async () => {
		assert(subscription, 'no subscription');
		const url = new URL(subscription.url);
		url.searchParams.delete('secret');
		const forged = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ event_type: 'message:received:new', data: { text: 'forged', message_uid: 'forged-1' } }),
		});
		await forged.text();
		assert(forged.status >= 400 && forged.status < 500, `the forged call answered ${forged.status}`);
		await sleep(1000);
		const list = await executions();
		assert(list.length === 0, `${list.length} executions after a forged call`);
		return `answered ${forged.status}`;
	});

	await check('(d) Trigger: an inbound message delivered twice starts exactly one execution', async () => {
		assert(subscription && inboundChat, 'no subscription');
		const hook = subscription;
		const text = `E2E inbound ${randomBytes(4).toString('hex')}`;
		const incoming = await sandbox<{ message: { uid: string } }>('POST', '/_sandbox/incoming', {
			phone: inboundChat.phone,
			text,
			duplicate: true,
		});
		type Delivery = { ok: boolean; duplicate: boolean; status_code?: number; body: { data?: { text?: string } } };
		const deliveries = await waitFor(
			'both deliveries answered',
			async () => {
				const { deliveries: all } = await sandbox<{ deliveries: Delivery[] }>('GET', `/_sandbox/deliveries?webhook_id=${hook.id}`);
				const ours = all.filter((d) => d.body?.data?.text === text);
				return ours.some((d) => d.duplicate && d.ok) ? ours : undefined;
			},
			{ timeoutMs: 20_000 },
		);
		assert(
			deliveries.every((d) => d.ok),
			`a delivery failed: ${JSON.stringify(deliveries.map((d) => d.status_code))}`,
		);
		const finished = await waitFor(
			'a finished execution',
			async () => {
				const list = await executions();
				return list.length > 0 && list.every((e) => e.finished || e.status === 'success' || e.status === 'error') ? list : undefined;
			},
			{ timeoutMs: 15_000 },
		);
		// Give a second execution, if the duplicate started one, time to be recorded.
		await sleep(1500);
		const list = await executions();
		assert(list.length === 1, `${list.length} executions for one message delivered twice`);
		assert(list[0].status === 'success', `the execution ended ${list[0].status}`);
		const runs = list[0].data?.resultData.runData[TRIGGER_NODE_NAME];
		const items = runs?.[0]?.data?.main?.[0] ?? [];
		assert(items.length === 1, `the trigger emitted ${items.length} items`);
		assert(
			JSON.stringify(items[0].json).includes(text),
			`the item does not carry the text: ${JSON.stringify(items[0].json).slice(0, 400)}`,
		);
		assert(JSON.stringify(items[0].json).includes(incoming.message.uid), 'the item does not carry the message uid');
		return `${deliveries.length} deliveries (${deliveries.map((d) => d.status_code).join(', ')}), ${finished.length} execution`;
	});

	await check(
		'(d) Trigger: after an n8n restart the stored secret still admits deliveries (same subscription, one execution)',
		async () => {
			assert(subscription && inboundChat, 'no subscription');
			const before = (await executions()).length;
			// n8n 2.41 serves the persisted webhook after a restart; the node's secret comes from the static
			// data n8n saved at activation, so a lost secret would turn every delivery into a 401.
			await running().stop();
			const restarted = Date.now();
			const ready = await running().start();
			// Registered once the node itself answers: 401 for a call without the secret (404 before that).
			const bare = new URL(subscription.url);
			bare.searchParams.delete('secret');
			const registeredAfter = await waitFor(
				'the production webhook after restart',
				async () => {
					const response = await fetch(bare, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
					await response.text();
					return response.status === 401 ? Date.now() - restarted : undefined;
				},
				{ timeoutMs: 20_000 },
			);
			const hooks = await ourHooks();
			assert(hooks.length === 1, `the sandbox holds ${hooks.length} subscriptions of the trigger after restart`);
			assert(
				hooks[0].id === subscription.id && hooks[0].url === subscription.url,
				'the subscription was replaced or re-pointed on restart',
			);
			const text = `E2E after restart ${randomBytes(4).toString('hex')}`;
			await sandbox('POST', '/_sandbox/incoming', { phone: inboundChat.phone, text });
			const list = await waitFor(
				'the execution after restart',
				async () => {
					const all = await executions();
					return all.length > before && all.every((e) => e.finished || e.status === 'success' || e.status === 'error') ? all : undefined;
				},
				{ timeoutMs: 15_000 },
			);
			assert(list.length === before + 1, `${list.length - before} new executions for one message`);
			const latest = list.find((e) => JSON.stringify(e.data?.resultData.runData ?? {}).includes(text));
			assert(latest && latest.status === 'success', 'no successful execution carries the text sent after restart');
			return `ready after ${ready} ms, webhook answering after ${registeredAfter} ms; subscription ${subscription.id} kept`;
		},
	);

	await check(
		'(d) Trigger: "Listen for test event" while published: the test listener and the published workflow each get the event',
		async () => {
			assert(subscription && inboundChat, 'no subscription');
			const workflow = await running().rest('GET', `/rest/workflows/${WORKFLOW_IDS.trigger}`);
			const started = (await running().rest('POST', `/rest/workflows/${WORKFLOW_IDS.trigger}/run`, {
				workflowData: workflow,
				triggerToStartFrom: { name: TRIGGER_NODE_NAME },
			})) as { waitingForWebhook?: boolean };
			assert(started?.waitingForWebhook === true, `n8n did not start listening: ${JSON.stringify(started).slice(0, 300)}`);
			const testHook = await waitFor(
				"the test listener's subscription",
				async () => (await sandboxWebhooks()).find((hook) => hook.url.includes('/webhook-test/')),
				{ timeoutMs: 15_000 },
			);
			const text = `E2E test and production ${randomBytes(4).toString('hex')}`;
			await sandbox('POST', '/_sandbox/incoming', { phone: inboundChat.phone, text });
			const carrying = (list: Execution[]) => list.filter((e) => JSON.stringify(e.data?.resultData.runData ?? {}).includes(text));
			const both = await waitFor(
				'an execution of each webhook',
				async () => {
					const found = carrying(await executions());
					return found.length >= 2 && found.every((e) => e.finished || e.status === 'success') ? found : undefined;
				},
				{ timeoutMs: 20_000 },
			);
			const modes = both.map((e) => e.mode ?? '?').sort();
			assert(modes.includes('manual') && modes.some((mode) => mode !== 'manual'), `execution modes: ${modes.join(', ')}`);
			// The test listener removes only its own subscription once it got its event; the published one stays.
			await waitFor(
				'the test subscription removed',
				async () => ((await sandboxWebhooks()).some((hook) => hook.id === testHook.id) ? undefined : true),
				{ timeoutMs: 15_000 },
			);
			const hooks = await ourHooks();
			assert(hooks.length === 1 && hooks[0].id === subscription.id, 'the published subscription did not survive the test listener');
			return `executions: ${modes.join(' + ')}`;
		},
	);

	await check('(e) Trigger: deactivation removes the subscription', async () => {
		const deactivated = await running().publicApi('POST', `/workflows/${WORKFLOW_IDS.trigger}/deactivate`);
		assert(deactivated.status === 200, `deactivate answered ${deactivated.status}: ${JSON.stringify(deactivated.body).slice(0, 300)}`);
		await waitFor('the subscription to be removed', async () => ((await ourHooks()).length === 0 ? true : undefined), {
			timeoutMs: 10_000,
		});
		const all = await sandboxWebhooks();
		return `the sandbox holds ${all.length} subscriptions`;
	});

	await check(
		'(examples) Auto-reply and Label and assign new chats: a new customer gets the label, a teammate and the answer',
		async () => {
			const active = [examples['auto-reply-to-inbound-messages'], examples['label-and-assign-new-chats']];
			const webhookIds = active.flatMap((example) => example.nodes.map((node) => node.webhookId ?? '')).filter(Boolean);
			const exampleHooks = async () => (await sandboxWebhooks()).filter((hook) => webhookIds.some((id) => hook.url.includes(id)));
			for (const example of active) {
				const activated = await running().publicApi('POST', `/workflows/${example.id}/activate`);
				assert(
					activated.status === 200,
					`activating "${example.name}" answered ${activated.status}: ${JSON.stringify(activated.body).slice(0, 300)}`,
				);
			}
			const hooks = await waitFor('both subscriptions', async () => ((await exampleHooks()).length === 2 ? exampleHooks() : undefined), {
				timeoutMs: 10_000,
			});
			const { teammates } = await sandbox<{ teammates: Array<{ email: string; status: string }> }>('GET', '/workspace/teammates');
			const teammate = required(
				teammates.find((member) => member.status === 'active'),
				'an active teammate',
			).email;
			const phone = '+4915177' + String(Date.now()).slice(-6);
			const incoming = await sandbox<{ chat_id: number; chat_created: boolean }>('POST', '/_sandbox/incoming', {
				phone,
				text: 'Hello, a new customer here',
			});
			assert(incoming.chat_created, 'the sandbox did not create a new chat');
			const reply = 'Thanks for your message, we will answer shortly.';
			const chat = await waitFor(
				'the label, the assignment and the reply',
				async () => {
					const record = await sandbox<{ labels: string[]; responsible_email: string | null }>('GET', `/chats/${incoming.chat_id}`);
					const { messages } = await sandbox<{ messages: Array<{ text: string; from_me: boolean }> }>(
						'GET',
						`/chats/${incoming.chat_id}/messages`,
					);
					const replies = messages.filter((m) => m.from_me && m.text === reply).length;
					return record.labels.includes('new') && record.responsible_email === teammate && replies > 0 ? { ...record, replies } : undefined;
				},
				{ timeoutMs: 20_000 },
			);
			await sleep(1000); // a second reply, if one were sent, would show up within this pause
			const { messages } = await sandbox<{ messages: Array<{ text: string; from_me: boolean }> }>(
				'GET',
				`/chats/${incoming.chat_id}/messages`,
			);
			assert(messages.filter((m) => m.from_me && m.text === reply).length === 1, 'the customer got more than one auto-reply');
			for (const example of active) {
				const deactivated = await running().publicApi('POST', `/workflows/${example.id}/deactivate`);
				assert(deactivated.status === 200, `deactivating "${example.name}" answered ${deactivated.status}`);
			}
			await waitFor('the subscriptions to be removed', async () => ((await exampleHooks()).length === 0 ? true : undefined), {
				timeoutMs: 10_000,
			});
			return `${hooks.map((hook) => hook.event_type).join(' + ')}; labels ${JSON.stringify(chat.labels)}, assigned to ${teammate}`;
		},
	);

	await check(
		"(examples) Download the attachments of inbound messages: the file arrives as binary data, byte-equal, from the sandbox's spec-shaped delivery and from exactly the spec's event (no attachment hint)",
		async () => {
			assert(inboundChat, 'no direct chat');
			const example = examples['download-attachments-of-inbound-messages'];
			const activated = await running().publicApi('POST', `/workflows/${example.id}/activate`);
			assert(activated.status === 200, `activating answered ${activated.status}: ${JSON.stringify(activated.body).slice(0, 300)}`);
			try {
				await waitFor(
					'its subscription',
					async () => ((await sandboxWebhooks()).some((hook) => hook.url.includes(String(example.nodes[0].webhookId))) ? true : undefined),
					{ timeoutMs: 10_000 },
				);
				const bytes = Buffer.from(Array.from({ length: 3000 }, (_, index) => (index * 31) % 256));
				const form = new FormData();
				form.append('file', new Blob([bytes], { type: 'application/pdf' }), 'order.pdf');
				const uploaded = await fetch(`${sandboxUrl}/files_upload`, {
					method: 'POST',
					headers: { authorization: `Bearer ${TOKEN}` },
					body: form,
				});
				const fileUid = ((await uploaded.json()) as { data: { uid: string } }).data.uid;
				type Run = { id: string; status: string; data?: { resultData: N8nRun['data']['resultData'] } };
				const done: string[] = [];
				for (const payload of ['spec', 'spec-exact']) {
					await sandbox('POST', '/_sandbox/incoming', {
						phone: inboundChat.phone,
						text: `my order, attached (${payload})`,
						file_uid: fileUid,
						payload,
					});
					const run = await waitFor(
						`the execution of the ${payload} delivery`,
						async () => {
							const listed = await running().publicApi('GET', `/executions?workflowId=${example.id}&includeData=true`);
							const [latest] = (listed.body as { data: Run[] }).data;
							return latest && latest.status === 'success' && !done.includes(String(latest.id)) ? latest : undefined;
						},
						{ timeoutMs: 20_000 },
					);
					done.push(String(run.id));
					const described = run.data?.resultData.runData['Describe the file']?.[0]?.data?.main?.[0]?.[0] as
						{ json: Record<string, unknown>; binary?: Record<string, { data?: string; id?: string; fileSize?: string }> } | undefined;
					assert(
						described?.json.file_name === 'order.pdf' && described.json.file_type === 'application/pdf',
						`described: ${JSON.stringify(described?.json)}`,
					);
					const fromTrigger = run.data?.resultData.runData['Inbound message with attachments']?.[0]?.data?.main?.[0]?.[0] as
						{ binary?: Record<string, { data?: string; id?: string; fileSize?: string }> } | undefined;
					const binary = fromTrigger?.binary?.attachment_0;
					assert(binary, `no binary attachment_0 on the trigger's item: ${JSON.stringify(fromTrigger).slice(0, 300)}`);
					// n8n keeps the bytes inline (base64), or in its filesystem store under the user folder (an id).
					const stored = binary.id?.startsWith('filesystem-v2:')
						? readFileSync(join(userFolder, '.n8n', 'storage', binary.id.slice('filesystem-v2:'.length)))
						: Buffer.from(String(binary.data), 'base64');
					assert(stored.equals(bytes), `the stored attachment differs (${stored.length} bytes, ${JSON.stringify(binary).slice(0, 200)})`);
				}
				return `order.pdf, ${bytes.length} bytes, equal from both delivery shapes`;
			} finally {
				await running().publicApi('POST', `/workflows/${example.id}/deactivate`);
			}
		},
	);

	// n8n's standard Send and Wait and its human-in-the-loop tool (test/e2e/n8n/send-and-wait-cases.ts).
	await runSendAndWaitCases({ check, n8n: running, sandbox, typeVersion: actionDefaultVersion });

	// The poll trigger and Send and Wait for Reply (test/e2e/n8n/trigger-cases.ts).
	await runTriggerCases({
		check,
		n8n: running,
		sandbox,
		chats: allChats.filter((chat) => !chat.is_group && chat.phone).slice(1, 3),
	});

	await check('the token appears in no n8n output, log, execution or stored workflow', async () => {
		const stored = await running().publicApi('GET', '/workflows?limit=100');
		const executionsJson = JSON.stringify(await executions());
		await running().stop();
		const startLog = readFileSync(join(logDir, 'n8n-start.log'), 'utf8');
		const places: Record<string, string> = {
			'CLI output': cliOutputs.join('\n'),
			'n8n start log': startLog,
			executions: executionsJson,
			workflows: JSON.stringify(stored.body),
		};
		const leaks = Object.entries(places)
			.filter(([, text]) => text.includes(TOKEN))
			.map(([where]) => where);
		assert(leaks.length === 0, `the token appears in: ${leaks.join(', ')}`);
		assert(JSON.stringify(stored.body).includes(WORKFLOW_IDS.trigger), 'the workflow listing is not what was checked');
		return `searched ${Object.keys(places).join(', ')}`;
	});

	await n8n?.stop();
	await stopSandbox?.();
	await proxy?.stop();
	const { failed } = run;
	if (failed === 0 && process.env.KEEP_E2E_DIR !== '1') rmSync(workDir, { recursive: true, force: true });
	else console.log(`work folder kept: ${workDir}`);
	console.log(`total ${run.totalMs} ms`);
	console.log(run.summary());
	process.exitCode = failed === 0 ? 0 : 1;
}

main().catch((error: unknown) => {
	console.error(redact(error instanceof Error ? (error.stack ?? error.message) : String(error)));
	console.log(run.summary(true));
	process.exit(1);
});
