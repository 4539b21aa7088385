/**
 * Example flows imported into the Node-RED editor (the second reuses the config node the first brought), the event
 * node's dialog on an imported node saved before Mode existed, and the run's last word: no JavaScript error in the
 * page, no token in Node-RED's log.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, assert, assertEqual } from './e2e-support';
import { isShown, type BrowserCase, type BrowserRun, type Json } from './browser-support';

async function secondExampleReusesConfig({ page }: BrowserRun): Promise<void> {
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
}

async function eventNodeDialog({ page }: BrowserRun): Promise<void> {
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
}

export const importCases: BrowserCase[] = [
	{
		name: 'importing a second example flow reuses the config node the first one brought (one config node)',
		run: secondExampleReusesConfig,
	},
	{
		name: "the event node's dialog shows Mode (an imported flow without it: Webhook); Polling shows the poll interval; the inbox options are off",
		run: eventNodeDialog,
	},
	{
		name: 'no JavaScript errors in the editor page',
		run: async ({ pageErrors }) => assertEqual(pageErrors, [], 'page errors'),
	},
	{
		name: 'the token never reached the Node-RED log',
		run: async ({ red, token }) => assert(!red.output().includes(token), 'the Node-RED log contains the token'),
	},
];
