/**
 * The deployed action node driven from the Node-RED editor: a chat picked from the searchable list and sent into by a
 * click on an inject node's button (the request the node made read from the recording proxy), a filter left at Any
 * not sent, Reply's three outputs, and the help sidebar showing the selected operation only.
 */
import { randomBytes } from 'node:crypto';
import { assert, assertEqual, deployFlows, httpJson, waitFor } from './e2e-support';
import {
	chooseOperation,
	closeNodeDialog,
	deployFromEditor,
	deployed,
	docsShot,
	isShown,
	openNode,
	picked,
	sandboxGet,
	setTypedInput,
	type BrowserCase,
	type BrowserRun,
	type Json,
} from './browser-support';

const INJECT_BUTTON = '#red-ui-workspace-chart g[id="browserinject1"] .red-ui-flow-node-button';

async function pickChat(b: BrowserRun): Promise<void> {
	const { page, actionId } = b;
	const firstPage = ((await sandboxGet(b, '/chats?page=1')).chats as Json[]) ?? [];
	const target = firstPage.find((chat) => chat.is_group === false && chat.is_allowed_to_message !== false) ?? firstPage[0]!;
	const text = `picked in the browser ${randomBytes(4).toString('hex')}`;
	await openNode(page, actionId);
	await chooseOperation(page, 'Message', 'Send');
	await page.selectOption('#node-input-sendTo', 'chat');
	await page.click('#cm-op-message-send .cm-field-row[data-field="chat_id"] .cm-pick');
	await page.locator('.cm-picker-item').first().waitFor({ state: 'visible', timeout: 10_000 });
	const listed = await page.locator('.cm-picker-item').evaluateAll((items) => items.map((item) => Number(item.getAttribute('data-value'))));
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
	b.picked = { chat: target, text };
}

async function injectSendsOnce(b: BrowserRun): Promise<void> {
	const { page, red, actionId, recorded } = b;
	const { chat: target, text } = b.picked!;
	// The chosen chat as deployed from the editor; then an inject node wired to it, deployed through the
	// admin API, and the editor reloaded: the user then clicks the inject node's button.
	await deployFromEditor(page);
	const flows = await waitFor('the chosen chat id in the deployed flow', async () => {
		const list = (await httpJson<Json[]>('GET', `${red.url}/flows`)).body;
		const node = list.find((candidate) => candidate.id === actionId);
		const chatId = (node?.fields as Record<string, Json> | undefined)?.chat_id;
		return chatId?.value === String(target.id) && chatId?.type === 'num' ? list : undefined;
	});
	const action = flows.find((node) => node.id === actionId);
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
	await deployFlows(red.url, [...flows.filter((node) => !String(node.id).startsWith('e2e-deploy-probe')), inject]);
	await page.reload({ waitUntil: 'domcontentloaded' });
	await page.locator(INJECT_BUTTON).waitFor({ state: 'visible', timeout: 60_000 });
	const before = recorded.length;
	await page.locator(INJECT_BUTTON).click();
	const messages = await waitFor('the message in the chosen chat', async () => {
		const list = ((await sandboxGet(b, `/chats/${String(target.id)}/messages`)).messages as Json[]) ?? [];
		return list.some((message) => message.text === text) ? list : undefined;
	});
	assertEqual(messages.filter((message) => message.text === text).length, 1, 'messages with the text');
	const sends = recorded.slice(before).filter((line) => line === `POST /chats/${String(target.id)}/messages`);
	assertEqual(sends.length, 1, 'POSTs to the chosen chat');
}

async function anyFilterNotSent({ page, actionId, recorded }: BrowserRun): Promise<void> {
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
	await page.locator(INJECT_BUTTON).click();
	const lists = await waitFor('the Get Many request', async () => {
		const found = recorded.slice(before).filter((line) => line.startsWith('GET /chats?'));
		return found.length ? found : undefined;
	});
	const query = new URL(lists[0]!.slice('GET '.length), 'http://sandbox').searchParams;
	assertEqual(query.get('read'), 'false', 'the read filter sent');
	assert(!query.has('closed'), `Closed (not set) was sent: ${lists[0]!}`);
}

async function replyOutputs({ page, actionId }: BrowserRun): Promise<void> {
	const ports = () => page.locator(`#red-ui-workspace-chart g[id="${actionId}"] .red-ui-flow-port-output`).count();
	await openNode(page, actionId);
	await chooseOperation(page, 'Message', 'Send');
	assert(!(await isShown(page, '#node-input-replyTimeout')), 'Wait for reply shown while Reply is off');
	await page.locator('#node-input-waitForReply').check();
	assert(await isShown(page, '#node-input-replyTimeout'), 'Wait for reply hidden while Reply is on');
	await closeNodeDialog(page);
	await waitFor('three output ports', async () => ((await ports()) === 3 ? true : undefined));
	await docsShot(page, 'send-and-wait-outputs');
	await openNode(page, actionId);
	await page.locator('#node-input-waitForReply').uncheck();
	await closeNodeDialog(page);
	await waitFor('one output port', async () => ((await ports()) === 1 ? true : undefined));
}

async function helpShowsOperation({ page, actionId }: BrowserRun): Promise<void> {
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
}

export const runCases: BrowserCase[] = [
	{ name: "the chat id field's search lists the sandbox's chats, filters them, and a click fills the id", when: deployed, run: pickChat },
	{
		name: 'deployed with an inject node, a click on the inject button sends into the chosen chat, once',
		when: picked,
		run: injectSendsOnce,
	},
	{ name: 'Get Many with Closed left at Any and Read = Unread: the request filters read only', when: picked, run: anyFilterNotSent },
	{ name: 'Reply on for a send: three outputs (result, reply, no reply) on the node', when: deployed, run: replyOutputs },
	{ name: "the help sidebar shows the selected node's operation only", when: deployed, run: helpShowsOperation },
];
