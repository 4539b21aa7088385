/**
 * The Node-RED editor in a real browser (Debian's chromium driven by playwright-core): Node-RED 5 on
 * Node 24 with the packed package installed, the sandbox behind it. Adds the action node from the
 * palette, checks that the edit dialog shows each operation's fields, configures the service, deploys,
 * and checks that the token is neither exported nor written to flows.json.
 * Run: `npm run test:browser`. Ends with `N passed, N failed`; exits non-zero on failure.
 * Needs /usr/bin/chromium (`apt-get install -y chromium`); CHROMIUM_PATH overrides the path.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startSandbox, type RunningSandbox } from '../../sandbox';
import {
	Checks,
	assert,
	assertEqual,
	buildAndPack,
	createUserDir,
	freePort,
	httpJson,
	loadRuntimes,
	makeTempDir,
	readTextIfExists,
	removeDir,
	startNodeRed,
	waitFor,
	type NodeRedInstance,
} from './e2e-support';

type Json = Record<string, unknown>;

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
	'--no-first-run',
];
const SCREENSHOT_DIR = path.join(tmpdir(), 'chat-messaging-browser-screenshots');

/** Field labels of the operation shown in the open edit dialog, without the required-field marker. */
async function visibleFieldLabels(page: Page): Promise<string[]> {
	const labels = await page.locator('#cm-operations .cm-field-row:visible > label').allInnerTexts();
	return labels.map((label) => label.replace(/\*/g, '').trim());
}

async function chooseOperation(page: Page, resource: string, operationName: string): Promise<void> {
	await page.selectOption('#node-input-resource', { label: resource });
	await page.selectOption('#node-input-operation', { label: operationName });
}

const isShown = (page: Page, selector: string): Promise<boolean> => page.locator(selector).first().isVisible();

async function runBrowserChecks(checks: Checks): Promise<void> {
	const work = await makeTempDir('nr-browser-');
	const token = `nr-browser-${randomBytes(12).toString('hex')}`;
	let sandbox: RunningSandbox | undefined;
	let nodeRed: NodeRedInstance | undefined;
	let browser: Browser | undefined;
	let userDir: string | undefined;
	const pageErrors: string[] = [];
	try {
		if (!existsSync(CHROMIUM)) {
			await checks.check('chromium is installed', () => {
				throw new Error(`${CHROMIUM} not found: apt-get update && apt-get install -y chromium`);
			});
			return;
		}
		const runtimes = await checks.step('install or reuse Node-RED 5 and Node 24', () => loadRuntimes());
		const tarball = await checks.step('npm run build and npm pack dist/node-red', () => buildAndPack(work));
		if (!runtimes || !tarball) return;
		sandbox = await startSandbox({ tokens: [token], seed: 5, chats: 30, paceMs: 50 });
		const port = await freePort();
		userDir = await checks.step('npm install of the packed package into a fresh user dir', () => createUserDir(tarball, port));
		if (!userDir) return;
		const dir = userDir;
		nodeRed = await checks.step('Node-RED 5 on Node 24 starts', () =>
			startNodeRed({ nodeBin: path.join(runtimes.node24Bin, 'node'), nodeRedDir: runtimes.nodeRed5Dir, userDir: dir, port }),
		);
		if (!nodeRed) return;
		const red = nodeRed;
		const sandboxUrl = sandbox.url;

		browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
		const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
		page.on('pageerror', (error) => pageErrors.push(error.message));
		await mkdir(SCREENSHOT_DIR, { recursive: true });

		const editorReady = await checks.check('the editor loads and the palette shows the action and event nodes', async () => {
			await page.goto(red.url, { waitUntil: 'domcontentloaded' });
			await page.locator('.red-ui-palette-node[data-palette-type="chat-messaging"]').waitFor({ state: 'visible', timeout: 60_000 });
			assert(await isShown(page, '.red-ui-palette-node[data-palette-type="chat-messaging-event"]'), 'the event node is not in the palette');
			assertEqual(
				await page.locator('.red-ui-palette-node[data-palette-type="chat-messaging-config"]').count(),
				0,
				'config nodes in the palette',
			);
		});
		if (!editorReady) return;

		const added = await checks.check('drag the chat-messaging node from the palette onto the workspace', async () => {
			const source = page.locator('.red-ui-palette-node[data-palette-type="chat-messaging"]');
			await source.scrollIntoViewIfNeeded();
			const from = await source.boundingBox();
			const chart = await page.locator('#red-ui-workspace-chart').boundingBox();
			assert(from && chart, 'palette node or workspace has no box');
			// jQuery UI draggable needs real intermediate moves, not a single jump.
			await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
			await page.mouse.down();
			await page.mouse.move(from.x + from.width / 2 + 40, from.y + from.height / 2, { steps: 5 });
			await page.mouse.move(chart.x + 400, chart.y + 200, { steps: 20 });
			await page.mouse.up();
			await page.locator('#red-ui-workspace-chart g.red-ui-flow-node-group').first().waitFor({ state: 'visible', timeout: 10_000 });
			assertEqual(await page.locator('#red-ui-workspace-chart g.red-ui-flow-node-group').count(), 1, 'nodes on the workspace');
		});
		if (!added) return;

		const opened = await checks.check('double-click opens its edit dialog with Resource and Operation', async () => {
			await page.locator('#red-ui-workspace-chart g.red-ui-flow-node-group rect.red-ui-flow-node').first().dblclick();
			await page.locator('#node-input-resource').waitFor({ state: 'visible', timeout: 10_000 });
			assert(await isShown(page, '#node-input-operation'), 'no operation select');
		});
		if (!opened) return;

		await checks.check('Message → Send to Phone Number shows Phone Number and Text, and the send options', async () => {
			await chooseOperation(page, 'Message', 'Send to Phone Number');
			const labels = await visibleFieldLabels(page);
			for (const expected of ['Phone Number', 'Text'])
				assert(labels.includes(expected), `${expected} not among the visible fields ${JSON.stringify(labels)}`);
			for (const foreign of ['Name Contains', 'Labels'])
				assert(!labels.includes(foreign), `${foreign} shown for Send to Phone Number: ${JSON.stringify(labels)}`);
			assert(await isShown(page, '#node-input-waitFor'), 'Wait for is hidden for a send');
			assert(!(await isShown(page, '#node-input-returnAll')), 'All pages is shown for a send');
			await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'send-to-phone-dialog.png') });
		});

		await checks.check('Chat → Get Many shows the filters, Output and All pages; Limit hides when All pages is on', async () => {
			await chooseOperation(page, 'Chat', 'Get Many');
			const labels = await visibleFieldLabels(page);
			for (const expected of ['Labels', 'Name Contains', 'Phone', 'Read', 'Closed'])
				assert(labels.includes(expected), `${expected} not among the visible fields ${JSON.stringify(labels)}`);
			assert(!labels.includes('Phone Number'), `Phone Number (a send field) shown for Get Many: ${JSON.stringify(labels)}`);
			assert(await isShown(page, '#node-input-outputMode'), 'Output mode is hidden for a list');
			assert(await isShown(page, '#node-input-returnAll'), 'All pages is hidden for a paginated list');
			assert(!(await isShown(page, '#node-input-waitFor')), 'Wait for is shown for a list');
			await page.locator('#node-input-returnAll').check();
			assert(!(await isShown(page, '#node-input-limit')), 'Limit is shown while All pages is on');
			await page.locator('#node-input-returnAll').uncheck();
			assert(await isShown(page, '#node-input-limit'), 'Limit is hidden while All pages is off');
		});

		await checks.check('Chat Label → Replace All shows Labels and the chat ID only', async () => {
			const resources = await page.locator('#node-input-resource option').allInnerTexts();
			const labelResource = resources.find((name) => /label/i.test(name));
			assert(labelResource, `no label resource among ${JSON.stringify(resources)}`);
			await page.selectOption('#node-input-resource', { label: labelResource });
			const operations = await page.locator('#node-input-operation option').allInnerTexts();
			const replace = operations.find((name) => /replace/i.test(name));
			assert(replace, `no replace operation among ${JSON.stringify(operations)}`);
			await page.selectOption('#node-input-operation', { label: replace });
			const labels = await visibleFieldLabels(page);
			assert(labels.includes('Labels'), `Labels not among the visible fields ${JSON.stringify(labels)}`);
			assert(
				labels.some((label) => /chat id/i.test(label)),
				`no chat ID field among ${JSON.stringify(labels)}`,
			);
			assertEqual(labels.length, 2, `number of visible fields (${JSON.stringify(labels)})`);
		});

		const phone = '+4915112345678';
		const configured = await checks.check('set up Send to Phone Number and create the service config node with URL and token', async () => {
			await chooseOperation(page, 'Message', 'Send to Phone Number');
			await page.fill('#node-input-name', 'browser send');
			await page
				.locator(
					'.cm-field-row[data-field="phone"]:visible input.red-ui-typedInput-input, #cm-op-message-sendToPhone .cm-field-row[data-field="phone"] input[type="text"]:visible',
				)
				.first()
				.fill(phone);
			const add = page.locator('#node-input-btn-config-add');
			await ((await add.isVisible()) ? add : page.locator('#node-input-btn-config-edit')).click();
			await page.locator('#node-config-input-baseUrl').waitFor({ state: 'visible', timeout: 10_000 });
			await page.fill('#node-config-input-name', 'browser sandbox');
			await page.fill('#node-config-input-baseUrl', sandboxUrl);
			await page.fill('#node-config-input-token', token);
			await page.fill('#node-config-input-publicUrl', red.url);
			await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'config-dialog.png') });
			await page.click('#node-config-dialog-ok');
			await page.locator('#node-config-input-baseUrl').waitFor({ state: 'hidden', timeout: 10_000 });
			const chosen = await page.locator('#node-input-config option:checked').innerText();
			assert(/browser sandbox/.test(chosen), `the new config node is not selected (selected: ${chosen})`);
			await page.click('#node-dialog-ok');
			await page.locator('#node-input-resource').waitFor({ state: 'hidden', timeout: 10_000 });
		});

		let deployedFlows: Json[] | undefined;
		if (configured) {
			await checks.check('Deploy writes the flow: the node with its operation and fields, the config node with its URLs', async () => {
				await page.click('#red-ui-header-button-deploy');
				const confirmDialog = page.locator('#node-dialog-confirm-deploy');
				const flows = await waitFor('the deployed flow in GET /flows', async () => {
					// The editor asks before deploying nodes it considers invalid: that is a failure of the node's editor.
					if (await confirmDialog.isVisible()) throw new Error(`Deploy asked for confirmation: ${await confirmDialog.innerText()}`);
					const list = (await httpJson<Json[]>('GET', `${red.url}/flows`)).body;
					return Array.isArray(list) && list.some((node) => node.type === 'chat-messaging') ? list : undefined;
				});
				deployedFlows = flows;
				await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'deployed-workspace.png') });
				const action = flows.find((node) => node.type === 'chat-messaging') as Json;
				const config = flows.find((node) => node.type === 'chat-messaging-config') as Json | undefined;
				assert(config, 'no config node deployed');
				assertEqual(
					[action.resource, action.operation, action.config],
					['message', 'sendToPhone', config.id],
					'resource, operation and config of the action node',
				);
				assertEqual((action.fields as Record<string, Json>)?.phone?.value, phone, 'phone field value');
				assertEqual([config.baseUrl, config.publicUrl], [sandboxUrl, red.url], 'config node URLs');
			});
		}
		const deployed = deployedFlows !== undefined;

		if (deployedFlows) {
			const flows = deployedFlows;
			await checks.check('the token is stored as a credential and the admin API returns it nowhere', async () => {
				const config = flows.find((node) => node.type === 'chat-messaging-config');
				assert(config, 'no config node deployed');
				const credentials = await httpJson<Json>('GET', `${red.url}/credentials/chat-messaging-config/${String(config.id)}`);
				assertEqual(credentials.body.has_token, true, `has_token of the config node's credentials (${credentials.text})`);
				assert(!JSON.stringify(flows).includes(token), 'GET /flows returns the token');
				assert(!credentials.text.includes(token), 'GET /credentials returns the token');
			});
		}

		if (deployed) {
			await checks.check('the token is neither in flows.json nor in plain text in flows_cred.json', async () => {
				const flowsFile = await readTextIfExists(path.join(dir, 'flows.json'));
				assert(flowsFile !== undefined && flowsFile.includes('chat-messaging-config'), 'flows.json holds no config node');
				assert(!flowsFile.includes(token), 'flows.json contains the token');
				const credentialsFile = await readTextIfExists(path.join(dir, 'flows_cred.json'));
				assert(credentialsFile && !credentialsFile.includes(token), 'flows_cred.json is missing or holds the token in plain text');
			});

			await checks.check("the editor's Export (all flows, JSON) holds the nodes but not the token", async () => {
				await page.click('#red-ui-header-button-sidemenu');
				await page.click('#menu-item-export');
				await page.locator('#red-ui-clipboard-dialog-export-rng-full').waitFor({ state: 'visible', timeout: 10_000 });
				await page.click('#red-ui-clipboard-dialog-export-rng-full');
				await page
					.locator('#red-ui-clipboard-dialog-export-tab-clipboard-tabs a[href="#red-ui-clipboard-dialog-export-tab-clipboard-json"]')
					.click();
				const textArea = page.locator('#red-ui-clipboard-dialog-export-text');
				const exported = await waitFor('the export JSON', async () => {
					const value = await textArea.inputValue();
					return value.includes('chat-messaging-config') ? value : undefined;
				});
				await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'export-dialog.png') });
				const nodes = JSON.parse(exported) as Json[];
				assert(
					nodes.some((node) => node.type === 'chat-messaging'),
					'the export holds no chat-messaging node',
				);
				assert(!exported.includes(token), 'the export contains the token');
				assert(
					nodes.every((node) => node.credentials === undefined),
					'the export carries a credentials member',
				);
			});
		}

		await checks.check('no JavaScript errors in the editor page', () => {
			assertEqual(pageErrors, [], 'page errors');
		});
		await checks.check('the token never reached the Node-RED log', () => {
			assert(!red.output().includes(token), 'the Node-RED log contains the token');
		});
		console.log(`  screenshots: ${SCREENSHOT_DIR}`);
	} catch (error) {
		await checks.check('browser run completes', () => {
			throw error;
		});
	} finally {
		await browser?.close().catch(() => undefined);
		await nodeRed?.stop();
		await sandbox?.stop();
		if (userDir) await removeDir(userDir);
		await removeDir(work);
	}
}

async function main(): Promise<void> {
	const checks = new Checks();
	await runBrowserChecks(checks);
	checks.report();
}

main().catch((error: unknown) => {
	console.error(error);
	console.log('0 passed, 1 failed');
	process.exitCode = 1;
});
