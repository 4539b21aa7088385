/**
 * The action node's edit dialog in the Node-RED editor: the palette, a node dragged onto the workspace and opened,
 * the operation a new node starts on (Send, to a phone number; the legacy sends hidden), the fields each choice
 * shows (Send To, a list's folded filters and All pages, Output, the label operations).
 */
import { assert, assertEqual } from './e2e-support';
import { chooseOperation, docsShot, isShown, visibleFieldLabels, type BrowserCase } from './browser-support';

export const dialogCases: BrowserCase[] = [
	{
		name: 'the editor loads and the palette shows the action and event nodes',
		stopsRunOnFailure: true,
		run: async ({ page, red }) => {
			await page.goto(red.url, { waitUntil: 'domcontentloaded' });
			await page.locator('.red-ui-palette-node[data-palette-type="chat-messaging"]').waitFor({ state: 'visible', timeout: 60_000 });
			assert(await isShown(page, '.red-ui-palette-node[data-palette-type="chat-messaging-event"]'), 'the event node is not in the palette');
			assertEqual(
				await page.locator('.red-ui-palette-node[data-palette-type="chat-messaging-config"]').count(),
				0,
				'config nodes in the palette',
			);
		},
	},
	{
		name: 'drag the chat-messaging node from the palette onto the workspace',
		stopsRunOnFailure: true,
		run: async ({ page }) => {
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
		},
	},
	{
		name: 'double-click opens its edit dialog with Resource and Operation',
		stopsRunOnFailure: true,
		run: async ({ page }) => {
			await page.locator('#red-ui-workspace-chart g.red-ui-flow-node-group rect.red-ui-flow-node').first().dblclick();
			await page.locator('#node-input-resource').waitFor({ state: 'visible', timeout: 10_000 });
			assert(await isShown(page, '#node-input-operation'), 'no operation select');
		},
	},
	{
		name: 'a new node starts on Message → Send, Send To = Phone Number; Send is listed first and none of the four sends; Phone Number shows Phone Number and Text, and the send options',
		run: async ({ page }) => {
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
	},
	{
		name: 'Send To switches the fields: Chat → Chat ID, Chat Name → Chat Name, JID → JID',
		run: async ({ page }) => {
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
		},
	},
	{
		name: 'Chat → Get Many: filters folded, shown on a click; Output and All pages; Limit and Page hide when All pages is on',
		run: async ({ page }) => {
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
	},
	{
		name: 'Output shows for a list and a get (Simplified on a new node; Fields only with Selected Fields) and hides for a delete',
		run: async ({ page }) => {
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
	},
	{
		name: 'Chat Label → Replace All shows Labels and the chat ID only',
		run: async ({ page }) => {
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
		},
	},
];
