/**
 * The Node-RED editor in a real browser (Debian's chromium driven by playwright-core): Node-RED 5 on
 * Node 24 with the packed package installed, the sandbox behind it (through a proxy that records the
 * requests the nodes make). Adds the action node from the palette, checks the dialog (needed fields
 * first, the optional ones folded, Page hidden while All pages is on), the config node's validation
 * (red triangle, Deploy warning, Test connection), deploys, picks a chat from the searchable list and
 * runs the node, checks that a filter left at Any sends no filter, the three outputs of
 * send-and-wait-for-reply and the per-operation help, and that the token is neither exported nor
 * written to flows.json. Screenshots go to docs/screenshots/node-red-*.png.
 * Run: `npm run test:browser`. Ends with `N passed, N failed`; exits non-zero on failure.
 * Needs /usr/bin/chromium (`apt-get install -y chromium`); CHROMIUM_PATH overrides the path.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { startRecordingProxy, type RecordingProxy } from '../../support/recording-proxy';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM, DOCS_SCREENSHOTS, launchChromium } from '../../support/chromium';
import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';
import {
	Checks,
	assert,
	assertEqual,
	buildAndPack,
	deployFlows,
	createUserDir,
	freePort,
	httpJson,
	loadRuntimes,
	makeTempDir,
	readTextIfExists,
	removeDir,
	REPO_ROOT,
	startNodeRed,
	waitFor,
	type NodeRedInstance,
} from './e2e-support';

type Json = Record<string, unknown>;

const SCREENSHOT_DIR = path.join(tmpdir(), 'chat-messaging-browser-screenshots');
/** The screenshots docs/editors.md shows (docs/screenshots/node-red-*.png), rewritten by every run. */
const docsShot = (page: Page, name: string) => page.screenshot({ path: path.join(DOCS_SCREENSHOTS, `node-red-${name}.png`) });

/** The node's validity and reasons as the editor holds them (RED.nodes.node). */
const editorValidity = (page: Page, id: string) =>
	page.evaluate((nodeId) => {
		const node = (window as any).RED.nodes.node(nodeId);
		return node ? { valid: node.valid as boolean, errors: (node.validationErrors ?? []) as string[] } : undefined;
	}, id);

/** Sets a typedInput (type and value) through its widget API, as choosing in its menus does. */
const setTypedInput = (page: Page, inputId: string, type: string, value: string) =>
	page.evaluate(
		([id, t, v]) => {
			const $input = (window as any).$(`#${id}`);
			$input.typedInput('type', t);
			$input.typedInput('value', v);
		},
		[inputId, type, value] as const,
	);

async function deployFromEditor(page: Page): Promise<void> {
	await page.click('#red-ui-header-button-deploy');
	const confirmDialog = page.locator('.red-ui-notification', { hasText: 'not properly configured' });
	// Deploy is done when the button is no longer marked as having changes to deploy.
	await waitFor('the deploy to finish', async () => {
		if (await confirmDialog.isVisible()) throw new Error(`Deploy asked for confirmation: ${await confirmDialog.innerText()}`);
		const disabled = await page.locator('#red-ui-header-button-deploy.disabled').count();
		return disabled > 0 ? true : undefined;
	});
}

async function openNode(page: Page, id: string): Promise<void> {
	await page.locator(`#red-ui-workspace-chart g[id="${id}"] rect.red-ui-flow-node`).first().dblclick();
	await page.locator('#node-input-resource').waitFor({ state: 'visible', timeout: 10_000 });
}

async function closeNodeDialog(page: Page): Promise<void> {
	await page.click('#node-dialog-ok');
	await page.locator('#node-input-resource').waitFor({ state: 'hidden', timeout: 10_000 });
}

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
	let proxy: RecordingProxy | undefined;
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
		const tarball = await checks.step('npm run build (packs the Node-RED package)', () => buildAndPack(work));
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
		proxy = await startRecordingProxy(sandbox.url);
		const recorded = proxy.requests;
		// The nodes reach the sandbox through the recording proxy: the test sees every request they make.
		const sandboxUrl = proxy.url;
		const sandboxDirect = sandbox.url;

		browser = await launchChromium();
		const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
		page.on('pageerror', (error) => pageErrors.push(error.message));
		await mkdir(SCREENSHOT_DIR, { recursive: true });
		await mkdir(DOCS_SCREENSHOTS, { recursive: true });

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

		await checks.check(
			'a new node starts on Message → Send, Send To = Phone Number; Send is listed first and none of the four sends; Phone Number shows Phone Number and Text, and the send options',
			async () => {
				assertEqual(await page.locator('#node-input-resource').inputValue(), 'message', 'the resource a new node starts on');
				assertEqual(await page.locator('#node-input-operation').inputValue(), 'send', 'the operation a new node starts on');
				assertEqual(await page.locator('#node-input-sendTo').inputValue(), 'phone', 'the Send To a new node starts on');
				await page.selectOption('#node-input-resource', { label: 'Message' });
				const operations = await page.locator('#node-input-operation option').allInnerTexts();
				assertEqual(operations[0], 'Send', 'the first Message operation');
				for (const hidden of ['Send to Phone Number', 'Send to Chat', 'Send to Chat Name', 'Send to JID'])
					assert(!operations.includes(hidden), `${hidden} listed beside Send: ${JSON.stringify(operations)}`);
				await chooseOperation(page, 'Message', 'Send');
				await page.selectOption('#node-input-sendTo', 'phone');
				const labels = await visibleFieldLabels(page);
				for (const expected of ['Phone Number', 'Text'])
					assert(labels.includes(expected), `${expected} not among the visible fields ${JSON.stringify(labels)}`);
				for (const foreign of ['Name Contains', 'Labels', 'Chat ID', 'JID'])
					assert(!labels.includes(foreign), `${foreign} shown for Send To = Phone Number: ${JSON.stringify(labels)}`);
				assert(await isShown(page, '#node-input-waitFor'), 'Wait for is hidden for a send');
				assert(!(await isShown(page, '#node-input-returnAll')), 'All pages is shown for a send');
				await docsShot(page, 'send-to-phone');
			},
		);

		await checks.check('Send To switches the fields: Chat → Chat ID, Chat Name → Chat Name, JID → JID', async () => {
			const expectations: Array<[string, string, string[]]> = [
				['chat', 'Chat ID', ['Phone Number', 'JID']],
				['chatName', 'Chat Name', ['Phone Number', 'Chat ID', 'JID']],
				['jid', 'JID', ['Phone Number', 'Chat ID']],
			];
			for (const [sendTo, shown, hidden] of expectations) {
				await page.selectOption('#node-input-sendTo', sendTo);
				const labels = await visibleFieldLabels(page);
				assert(labels.includes(shown), `Send To ${sendTo}: ${shown} not shown (${JSON.stringify(labels)})`);
				for (const other of hidden) assert(!labels.includes(other), `Send To ${sendTo}: ${other} shown (${JSON.stringify(labels)})`);
				if (sendTo === 'chat') await docsShot(page, 'send-to-chat');
			}
			await page.selectOption('#node-input-sendTo', 'phone');
		});

		await checks.check(
			'Chat → Get Many: filters folded, shown on a click; Output and All pages; Limit and Page hide when All pages is on',
			async () => {
				await chooseOperation(page, 'Chat', 'Get Many');
				assertEqual(await visibleFieldLabels(page), [], 'fields visible while the filters are folded');
				assert(await isShown(page, '#cm-op-chat-getAll .cm-optional-header'), 'no Filters header');
				await docsShot(page, 'get-many-folded');
				await page.click('#cm-op-chat-getAll .cm-optional-header');
				const labels = await visibleFieldLabels(page);
				for (const expected of ['Labels', 'Name Contains', 'Phone', 'Read', 'Closed', 'Page'])
					assert(labels.includes(expected), `${expected} not among the visible fields ${JSON.stringify(labels)}`);
				assert(!labels.includes('Phone Number'), `Phone Number (a send field) shown for Get Many: ${JSON.stringify(labels)}`);
				assert(await isShown(page, '#node-input-outputMode'), 'Output mode is hidden for a list');
				assert(await isShown(page, '#node-input-returnAll'), 'All pages is hidden for a paginated list');
				assert(!(await isShown(page, '#node-input-waitFor')), 'Wait for is shown for a list');
				await page.locator('#node-input-returnAll').check();
				assert(!(await isShown(page, '#node-input-limit')), 'Limit is shown while All pages is on');
				assert(!(await visibleFieldLabels(page)).includes('Page'), 'Page is shown while All pages is on');
				await docsShot(page, 'get-many-filters');
				await page.locator('#node-input-returnAll').uncheck();
				assert(await isShown(page, '#node-input-limit'), 'Limit is hidden while All pages is off');
				assert((await visibleFieldLabels(page)).includes('Page'), 'Page is hidden while All pages is off');
			},
		);

		await checks.check(
			'Output shows for a list and a get (Simplified on a new node; Fields only with Selected Fields) and hides for a delete',
			async () => {
				await chooseOperation(page, 'Chat', 'Get Many');
				assert(await isShown(page, '#node-input-output'), 'Output is hidden for Chat → Get Many');
				assertEqual(await page.locator('#node-input-output').inputValue(), 'simplified', 'Output of a new node');
				assert(!(await isShown(page, '#node-input-outputFields')), 'Fields shown while Output is Simplified');
				await page.selectOption('#node-input-output', 'selected');
				assert(await isShown(page, '#node-input-outputFields'), 'Fields hidden while Output is Selected Fields');
				await page.selectOption('#node-input-output', 'simplified');
				await chooseOperation(page, 'Message', 'Get');
				assert(await isShown(page, '#node-input-output'), 'Output is hidden for Message → Get');
				assert(/uid, chat_id/.test(await page.locator('#cm-output-simplified').innerText()), 'the fields Simplified keeps are not named');
				await chooseOperation(page, 'File', 'Delete');
				assert(!(await isShown(page, '#node-input-output')), 'Output is shown for File → Delete');
			},
		);

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
		const configured = await checks.check(
			'set up Send to a phone number and create the service config node, first without its token',
			async () => {
				await chooseOperation(page, 'Message', 'Send');
				await page.selectOption('#node-input-sendTo', 'phone');
				await page.fill('#node-input-name', 'browser send');
				await page
					.locator('#cm-op-message-send .cm-field-row[data-field="phone"]:visible input.red-ui-typedInput-input')
					.first()
					.fill(phone);
				const add = page.locator('#node-input-btn-config-add');
				await ((await add.isVisible()) ? add : page.locator('#node-input-btn-config-edit')).click();
				await page.locator('#node-config-input-baseUrl').waitFor({ state: 'visible', timeout: 10_000 });
				// First without the token: the config node must come out invalid.
				await page.fill('#node-config-input-name', 'browser sandbox');
				await page.fill('#node-config-input-baseUrl', sandboxUrl);
				await page.fill('#node-config-input-publicUrl', red.url);
				await page.click('#node-config-dialog-ok');
				await page.locator('#node-config-input-baseUrl').waitFor({ state: 'hidden', timeout: 10_000 });
				const chosen = await page.locator('#node-input-config option:checked').innerText();
				assert(/browser sandbox/.test(chosen), `the new config node is not selected (selected: ${chosen})`);
				await closeNodeDialog(page);
			},
		);

		const actionId = await page.evaluate(() => {
			let id = '';
			(window as any).RED.nodes.eachNode((node: { type: string; id: string }) => {
				if (node.type === 'chat-messaging') id = node.id;
			});
			return id;
		});
		let configId = '';

		if (configured) {
			await checks.check(
				'a config node without a token: red triangle on the node, the reason in the editor, a Deploy warning',
				async () => {
					configId = await page.evaluate((id) => String((window as any).RED.nodes.node(id).config), actionId);
					const config = await editorValidity(page, configId);
					assert(config && !config.valid, `the config node without a token is valid: ${JSON.stringify(config)}`);
					assert(config.errors.includes('API token: missing'), `reasons: ${JSON.stringify(config.errors)}`);
					const action = await editorValidity(page, actionId);
					assert(action && !action.valid, 'the node using that config node is valid');
					await page
						.locator(`#red-ui-workspace-chart g[id="${actionId}"] .red-ui-flow-node-error`)
						.waitFor({ state: 'visible', timeout: 5000 });
					await docsShot(page, 'config-validation');
					await page.click('#red-ui-header-button-deploy');
					// Node-RED asks in a modal notification before deploying nodes that are not properly configured.
					const warning = page.locator('.red-ui-notification', { hasText: 'not properly configured' });
					await warning.waitFor({ state: 'visible', timeout: 5000 });
					assert((await warning.innerText()).includes('browser send'), `the warning does not name the node: ${await warning.innerText()}`);
					await docsShot(page, 'deploy-warning');
					await warning.locator('button', { hasText: /cancel/i }).click();
					await warning.waitFor({ state: 'hidden', timeout: 5000 });
				},
			);

			await checks.check(
				'Test connection with the typed token says "Connected" (and a wrong one says why), the token stays in the dialog',
				async () => {
					await openNode(page, actionId);
					await page.click('#node-input-btn-config-edit');
					await page.locator('#node-config-input-token').waitFor({ state: 'visible', timeout: 10_000 });
					await page.fill('#node-config-input-token', 'wrong-token-for-the-test');
					await page.click('#node-config-cm-test');
					const result = page.locator('#node-config-cm-test-result');
					await waitFor('the failed test result', async () =>
						(await result.innerText()) && !/Testing/.test(await result.innerText()) ? true : undefined,
					);
					assert(!(await result.innerText()).includes('wrong-token-for-the-test'), 'the result echoes the token');
					assert(!(await result.innerText()).startsWith('Connected'), `a wrong token connected: ${await result.innerText()}`);
					await page.fill('#node-config-input-token', token);
					await page.click('#node-config-cm-test');
					await waitFor('the test result', async () => ((await result.innerText()).startsWith('Connected') ? true : undefined));
					await docsShot(page, 'test-connection');
					await page.click('#node-config-dialog-ok');
					await page.locator('#node-config-input-baseUrl').waitFor({ state: 'hidden', timeout: 10_000 });
					await closeNodeDialog(page);
					const config = await editorValidity(page, configId);
					assert(config?.valid, `the config node with its token is still invalid: ${JSON.stringify(config)}`);
					assert((await editorValidity(page, actionId))?.valid, 'the action node is still invalid');
				},
			);
		}

		let deployedFlows: Json[] | undefined;
		if (configured) {
			await checks.check('Deploy writes the flow: the node with its operation and fields, the config node with its URLs', async () => {
				await page.click('#red-ui-header-button-deploy');
				const confirmDialog = page.locator('.red-ui-notification', { hasText: 'not properly configured' });
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
					[action.resource, action.operation, action.sendTo, action.config],
					['message', 'send', 'phone', config.id],
					'resource, operation, Send To and config of the action node',
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
				await page.click('#red-ui-clipboard-dialog-cancel');
				await textArea.waitFor({ state: 'hidden', timeout: 10_000 });
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

		if (deployed) {
			const sandboxGet = async (pathAndQuery: string): Promise<Json> => {
				const answer = await httpJson<Json>('GET', `${sandboxDirect}${pathAndQuery}`, undefined, { authorization: `Bearer ${token}` });
				return answer.body.data as Json;
			};
			const firstPage = ((await sandboxGet('/chats?page=1')).chats as Json[]) ?? [];
			const target = firstPage.find((chat) => chat.is_group === false && chat.is_allowed_to_message !== false) ?? firstPage[0]!;
			const text = `picked in the browser ${randomBytes(4).toString('hex')}`;

			const picked = await checks.check(
				"the chat id field's search lists the sandbox's chats, filters them, and a click fills the id",
				async () => {
					await openNode(page, actionId);
					await chooseOperation(page, 'Message', 'Send');
					await page.selectOption('#node-input-sendTo', 'chat');
					await page.click('#cm-op-message-send .cm-field-row[data-field="chat_id"] .cm-pick');
					await page.locator('.cm-picker-item').first().waitFor({ state: 'visible', timeout: 10_000 });
					const listed = await page
						.locator('.cm-picker-item')
						.evaluateAll((items) => items.map((item) => Number(item.getAttribute('data-value'))));
					assertEqual(
						listed,
						firstPage.map((chat) => Number(chat.id)),
						'the chats listed (first page, in the service order)',
					);
					const word = String(target.name).split(/\s+/)[0]!;
					await page.fill('.cm-picker-search', word);
					await waitFor('the filtered list', async () => {
						const names = await page.locator('.cm-picker-item').allInnerTexts();
						return names.length > 0 && names.every((name) => name.toLowerCase().includes(word.toLowerCase())) ? names : undefined;
					});
					await docsShot(page, 'chat-picker');
					await page.locator(`.cm-picker-item[data-value="${String(target.id)}"]`).click();
					const chatIdInput = '#node-input-cm-message-send-chat_id';
					assertEqual(
						await page.evaluate((id) => [(window as any).$(id).typedInput('type'), (window as any).$(id).typedInput('value')], chatIdInput),
						['num', String(target.id)],
						'the chat id field after the click',
					);
					assert(
						(await page.locator('.cm-picker-chosen').innerText()).includes(String(target.name)),
						'the chosen chat is not named under the field',
					);
					await setTypedInput(page, 'node-input-cm-message-send-text', 'str', text);
					await closeNodeDialog(page);
				},
			);

			if (picked) {
				await checks.check('deployed with an inject node, a click on the inject button sends into the chosen chat, once', async () => {
					// The chosen chat as deployed from the editor; then an inject node wired to it, deployed through the
					// admin API, and the editor reloaded: the user then clicks the inject node's button.
					await deployFromEditor(page);
					const deployed = await waitFor('the chosen chat id in the deployed flow', async () => {
						const flows = (await httpJson<Json[]>('GET', `${red.url}/flows`)).body;
						const node = flows.find((candidate) => candidate.id === actionId);
						const chatId = (node?.fields as Record<string, Json> | undefined)?.chat_id;
						return chatId?.value === String(target.id) && chatId?.type === 'num' ? flows : undefined;
					});
					const action = deployed.find((node) => node.id === actionId);
					const inject = {
						id: 'browserinject1',
						type: 'inject',
						z: action!.z,
						name: 'go',
						props: [{ p: 'payload' }],
						payload: '',
						payloadType: 'date',
						repeat: '',
						once: false,
						x: 150,
						y: 260,
						wires: [[actionId]],
					};
					await deployFlows(red.url, [...deployed.filter((node) => !String(node.id).startsWith('e2e-deploy-probe')), inject]);
					await page.reload({ waitUntil: 'domcontentloaded' });
					await page
						.locator('#red-ui-workspace-chart g[id="browserinject1"] .red-ui-flow-node-button')
						.waitFor({ state: 'visible', timeout: 60_000 });
					const before = recorded.length;
					await page.locator('#red-ui-workspace-chart g[id="browserinject1"] .red-ui-flow-node-button').click();
					const messages = await waitFor('the message in the chosen chat', async () => {
						const list = ((await sandboxGet(`/chats/${String(target.id)}/messages`)).messages as Json[]) ?? [];
						return list.some((message) => message.text === text) ? list : undefined;
					});
					assertEqual(messages.filter((message) => message.text === text).length, 1, 'messages with the text');
					const sends = recorded.slice(before).filter((line) => line === `POST /chats/${String(target.id)}/messages`);
					assertEqual(sends.length, 1, 'POSTs to the chosen chat');
				});

				await checks.check('Get Many with Closed left at Any and Read = Unread: the request filters read only', async () => {
					await openNode(page, actionId);
					await chooseOperation(page, 'Chat', 'Get Many');
					await page.click('#cm-op-chat-getAll .cm-optional-header');
					await setTypedInput(page, 'node-input-cm-chat-getAll-read', 'boolean', 'false');
					const closedValue = await page.evaluate(() => (window as any).$('#node-input-cm-chat-getAll-closed').typedInput('value'));
					assertEqual(closedValue, '', 'Closed starts at Any');
					const closedChoice = await page
						.locator('#cm-op-chat-getAll .cm-field-row[data-field="closed"] .red-ui-typedInput-option-label')
						.innerText();
					assertEqual(closedChoice.trim(), 'Any', 'the label of the Closed choice');
					await closeNodeDialog(page);
					await deployFromEditor(page);
					const before = recorded.length;
					await page.locator('#red-ui-workspace-chart g[id="browserinject1"] .red-ui-flow-node-button').click();
					const lists = await waitFor('the Get Many request', async () => {
						const found = recorded.slice(before).filter((line) => line.startsWith('GET /chats?'));
						return found.length ? found : undefined;
					});
					const query = new URL(lists[0]!.slice('GET '.length), 'http://sandbox').searchParams;
					assertEqual(query.get('read'), 'false', 'the read filter sent');
					assert(!query.has('closed'), `Closed (not set) was sent: ${lists[0]!}`);
				});
			}

			await checks.check('Reply on for a send: three outputs (result, reply, no reply) on the node', async () => {
				await openNode(page, actionId);
				await chooseOperation(page, 'Message', 'Send');
				assert(!(await isShown(page, '#node-input-replyTimeout')), 'Wait for reply shown while Reply is off');
				await page.locator('#node-input-waitForReply').check();
				assert(await isShown(page, '#node-input-replyTimeout'), 'Wait for reply hidden while Reply is on');
				await closeNodeDialog(page);
				await waitFor('three output ports', async () =>
					(await page.locator(`#red-ui-workspace-chart g[id="${actionId}"] .red-ui-flow-port-output`).count()) === 3 ? true : undefined,
				);
				await docsShot(page, 'send-and-wait-outputs');
				await openNode(page, actionId);
				await page.locator('#node-input-waitForReply').uncheck();
				await closeNodeDialog(page);
				await waitFor('one output port', async () =>
					(await page.locator(`#red-ui-workspace-chart g[id="${actionId}"] .red-ui-flow-port-output`).count()) === 1 ? true : undefined,
				);
			});

			await checks.check("the help sidebar shows the selected node's operation only", async () => {
				await page.evaluate(() => (window as any).RED.sidebar.show('help'));
				const chart = await page.locator('#red-ui-workspace-chart').boundingBox();
				assert(chart, 'no workspace');
				await page.mouse.click(chart.x + chart.width - 60, chart.y + chart.height - 60); // nothing selected
				await page.locator(`#red-ui-workspace-chart g[id="${actionId}"] rect.red-ui-flow-node`).first().click();
				const shown = await waitFor('the operation help', async () => {
					const visible = await page
						.locator('.red-ui-help .cm-help-op:visible')
						.evaluateAll((blocks) => blocks.map((block) => block.getAttribute('data-operation')));
					return visible.length ? visible : undefined;
				});
				assertEqual(shown, ['message:send'], 'operation help blocks shown');
				await page.locator('.red-ui-help .cm-help-op:visible').first().scrollIntoViewIfNeeded();
				await docsShot(page, 'help');
			});
		}

		await checks.check('importing a second example flow reuses the config node the first one brought (one config node)', async () => {
			const example = (name: string) =>
				JSON.parse(readFileSync(path.join(REPO_ROOT, 'packages', 'node-red', 'examples', `${name}.json`), 'utf8')) as Json[];
			const first = example('list-all-open-chats');
			const second = example('react-to-inbound-messages');
			const sharedId = String(first.find((node) => node.type === 'chat-messaging-config')?.id);
			const chart = await page.locator('#red-ui-workspace-chart').boundingBox();
			assert(chart, 'no workspace');
			const outcome = await page.evaluate(
				([a, b]) => {
					const RED = (window as any).RED;
					RED.view.importNodes(a, { generateIds: false, addFlow: false });
					try {
						RED.view.importNodes(b, { generateIds: false, addFlow: false });
						return 'no conflict';
					} catch (error) {
						// What the editor's "Import copy" button does for an id conflict.
						RED.view.importNodes(b, { generateIds: true, addFlow: false });
						return String((error as { code?: string }).code);
					}
				},
				[first, second] as const,
			);
			await page.mouse.click(chart.x + 500, chart.y + 500); // place the import that follows the mouse
			assertEqual(outcome, 'import_conflict', 'what importing the second example meets');
			const configs = await page.evaluate(() => {
				const found: Array<{ id: string; name: string }> = [];
				(window as any).RED.nodes.eachConfig((node: { type: string; id: string; name: string }) => {
					if (node.type === 'chat-messaging-config' && node.name === 'Chat Messaging') found.push({ id: node.id, name: node.name });
				});
				return found;
			});
			assertEqual(configs, [{ id: sharedId, name: 'Chat Messaging' }], "the examples' config nodes in the editor");
			const users = await page.evaluate(() => {
				const configsUsed: string[] = [];
				(window as any).RED.nodes.eachNode((node: { type: string; config?: string; name?: string }) => {
					if (node.name === 'answer in the chat') configsUsed.push(String(node.config));
				});
				return configsUsed;
			});
			assertEqual(users, [sharedId], "the config node of the second example's action node");
		});

		await checks.check(
			"the event node's dialog shows Mode (an imported flow without it: Webhook); Polling shows the poll interval; the inbox options are off",
			async () => {
				const opened = await page.evaluate(() => {
					let found: unknown;
					(window as any).RED.nodes.eachNode((node: { type: string }) => {
						if (!found && node.type === 'chat-messaging-event') found = node;
					});
					if (found) (window as any).RED.editor.edit(found);
					return Boolean(found);
				});
				assert(opened, 'no event node on the workspace (the imported example holds one)');
				await page.locator('#node-input-mode').waitFor({ state: 'visible', timeout: 10_000 });
				assertEqual(await page.locator('#node-input-mode').inputValue(), 'webhook', 'Mode of a node saved before Mode existed');
				const modes = await page.locator('#node-input-mode option').allInnerTexts();
				assert(modes.length === 2 && modes[1]?.startsWith('Polling'), `Mode choices: ${JSON.stringify(modes)}`);
				assert(!(await isShown(page, '#node-input-pollSeconds')), 'the poll interval is shown in webhook mode');
				await page.selectOption('#node-input-mode', 'polling');
				await page.locator('#node-input-pollSeconds').waitFor({ state: 'visible', timeout: 5000 });
				assertEqual(await page.locator('#node-input-pollSeconds').inputValue(), '60', 'the default poll interval');
				assert(await isShown(page, '.cm-poll-tip'), 'the polling tip is not shown');
				assertEqual(await page.locator('#node-input-skipAssigned').isChecked(), false, 'Skip Chats Assigned to a Teammate');
				assertEqual(await page.locator('#node-input-teammateQuietMinutes').inputValue(), '0', 'Teammate wrote (minutes)');
				assertEqual(await page.locator('#node-input-burstQuietSeconds').inputValue(), '0', 'Burst quiet (seconds)');
				await page.locator('#node-dialog-cancel').click();
			},
		);

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
		await proxy?.stop();
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
