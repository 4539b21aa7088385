/**
 * The service config node in the Node-RED editor and what a deploy keeps of it: created from the action node's
 * dialog, invalid without its token (red triangle, the reason, a Deploy warning), Test connection, then the deploy:
 * the flow as written, the token a credential that neither the admin API, flows.json nor the editor's Export holds.
 */
import path from 'node:path';
import { assert, assertEqual, httpJson, readTextIfExists, waitFor } from './e2e-support';
import {
	SCREENSHOT_DIR,
	chooseOperation,
	closeNodeDialog,
	configured,
	deployed,
	docsShot,
	editorValidity,
	openNode,
	type BrowserCase,
	type Json,
} from './browser-support';

const PHONE = '+4915112345678';

export const configCases: BrowserCase[] = [
	{
		name: 'set up Send to a phone number and create the service config node, first without its token',
		run: async (b) => {
			const { page } = b;
			await chooseOperation(page, 'Message', 'Send');
			await page.selectOption('#node-input-sendTo', 'phone');
			await page.fill('#node-input-name', 'browser send');
			await page.locator('#cm-op-message-send .cm-field-row[data-field="phone"]:visible input.red-ui-typedInput-input').first().fill(PHONE);
			const add = page.locator('#node-input-btn-config-add');
			await ((await add.isVisible()) ? add : page.locator('#node-input-btn-config-edit')).click();
			await page.locator('#node-config-input-baseUrl').waitFor({ state: 'visible', timeout: 10_000 });
			// First without the token: the config node must come out invalid.
			await page.fill('#node-config-input-name', 'browser sandbox');
			await page.fill('#node-config-input-baseUrl', b.sandboxUrl);
			await page.fill('#node-config-input-publicUrl', b.red.url);
			await page.click('#node-config-dialog-ok');
			await page.locator('#node-config-input-baseUrl').waitFor({ state: 'hidden', timeout: 10_000 });
			const chosen = await page.locator('#node-input-config option:checked').innerText();
			assert(/browser sandbox/.test(chosen), `the new config node is not selected (selected: ${chosen})`);
			await closeNodeDialog(page);
			b.actionId = await page.evaluate(() => {
				let id = '';
				(window as any).RED.nodes.eachNode((node: { type: string; id: string }) => {
					if (node.type === 'chat-messaging') id = node.id;
				});
				return id;
			});
			b.configured = true;
		},
	},
	{
		name: 'a config node without a token: red triangle on the node, the reason in the editor, a Deploy warning',
		when: configured,
		run: async (b) => {
			const { page, actionId } = b;
			b.configId = await page.evaluate((id) => String((window as any).RED.nodes.node(id).config), actionId);
			const config = await editorValidity(page, b.configId);
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
	},
	{
		name: 'Test connection with the typed token says "Connected" (and a wrong one says why), the token stays in the dialog',
		when: configured,
		run: async (b) => {
			const { page, actionId } = b;
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
			await page.fill('#node-config-input-token', b.token);
			await page.click('#node-config-cm-test');
			await waitFor('the test result', async () => ((await result.innerText()).startsWith('Connected') ? true : undefined));
			await docsShot(page, 'test-connection');
			await page.click('#node-config-dialog-ok');
			await page.locator('#node-config-input-baseUrl').waitFor({ state: 'hidden', timeout: 10_000 });
			await closeNodeDialog(page);
			const config = await editorValidity(page, b.configId);
			assert(config?.valid, `the config node with its token is still invalid: ${JSON.stringify(config)}`);
			assert((await editorValidity(page, actionId))?.valid, 'the action node is still invalid');
		},
	},
];

export const deployCases: BrowserCase[] = [
	{
		name: 'Deploy writes the flow: the node with its operation and fields, the config node with its URLs',
		when: configured,
		run: async (b) => {
			const { page, red } = b;
			await page.click('#red-ui-header-button-deploy');
			const confirmDialog = page.locator('.red-ui-notification', { hasText: 'not properly configured' });
			const flows = await waitFor('the deployed flow in GET /flows', async () => {
				// The editor asks before deploying nodes it considers invalid: that is a failure of the node's editor.
				if (await confirmDialog.isVisible()) throw new Error(`Deploy asked for confirmation: ${await confirmDialog.innerText()}`);
				const list = (await httpJson<Json[]>('GET', `${red.url}/flows`)).body;
				return Array.isArray(list) && list.some((node) => node.type === 'chat-messaging') ? list : undefined;
			});
			b.deployedFlows = flows;
			await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'deployed-workspace.png') });
			const action = flows.find((node) => node.type === 'chat-messaging') as Json;
			const config = flows.find((node) => node.type === 'chat-messaging-config') as Json | undefined;
			assert(config, 'no config node deployed');
			assertEqual(
				[action.resource, action.operation, action.sendTo, action.config],
				['message', 'send', 'phone', config.id],
				'resource, operation, Send To and config of the action node',
			);
			assertEqual((action.fields as Record<string, Json>)?.phone?.value, PHONE, 'phone field value');
			assertEqual([config.baseUrl, config.publicUrl], [b.sandboxUrl, red.url], 'config node URLs');
		},
	},
	{
		name: 'the token is stored as a credential and the admin API returns it nowhere',
		when: deployed,
		run: async ({ red, token, deployedFlows: flows = [] }) => {
			const config = flows.find((node) => node.type === 'chat-messaging-config');
			assert(config, 'no config node deployed');
			const credentials = await httpJson<Json>('GET', `${red.url}/credentials/chat-messaging-config/${String(config.id)}`);
			assertEqual(credentials.body.has_token, true, `has_token of the config node's credentials (${credentials.text})`);
			assert(!JSON.stringify(flows).includes(token), 'GET /flows returns the token');
			assert(!credentials.text.includes(token), 'GET /credentials returns the token');
		},
	},
	{
		name: 'the token is neither in flows.json nor in plain text in flows_cred.json',
		when: deployed,
		run: async ({ userDir, token }) => {
			const flowsFile = await readTextIfExists(path.join(userDir, 'flows.json'));
			assert(flowsFile !== undefined && flowsFile.includes('chat-messaging-config'), 'flows.json holds no config node');
			assert(!flowsFile.includes(token), 'flows.json contains the token');
			const credentialsFile = await readTextIfExists(path.join(userDir, 'flows_cred.json'));
			assert(credentialsFile && !credentialsFile.includes(token), 'flows_cred.json is missing or holds the token in plain text');
		},
	},
	{
		name: "the editor's Export (all flows, JSON) holds the nodes but not the token",
		when: deployed,
		run: async ({ page, token }) => {
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
		},
	},
];
