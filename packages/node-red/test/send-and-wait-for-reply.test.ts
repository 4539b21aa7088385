/**
 * Send and wait for reply in Node-RED: the action node sends, emits the send's result
 * on output 1, then the customer's next message in that chat on output 2, or the time-out on output 3.
 * The customer's message is made in the sandbox (POST /_sandbox/incoming), as a customer would write.
 */
import { migrateAction } from '../src/nodes/action/migrations';
import { replyTimeoutOf } from '../src/nodes/action/reply';
import type { NodeMessage } from 'node-red';
import {
	Collector,
	configNode,
	CONFIG_ID,
	credentialsFor,
	FAST_SANDBOX,
	fields,
	helper,
	nodesUnderTest,
	sandboxCall,
	sandboxData,
	startSandbox,
	TAB,
	waitUntil,
	type Sandbox,
} from './support';

const TOKEN = 'reply-token-3b7e';
let sbx: Sandbox;
let chat: any;

beforeAll(async () => {
	sbx = await startSandbox({ ...FAST_SANDBOX, tokens: [TOKEN] });
	chat = (await sandboxData(sbx, '/chats?group=false')).chats.find((candidate: any) => candidate.is_allowed_to_message !== false);
});
afterAll(async () => {
	await sbx.stop();
});
afterEach(async () => {
	await helper.unload();
});

async function loadSendAndWait(
	replyTimeout: number,
	settings: Record<string, unknown> = {},
): Promise<{ sent: Collector; replies: Collector; timeouts: Collector }> {
	const flow = [
		{ id: TAB, type: 'tab', label: 'send and wait' },
		configNode(sbx),
		{
			id: 'action',
			z: TAB,
			type: 'chat-messaging',
			config: CONFIG_ID,
			resource: 'message',
			operation: 'sendToChat',
			fields: fields({ chat_id: chat.id, text: 'Shall we deliver tomorrow?' }),
			waitForReply: true,
			replyTimeout,
			outputs: 3,
			x: 100,
			y: 100,
			wires: [['sent'], ['reply'], ['timeout']],
			...settings,
		},
		{ id: 'sent', z: TAB, type: 'helper', x: 300, y: 60 },
		{ id: 'reply', z: TAB, type: 'helper', x: 300, y: 100 },
		{ id: 'timeout', z: TAB, type: 'helper', x: 300, y: 140 },
	];
	await helper.load(nodesUnderTest as never, flow, credentialsFor(TOKEN));
	return { sent: new Collector('sent'), replies: new Collector('reply'), timeouts: new Collector('timeout') };
}

const receive = (msg: NodeMessage) => (helper.getNode('action') as unknown as { receive(msg: NodeMessage): void }).receive(msg);

test("the send's result on output 1, then the customer's reply on output 2 (not an earlier message, not our own)", async () => {
	await sandboxCall(sbx, 'POST', '/_sandbox/incoming', { chat_id: chat.id, text: 'an older message' });
	const { sent, replies, timeouts } = await loadSendAndWait(20); // looks every 2 s
	receive({ topic: 'order 17', payload: 'ignored' });
	const [result] = await sent.waitFor(1);
	const uid = (result!.payload as any).message_uid;
	expect(uid).toEqual(expect.any(String));
	expect(result!.topic).toBe('order 17');

	const answer = await sandboxCall(sbx, 'POST', '/_sandbox/incoming', { chat_id: chat.id, text: 'Yes please' });
	expect(answer.status).toBe(200);
	const [reply] = await replies.waitFor(1, 20_000);
	expect(reply!.payload).toMatchObject({ event_type: 'message:received:new', chat_id: chat.id, text: 'Yes please' });
	expect((reply!.sent as any).message_uid).toBe(uid);
	expect(timeouts.messages).toEqual([]);
	expect(sent.messages).toHaveLength(1);
});

test('no reply within the time-out: output 3 says so, outputs 1 and 2 carry nothing more', async () => {
	const { sent, replies, timeouts } = await loadSendAndWait(1);
	receive({ payload: 'x' });
	await waitUntil(
		[sent, replies, timeouts],
		() => timeouts.messages.length > 0,
		15_000,
		() => 'the time-out message',
	);
	const payload = timeouts.messages[0]!.payload as any;
	expect(payload).toMatchObject({ timedOut: true, chat_id: chat.id, message_uid: (sent.messages[0]!.payload as any).message_uid });
	expect(payload.waitedMs).toBeGreaterThanOrEqual(1000);
	expect(replies.messages).toEqual([]);
	expect(sent.messages).toHaveLength(1);
});

test('Reply on Send To = JID with an attachment and Wait for sent: the send as Send makes it, then the reply', async () => {
	const { sent, replies, timeouts } = await loadSendAndWait(20, {
		operation: 'send',
		sendTo: 'jid',
		fields: fields({ jid: chat.jid, text: 'Here is the menu' }),
		attachment: { value: 'https://example.com/menu.pdf', type: 'str' },
		waitFor: 'sent',
	});
	receive({ payload: 'x' });
	const [result] = await sent.waitFor(1);
	const payload = result!.payload as any;
	expect(payload.file.uid).toEqual(expect.any(String));
	expect(['sent', 'delivered', 'read']).toContain(payload.status);
	await sandboxCall(sbx, 'POST', '/_sandbox/incoming', { chat_id: chat.id, text: 'Thanks' });
	const [reply] = await replies.waitFor(1, 20_000);
	expect(reply!.payload).toMatchObject({ event_type: 'message:received:new', chat_id: chat.id, text: 'Thanks' });
	expect((reply!.sent as any).message_uid).toBe(payload.message_uid);
	expect(timeouts.messages).toEqual([]);
});

test('a node closed while waiting stops waiting and emits nothing more', async () => {
	const { sent, replies, timeouts } = await loadSendAndWait(600);
	receive({ payload: 'x' });
	await sent.waitFor(1);
	await helper.unload(); // closes the node: the pause between looks ends at once
	expect(replies.messages).toEqual([]);
	expect(timeouts.messages).toEqual([]);
});

describe('one Send with Send To (the editor\'s "Send"; the four send operations keep working)', () => {
	const sendWith = async (props: Record<string, unknown>) => {
		const flow = [
			{ id: TAB, type: 'tab', label: 'send' },
			configNode(sbx),
			{
				id: 'action',
				z: TAB,
				type: 'chat-messaging',
				config: CONFIG_ID,
				resource: 'message',
				operation: 'send',
				x: 100,
				y: 100,
				wires: [['sent']],
				...props,
			},
			{ id: 'sent', z: TAB, type: 'helper', x: 300, y: 100 },
			{ id: 'catcher', z: TAB, type: 'catch', scope: null, uncaught: false, x: 100, y: 200, wires: [['caught']] },
			{ id: 'caught', z: TAB, type: 'helper', x: 300, y: 200 },
		];
		await helper.load(nodesUnderTest as never, flow, credentialsFor(TOKEN));
		const sent = new Collector('sent');
		const caught = new Collector('caught');
		receive({ payload: 'x' });
		await waitUntil(
			[sent, caught],
			() => sent.messages.length + caught.messages.length > 0,
			15_000,
			() => 'a result or an error',
		);
		return { sent: sent.messages, caught: caught.messages };
	};
	const newest = async (chatId: number) => (await sandboxData(sbx, `/chats/${chatId}/messages`)).messages[0];

	test('Send To = Chat sends into the chat', async () => {
		const run = await sendWith({ sendTo: 'chat', fields: fields({ chat_id: chat.id, text: 'via Send, to a chat' }) });
		expect(run.caught).toEqual([]);
		expect((await newest(chat.id)).text).toBe('via Send, to a chat');
	});

	test('Send To = Chat Name sends into the chat of that name', async () => {
		const run = await sendWith({ sendTo: 'chatName', fields: fields({ chat_name: chat.name, text: 'via Send, by name' }) });
		expect(run.caught).toEqual([]);
		expect((await newest(chat.id)).text).toBe('via Send, by name');
	});

	test('Send To = Phone Number (also the default when sendTo is missing) sends to the number', async () => {
		const run = await sendWith({ fields: fields({ phone: '+4915112340077', text: 'via Send, to a phone' }) });
		expect(run.caught).toEqual([]);
		expect((run.sent[0]!.payload as any).message_uid).toEqual(expect.any(String));
	});

	test('an unknown Send To is an input error naming sendTo, before any request', async () => {
		const run = await sendWith({ sendTo: 'pigeon', fields: fields({ text: 'never sent' }) });
		expect(run.sent).toEqual([]);
		expect(run.caught[0]!.chatMessagingError).toMatchObject({ kind: 'input', field: 'sendTo' });
		expect(String((run.caught[0]!.error as any).message)).toMatch(/Send To "pigeon": use one of phone, chat, chatName, jid/);
	});
});

describe('the reply time-out of flows saved before new nodes started at an hour', () => {
	test('a node saved without replyTimeout keeps the 300 s it always had; a saved value is kept', () => {
		expect(replyTimeoutOf(migrateAction({ id: 'a', type: 'chat-messaging' }))).toBe(300);
		expect(replyTimeoutOf(migrateAction({ id: 'a', type: 'chat-messaging', replyTimeout: 300 }))).toBe(300);
		expect(replyTimeoutOf(migrateAction({ id: 'a', type: 'chat-messaging', replyTimeout: '3600' }))).toBe(3600);
		expect(replyTimeoutOf(migrateAction({ id: 'a', type: 'chat-messaging', replyTimeout: 20 }))).toBe(20);
	});
});
