/**
 * Flows saved with the first release (the example flows as they were, kept verbatim in
 * fixtures/flows-saved-by-the-first-release.json) are users' data: their action nodes still load and run
 * with the property names, operation keys and values they hold, and their event nodes still subscribe.
 * Only the config node is pointed at the sandbox (and one attachment URL at a local file server).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { NodeMessage } from 'node-red';
import {
	configNode,
	CONFIG_ID,
	credentialsFor,
	waitFor,
	FAST_SANDBOX,
	helper,
	nodesUnderTest,
	runAction,
	sandboxCall,
	sandboxData,
	startNodeHttp,
	startSandbox,
	TAB,
	type Sandbox,
} from './support';

type SavedNode = Record<string, unknown> & { id: string; type: string; name?: string };
const saved = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'flows-saved-by-the-first-release.json'), 'utf8')) as {
	flows: Record<string, SavedNode[]>;
};
const savedNodes = Object.values(saved.flows).flat();

/** The saved action node of that name, as runAction's props (its own settings, not its place in the flow). */
function savedAction(name: string): Record<string, unknown> {
	const node = savedNodes.find((candidate) => candidate.type === 'chat-messaging' && candidate.name === name);
	if (!node) throw new Error(`no saved action node named ${name}`);
	const { id: _id, x: _x, y: _y, z: _z, wires: _wires, config: _config, ...props } = node;
	return props;
}

const TOKEN = 'saved-flows-token-51c2';
let sbx: Sandbox;
let fileServer: Server;
let fileUrl = '';

beforeAll(async () => {
	sbx = await startSandbox({ ...FAST_SANDBOX, chats: 60, tokens: [TOKEN] });
	fileServer = createServer((_req, res) => {
		res.writeHead(200, { 'content-type': 'application/pdf' });
		res.end(Buffer.from('%PDF-1.4 price list'));
	});
	await new Promise<void>((resolve) => fileServer.listen(0, '127.0.0.1', resolve));
	fileUrl = `http://127.0.0.1:${(fileServer.address() as AddressInfo).port}/price-list.pdf`;
});
afterAll(async () => {
	await sbx.stop();
	fileServer.closeAllConnections();
	await new Promise((resolve) => fileServer.close(resolve));
});

async function allChats(query: string): Promise<any[]> {
	const chats: any[] = [];
	for (let page = 1; ; page++) {
		const data = await sandboxData(sbx, `/chats?${query}&page=${page}`);
		chats.push(...data.chats);
		if (!data.has_more_pages) return chats;
	}
}

function expectNoError(run: { caught?: NodeMessage }): void {
	if (run.caught) throw new Error(`the saved node failed: ${JSON.stringify(run.caught.error)}`);
}

test('the fixture holds every saved node type and the operations saved today', () => {
	const operations = savedNodes.filter((node) => node.type === 'chat-messaging').map((node) => `${node.resource}:${node.operation}`);
	expect(operations.sort()).toEqual(
		['chat:assign', 'chat:getAll', 'chat:getAll', 'label:add', 'message:sendToChat', 'message:sendToPhone', 'teammate:getAll'].sort(),
	);
	expect(savedNodes.filter((node) => node.type === 'chat-messaging-event')).toHaveLength(3);
});

test('"open chats" (Get Many, closed: false as a boolean, one message per chat) lists the open chats', async () => {
	const open = await allChats('closed=false');
	expect(open.length).toBeGreaterThan(0);
	const run = await runAction(sbx, savedAction('open chats'), {}, { expectOutputs: open.length, settleMs: 50 });
	expectNoError(run);
	expect(run.outputs.map((msg) => (msg.payload as any).id)).toEqual(open.map((chat) => chat.id));
});

test('"unread chats" (Get Many, read: false, one message with the list) lists the unread chats', async () => {
	const unread = await allChats('read=false');
	const run = await runAction(sbx, savedAction('unread chats'));
	expectNoError(run);
	expect((run.outputs[0]!.payload as any[]).map((chat) => chat.id)).toEqual(unread.map((chat) => chat.id));
});

test('"label new", "teammates" and "assign" run on a chat id taken from msg', async () => {
	const chat = (await allChats('closed=false'))[0];
	expectNoError(await runAction(sbx, savedAction('label "new"'), { chat_id: chat.id }));
	expect((await sandboxData(sbx, `/chats/${chat.id}`)).labels).toContain('new');

	const teammatesRun = await runAction(sbx, savedAction('teammates'));
	expectNoError(teammatesRun);
	const active = (teammatesRun.outputs[0]!.payload as any[]).find((mate) => mate.status === 'active');
	expect(active).toBeDefined();

	expectNoError(await runAction(sbx, savedAction('assign'), { chat_id: chat.id, responsible: active.email }));
	expect((await sandboxData(sbx, `/chats/${chat.id}`)).responsible_email).toBe(active.email);
});

test('"answer in the chat" (Send to Chat, chat id from msg.payload.chat_id) sends once', async () => {
	const chat = (await allChats('closed=false')).find((candidate) => !candidate.is_group && candidate.is_allowed_to_message !== false);
	const run = await runAction(sbx, savedAction('answer in the chat'), { payload: { chat_id: chat.id } });
	expectNoError(run);
	const uid = (run.outputs[0]!.payload as any).message_uid;
	const messages = (await sandboxData(sbx, `/chats/${chat.id}/messages`)).messages as any[];
	expect(messages.filter((message) => message.uid === uid || message.message_uid === uid)).toHaveLength(1);
	expect(messages[0].text).toBe('Thanks for your message, we will answer shortly.');
});

test('"send with attachment, wait for delivery" (Send to Phone Number, attachment URL, wait for delivered) delivers', async () => {
	const props = savedAction('send with attachment, wait for delivery');
	const run = await runAction(sbx, { ...props, attachment: { value: fileUrl, type: 'str' } }, { payload: 'Our price list' });
	expectNoError(run);
	const result = run.outputs[0]!.payload as any;
	expect(['delivered', 'read']).toContain(result.status); // delivered, or already past it
	expect(result.file).toBeDefined();
});

test('the saved event nodes subscribe to the event types they hold', async () => {
	const nodeHttp = await startNodeHttp();
	try {
		const events = savedNodes.filter((node) => node.type === 'chat-messaging-event');
		const flow = [
			{ id: TAB, type: 'tab', label: 'saved events' },
			configNode(sbx, { publicUrl: nodeHttp.url }),
			...events.map((node, index) => ({ ...node, z: TAB, config: CONFIG_ID, x: 100, y: 100 + 60 * index, wires: [[]] })),
		];
		await helper.load(nodesUnderTest as never, flow, credentialsFor(TOKEN));
		const hooks = await waitFor("const list = (await sandboxData(sbx, '/webhooks')).webhooks as any[...", async () => {
			const list = (await sandboxData(sbx, '/webhooks')).webhooks as any[];
			return list.length === 3 && list;
		});
		expect(hooks.map((hook) => hook.event_type).sort()).toEqual(['chat:created', 'message:received:new', 'message:received:new']);
	} finally {
		await helper.unload();
		for (const hook of (await sandboxData(sbx, '/webhooks')).webhooks) await sandboxCall(sbx, 'DELETE', `/webhooks/${hook.id}`);
		await nodeHttp.stop();
	}
});
