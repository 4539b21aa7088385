/**
 * Version 2 of the action node in the real n8n editor, in Chromium (`npm run test:browser:n8n`): the
 * package is packed and installed into a fresh n8n 2.41.1 (as test:e2e:n8n does), n8n is started, the
 * owner signs in through the sign-in page, and the checks work the node's panel as a user would:
 * - the chat picker (resource locator, From List) lists the sandbox's chats, and the chosen chat runs;
 * - Send To switches the addressing field (Phone Number / Chat picker / Chat Name);
 * - a tri-state filter set to Open sends closed=false; set to Any in the panel it sends no filter (read from
 *   a recording proxy in front of the sandbox).
 * Screenshots go to docs/screenshots/n8n-*.png with UPDATE_SCREENSHOTS=1 (else to a temporary folder). Prints `N passed, N failed`; exits 1 on a failure.
 *
 * Environment: E2E_SKIP_BUILD=1 packs the dist/ already built; N8N_EDITOR_PORT (default 5680);
 * CHROMIUM_PATH (default /usr/bin/chromium); KEEP_E2E_DIR=1 keeps the work folder.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM, DOCS_SCREENSHOTS, launchChromium } from '../../support/chromium';

import { startSandbox } from '@chat-messaging/sandbox';
import { assert, CheckRun } from './checks';
import { N8nInstance, freePort, installCommunityPackage, n8nRuntimes, packN8nPackage } from './n8n-instance';
import { runTriggerEditorCases, triggerEditorWorkflows } from './editor-trigger-cases';
import { startRecordingProxy, type RecordingProxy } from '../../support/recording-proxy';
import { ACTION_NODE_TYPE, CREDENTIAL_TYPE, PACKAGE_NAME, RECORDED_CREDENTIAL, credentialExport } from './workflows';
import { sleep, waitFor as sharedWaitFor } from '../../support/harness';

const ROOT = resolve(__dirname, '../../..');
const TOKEN = `editor_${randomBytes(16).toString('hex')}`;
const OWNER = { email: 'editor-owner@example.com', firstName: 'Editor', lastName: 'Owner', password: 'Editor-password-1' };
const NODE_NAME = 'Chat Messaging';
const IDS = { pick: 'edV2PickAChat001', send: 'edV2SendToSwitch', filter: 'edV2TriStateAny1' } as const;

const run = new CheckRun((text) => text.split(TOKEN).join('<token>'));
const { check } = run;

/** The shared wait, with an editor's patience (a page load or a save takes seconds). */
const waitFor = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> =>
	sharedWaitFor(what, probe, { timeoutMs, intervalMs: 200 });

/** A manual trigger and one version 2 action node with the recorded credential. */
function workflow(id: string, name: string, parameters: Record<string, unknown>) {
	return {
		id,
		name,
		active: false,
		nodes: [
			{
				id: 'manual',
				name: 'When clicking Execute',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: 'action',
				name: NODE_NAME,
				type: ACTION_NODE_TYPE,
				typeVersion: 2,
				position: [260, 0],
				parameters,
				credentials: { [CREDENTIAL_TYPE]: { ...RECORDED_CREDENTIAL } },
			},
		],
		connections: { 'When clicking Execute': { main: [[{ node: NODE_NAME, type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

async function shoot(page: Page, name: string): Promise<string> {
	mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
	const file = join(DOCS_SCREENSHOTS, `n8n-${name}.png`);
	await page.screenshot({ path: file });
	return file.startsWith(ROOT) ? file.slice(ROOT.length + 1) : file;
}

/** Opens the workflow and the action node's panel (NDV). */
async function openNode(page: Page, base: string, workflowId: string): Promise<void> {
	await page.goto(`${base}/workflow/${workflowId}`, { waitUntil: 'domcontentloaded' });
	const node = page.locator(`[data-node-name="${NODE_NAME}"]`).first();
	await node.waitFor({ state: 'visible', timeout: 30_000 });
	await node.dblclick();
	await page.locator('[data-test-id="ndv"], .ndv-wrapper, [data-test-id="node-parameters"]').first().waitFor({ timeout: 15_000 });
}

/** Closes the panel and runs the workflow from the canvas' Execute button. */
async function executeFromCanvas(page: Page): Promise<void> {
	// Escape closes an open dropdown; the panel's close button closes the panel.
	await page.keyboard.press('Escape');
	const close = page.locator('[data-test-id="ndv-close-button"]:visible');
	if ((await close.count()) > 0) await close.first().click();
	await page.locator('[data-test-id="node-feature-request"]').first().waitFor({ state: 'hidden', timeout: 10_000 });
	await page.locator('[data-test-id="execute-workflow-button"]').first().click();
}

/** What the checks share: the work folder, the runtimes, the sandbox behind its recording proxy, n8n, the page. */
interface EditorRun {
	workDir: string;
	logDir: string;
	userFolder: string;
	nodeBin: string;
	n8nBin: string;
	port: number;
	base: string;
	sandboxUrl: string;
	/** The first page of the sandbox's chats. */
	chats: Array<{ id: number; name: string; phone: string | null; is_group: boolean }>;
	n8n?: N8nInstance;
	proxy?: RecordingProxy;
	stopSandbox?: () => Promise<void>;
	browser?: Browser;
	page?: Page;
}

const currentPage = (e: EditorRun): Page => {
	assert(e.page, 'no browser page');
	return e.page;
};

const requests = (e: EditorRun): string[] => {
	assert(e.proxy, 'no recording proxy');
	return e.proxy.requests;
};

async function startServices(e: EditorRun): Promise<string> {
	const started = await startSandbox({ tokens: [TOKEN], seed: 21, chats: 30, paceMs: 50 });
	e.sandboxUrl = started.url.replace(/\/+$/, '');
	e.stopSandbox = () => started.stop();
	const proxy = (e.proxy = await startRecordingProxy(e.sandboxUrl));
	const response = await fetch(`${e.sandboxUrl}/chats?page=1`, { headers: { authorization: `Bearer ${TOKEN}` } });
	e.chats = ((await response.json()) as { data: { chats: EditorRun['chats'] } }).data.chats;
	const n8n = (e.n8n = new N8nInstance(e.nodeBin, e.n8nBin, e.userFolder, e.port, await freePort(), e.logDir));
	const credentialFile = join(e.workDir, 'credential.json');
	// Only the recorded credential: every request of these workflows goes through the proxy.
	writeFileSync(credentialFile, JSON.stringify(credentialExport(proxy.url, TOKEN, proxy.url).slice(1)));
	const imported = await n8n.cli(['import:credentials', `--input=${credentialFile}`]);
	rmSync(credentialFile, { force: true });
	assert(imported.code === 0, `import:credentials: ${imported.stderr.slice(-500)}`);
	const workflowFile = join(e.workDir, 'workflows.json');
	writeFileSync(
		workflowFile,
		JSON.stringify([
			workflow(IDS.pick, 'Editor: pick a chat', {
				resource: 'chat',
				operation: 'get',
				chat_id: { __rl: true, mode: 'list', value: '' },
			}),
			workflow(IDS.send, 'Editor: Send To', { text: 'Hello from the editor test', options: {} }),
			workflow(IDS.filter, 'Editor: tri-state filter', {
				resource: 'chat',
				operation: 'getAll',
				limit: 5,
				filters: { closed: 'false' },
			}),
			// Trigger notice, Poll Trigger, Send and Wait for Reply (editor-trigger-cases.ts).
			...triggerEditorWorkflows(),
		]),
	);
	const workflows = await n8n.cli(['import:workflow', `--input=${workflowFile}`]);
	assert(workflows.code === 0, `import:workflow: ${workflows.stderr.slice(-500)}`);
	const ms = await n8n.start();
	await n8n.setupOwnerAndApiKey(OWNER);
	return `${e.chats.length} chats on the first page; n8n ready in ${ms} ms`;
}

async function signIn(e: EditorRun): Promise<string> {
	e.browser = await launchChromium();
	const context = await e.browser.newContext({ viewport: { width: 1440, height: 900 } });
	const page = (e.page = await context.newPage());
	// "Leave without saving?" when a check moves on from a changed workflow: leave.
	page.on('dialog', (dialog) => void dialog.accept());
	await page.goto(`${e.base}/signin`, { waitUntil: 'domcontentloaded' });
	const form = page.locator('[data-test-id="signin-form"]');
	await form.waitFor({ timeout: 30_000 });
	await form.locator('input[type="email"], input[name="emailOrLdapLoginId"], input[name="email"]').first().fill(OWNER.email);
	await form.locator('input[type="password"]').first().fill(OWNER.password);
	await page.locator('[data-test-id="form-submit-button"]').first().click();
	await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 30_000 });
	return new URL(page.url()).pathname;
}

async function chatPickerRuns(e: EditorRun): Promise<string> {
	const p = currentPage(e);
	await openNode(p, e.base, IDS.pick);
	const locator = p.locator('[data-test-id="resource-locator-chat_id"]');
	await locator.waitFor({ timeout: 15_000 });
	await locator.locator('[data-test-id="rlc-input"]').first().click();
	const items = p.locator('[data-test-id="rlc-item"]');
	await items.first().waitFor({ timeout: 20_000 });
	const names = (await items.allInnerTexts()).map((text) => text.trim());
	const sandboxNames = e.chats.map((chat) => chat.name);
	const listed = sandboxNames.filter((name) => names.some((text) => text.startsWith(name)));
	assert(listed.length >= Math.min(10, sandboxNames.length), `listed: ${JSON.stringify(names.slice(0, 12))}`);
	const shot = await shoot(p, 'chat-picker');
	const chosen = e.chats[3]!;
	const before = requests(e).length;
	await items.filter({ hasText: chosen.name }).first().click();
	await executeFromCanvas(p);
	const ran = await waitFor(`GET /chats/${chosen.id} through the proxy`, () =>
		requests(e)
			.slice(before)
			.find((line) => line === `GET /chats/${chosen.id}`),
	);
	await sleep(1000);
	const after = await shoot(p, 'chat-picker-ran');
	return `${names.length} chats listed; picked "${chosen.name}" → ${ran}; ${shot}, ${after}`;
}

async function sendToSwitches(e: EditorRun): Promise<string> {
	const p = currentPage(e);
	await openNode(p, e.base, IDS.send);
	const panel = p.locator('[data-test-id="node-parameters"]').first();
	await panel.getByText('Phone Number', { exact: true }).first().waitFor({ timeout: 15_000 });
	const phoneShot = await shoot(p, 'send-to-phone');
	const sendTo = p.locator('[data-test-id="parameter-input-sendTo"]').first();
	const choose = async (label: string) => {
		await sendTo.click();
		// An option shows its name above its description: match the name exactly.
		await p
			.locator('.el-select-dropdown__item:visible, [role="option"]:visible')
			.filter({ has: p.getByText(label, { exact: true }) })
			.first()
			.click();
		await sleep(400);
	};
	try {
		await choose('Chat');
	} catch (error) {
		await shoot(p, 'send-to-failure');
		throw error;
	}
	await p.locator('[data-test-id="resource-locator-chat_id"]').waitFor({ timeout: 10_000 });
	assert((await panel.getByText('Phone Number', { exact: true }).count()) === 0, 'Phone Number is still shown for Send To = Chat');
	const chatShot = await shoot(p, 'send-to-chat');
	await choose('Chat Name');
	await panel.getByText('Chat Name', { exact: true }).first().waitFor({ timeout: 10_000 });
	assert(
		(await p.locator('[data-test-id="resource-locator-chat_id"]').count()) === 0,
		'the chat picker is still shown for Send To = Chat Name',
	);
	await p.keyboard.press('Escape');
	return `${phoneShot}, ${chatShot}`;
}

async function triStateFilter(e: EditorRun): Promise<string> {
	const p = currentPage(e);
	const listAfter = async (before: number) =>
		await waitFor('GET /chats?… through the proxy', () =>
			requests(e)
				.slice(before)
				.find((line) => line.startsWith('GET /chats?')),
		);
	// Saved with Closed = Open: the filter goes out.
	await p.goto(`${e.base}/workflow/${IDS.filter}`, { waitUntil: 'domcontentloaded' });
	await p.locator(`[data-node-name="${NODE_NAME}"]`).first().waitFor({ timeout: 30_000 });
	let before = requests(e).length;
	try {
		await executeFromCanvas(p);
	} catch (error) {
		mkdirSync(join(e.workDir, 'shots'), { recursive: true });
		await p.screenshot({ path: join(e.workDir, 'shots', 'tri-state-failure.png') });
		throw error;
	}
	const open = await listAfter(before);
	assert(new URL(open.slice(4), 'http://x').searchParams.get('closed') === 'false', `Open did not send closed=false: ${open}`);
	// The user sets it to Any.
	await openNode(p, e.base, IDS.filter);
	const closed = p.locator('[data-test-id="parameter-input-closed"]').first();
	await closed.waitFor({ timeout: 15_000 });
	await closed.click();
	const options = p.locator('.el-select-dropdown__item:visible, [role="option"]:visible');
	await options.first().waitFor({ timeout: 10_000 });
	const labels = (await options.allInnerTexts()).map((text) => text.split('\n')[0]!.trim());
	assert(
		['Any', 'Closed', 'Open'].every((label) => labels.includes(label)),
		`the choices are ${JSON.stringify(labels)}`,
	);
	await options
		.filter({ has: p.getByText('Any', { exact: true }) })
		.first()
		.click();
	await sleep(400);
	const shot = await shoot(p, 'tri-state-filter');
	before = requests(e).length;
	await executeFromCanvas(p);
	const any = await listAfter(before);
	assert(!new URL(any.slice(4), 'http://x').searchParams.has('closed'), `Any sent a filter: ${any}`);
	return `choices ${JSON.stringify(labels)}; Open → ${open}; Any → ${any}; ${shot}`;
}

async function main(): Promise<void> {
	const workDir = mkdtempSync(join(tmpdir(), 'chat-messaging-n8n-editor-'));
	const port = Number(process.env.N8N_EDITOR_PORT ?? 5680);
	const e: EditorRun = {
		workDir,
		logDir: join(workDir, 'logs'),
		userFolder: join(workDir, 'n8n-user'),
		nodeBin: '',
		n8nBin: '',
		port,
		base: `http://127.0.0.1:${port}`,
		sandboxUrl: '',
		chats: [],
	};
	mkdirSync(e.logDir);
	process.on('exit', () => e.n8n?.killNow());
	console.log(`n8n editor test in Chromium (work folder ${workDir})`);

	await check(
		'runtimes and chromium are installed',
		async () => {
			assert(existsSync(CHROMIUM), `${CHROMIUM} not found: apt-get update && apt-get install -y chromium`);
			({ nodeBin: e.nodeBin, n8nBin: e.n8nBin } = n8nRuntimes());
			return undefined;
		},
		true,
	);
	await check(
		'package built, packed and installed as a community package',
		async () => {
			if (process.env.E2E_SKIP_BUILD !== '1') execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
			const packed = packN8nPackage(workDir);
			installCommunityPackage(packed.tarball, e.userFolder, PACKAGE_NAME);
			return packed.filename;
		},
		true,
	);
	await check('sandbox, recording proxy, credential and workflows imported; n8n started; owner set up', () => startServices(e), true);
	await check('the owner signs in through the sign-in page', () => signIn(e), true);
	await check('the chat picker lists the sandbox chats, and the chosen chat runs', () => chatPickerRuns(e));
	await check('Send To switches the addressing field', () => sendToSwitches(e));
	await check('a tri-state filter: Open sends closed=false; set to Any in the panel, it sends no filter', () => triStateFilter(e));

	// The triggers' editor cases (editor-trigger-cases.ts), in the same editor session.
	if (e.page) await runTriggerEditorCases({ page: e.page, base: e.base, check, shoot, requests: () => e.proxy?.requests ?? [] });

	await e.browser?.close();
	await e.n8n?.stop();
	await e.proxy?.stop();
	await e.stopSandbox?.();
	const { failed } = run;
	if (failed === 0 && process.env.KEEP_E2E_DIR !== '1') rmSync(workDir, { recursive: true, force: true });
	else console.log(`work folder kept: ${workDir} (n8n log: ${join(e.logDir, 'n8n-start.log')})`);
	console.log(run.summary());
	if (failed) process.exitCode = 1;
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
