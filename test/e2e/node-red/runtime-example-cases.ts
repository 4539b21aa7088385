/**
 * The example flows the package ships, deployed next to the base flow on its one config node (a tap on the send
 * example's output records what the flow got back), each doing what its description says.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import {
	assert,
	assertEqual,
	deployFlows,
	httpJson,
	installedExampleFlows,
	readTextIfExists,
	removeDir,
	sleep,
	waitFor,
} from './e2e-support';
import { CONFIG_ID, baseFlow, collected, collector, running, type Json, type RuntimeCase, type RuntimeRun } from './runtime-support';

const SEND_EXAMPLE = 'send-attachment-and-wait-for-delivery';
const AI_EXAMPLE = 'ai-responder';
const STUB_ANSWER = 'Stub answer from the model';
const deployed = (r: RuntimeRun) => r.examples !== undefined;

/** A local OpenAI-compatible chat-completions endpoint for the AI responder example: each request's body kept, one answer. */
interface ModelStub {
	url: string;
	requests: Array<{ messages: Array<{ role: string; content: string }> }>;
	server: Server;
}
const modelStubs = new Map<RuntimeRun, ModelStub>();

async function startModelStub(): Promise<ModelStub> {
	const requests: ModelStub['requests'] = [];
	const server = createServer((req, res) => {
		let body = '';
		req.on('data', (chunk: Buffer) => (body += chunk.toString()));
		req.on('end', () => {
			requests.push(JSON.parse(body || '{}'));
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: STUB_ANSWER }, finish_reason: 'stop' }] }));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	server.unref();
	return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests, server };
}

/** The AI responder example pointed at the stub (its tab's environment), polling every second. */
function aiResponderAt(flow: Json[], stub: ModelStub): Json[] {
	return flow.map((node) => {
		if (node.type === 'tab')
			return {
				...node,
				env: [
					{ name: 'OPENAI_BASE_URL', value: stub.url, type: 'str' },
					{ name: 'OPENAI_API_KEY', value: 'e2e-model-key', type: 'str' },
				],
			};
		return node.type === 'chat-messaging-event' ? { ...node, pollSeconds: 1 } : node;
	});
}

async function deployExamples(r: RuntimeRun): Promise<void> {
	const red = running(r);
	const examples = await installedExampleFlows(r.dir, CONFIG_ID);
	const sendExample = examples[SEND_EXAMPLE] ?? [];
	const sendNode = sendExample.find((node) => node.type === 'chat-messaging');
	assert(sendNode, `the package ships no send example; examples: ${Object.keys(examples).join(', ')}`);
	const tap: Json = { ...collector('tap-sent-example', 'sent-example'), z: sendNode.z };
	const tapped = sendExample.map((node) =>
		node === sendNode ? { ...node, wires: [[...((node.wires as string[][])[0] ?? []), 'tap-sent-example']] } : node,
	);
	const stub = await startModelStub();
	modelStubs.set(r, stub);
	const flows = Object.entries(examples).flatMap(([name, nodes]) =>
		name === SEND_EXAMPLE ? [...tapped, tap] : name === AI_EXAMPLE ? aiResponderAt(nodes, stub) : nodes,
	);
	await deployFlows(red.url, [...baseFlow(r.sandbox.url, r.publicUrl, r.token), ...flows]);
	// Webhook-mode event nodes subscribe; the AI responder polls.
	const events = flows
		.filter((node) => node.type === 'chat-messaging-event' && node.mode !== 'polling')
		.flatMap((node) => node.events as string[]);
	assertEqual(events.sort(), ['chat:created', 'message:received:new', 'message:received:new'], 'event types of the examples');
	await waitFor("the examples' subscriptions", async () => ((await r.view.webhooks()).length === events.length ? true : undefined));
	r.examples = examples;
}

async function newCustomer({ view }: RuntimeRun): Promise<void> {
	const { teammates } = await view.get<{ teammates: Json[] }>('/workspace/teammates');
	const teammate = teammates.find((member) => member.status === 'active')?.email;
	assert(teammate, 'the sandbox has no active teammate');
	const customer = '+4915177' + String(Date.now() % 1_000_000).padStart(6, '0');
	const incoming = await view.post<Json>('/_sandbox/incoming', { phone: customer, text: 'Hello, a new customer here' });
	assertEqual(incoming.chat_created, true, 'a new chat');
	const reply = 'Thanks for your message, we will answer shortly.';
	const replies = async () =>
		(await view.get<{ messages: Json[] }>(`/chats/${String(incoming.chat_id)}/messages`)).messages.filter(
			(m) => m.from_me === true && m.text === reply,
		).length;
	await waitFor('the label, the assignment and the reply', async () => {
		const chat = await view.get<Json>(`/chats/${String(incoming.chat_id)}`);
		const labelled = (chat.labels as string[]).includes('new') && chat.responsible_email === teammate;
		return labelled && (await replies()) > 0 ? true : undefined;
	});
	await sleep(1000); // a second reply, if one were sent, would show up within this pause
	assertEqual(await replies(), 1, 'auto-replies');
}

async function morningExport(r: RuntimeRun): Promise<void> {
	const inject = r.examples?.['export-unread-chats-every-morning']?.find((node) => node.type === 'inject');
	assert(inject && String(inject.crontab).trim() !== '', 'the export example has no scheduled inject');
	const file = path.join(r.dir, 'unread-chats.csv');
	await removeDir(file);
	const injected = await httpJson('POST', `${running(r).url}/inject/${String(inject.id)}`);
	assertEqual(injected.status, 200, `POST /inject status (${injected.text})`);
	const csv = await waitFor('unread-chats.csv', () => readTextIfExists(file));
	const [header, ...rows] = csv.trim().split('\n');
	assertEqual(header, 'id,name,phone,last_message,responsible,labels', 'CSV header');
	const unread = (await r.view.allChats()).filter((chat) => chat.read === false).map((chat) => String(chat.id));
	assertEqual(rows.map((row) => row.split(',')[0]).sort(), unread.sort(), 'chat ids in the CSV (the unread chats)');
}

async function downloadsAttachments(r: RuntimeRun): Promise<void> {
	for (const payload of ['spec', 'spec-exact']) {
		const bytes = Buffer.from(Array.from({ length: 3000 }, (_, index) => (index * 29) % 256));
		const form = new FormData();
		form.append('file', new Blob([bytes], { type: 'application/pdf' }), `order-${payload}.pdf`);
		const uploaded = await fetch(`${r.sandbox.url}/files_upload`, {
			method: 'POST',
			headers: { authorization: `Bearer ${r.token}` },
			body: form,
		});
		const fileUid = ((await uploaded.json()) as { data: { uid: string } }).data.uid;
		const incoming = await r.view.post<Json>('/_sandbox/incoming', {
			phone: r.phone,
			text: 'my order, attached',
			file_uid: fileUid,
			payload,
		});
		const written = path.join(r.dir, 'attachments', `${String(incoming.chat_id)}-order-${payload}.pdf`);
		const content = await waitFor('the downloaded file', async () => {
			try {
				return await readFile(written);
			} catch {
				return undefined;
			}
		});
		assert(Buffer.compare(content, bytes) === 0, `the file written differs from the one sent (${content.length} bytes)`);
	}
}

async function sendExampleDelivers(r: RuntimeRun): Promise<void> {
	const red = running(r);
	const inject = (r.examples?.[SEND_EXAMPLE] ?? []).find((node) => node.type === 'inject');
	assert(inject, 'the send example has no inject node');
	const injected = await httpJson('POST', `${red.url}/inject/${String(inject.id)}`);
	assertEqual(injected.status, 200, `POST /inject status (${injected.text})`);
	const [sent] = await waitFor("the send example's output", async () => (await collected(red))['sent-example']);
	const payload = sent.payload as Json;
	assert(['delivered', 'read'].includes(String(payload.status)), `the flow got status ${String(payload.status)}`);
	const message = await r.view.get<Json>(`/messages/${String(payload.message_uid)}`);
	assertEqual([message.has_attachment, message.attachment_filename], [true, 'price-list.pdf'], 'attachment of the message');
	const history = await r.view.get<{ messages: Json[] }>(`/chats/${String(message.chat_id)}/messages`);
	assertEqual(history.messages.filter((m) => m.text === message.text).length, 1, 'copies of the message in the chat');
}

/**
 * The AI responder: a customer's question gets the model's answer; after a teammate's message, a burst of three
 * quick messages is one turn: one model call, whose request holds the earlier question, the answer, the teammate's
 * message (named) and the burst as its last message, and one answer in the chat.
 */
async function aiResponder(r: RuntimeRun): Promise<void> {
	const stub = modelStubs.get(r);
	assert(stub, 'the model stub was not started');
	try {
		const customer = '+4915178' + String(Date.now() % 1_000_000).padStart(6, '0');
		const ours = () => stub.requests.filter((request) => JSON.stringify(request).includes('Do you ship to Austria?'));
		const first = await r.view.post<Json>('/_sandbox/incoming', { phone: customer, text: 'Do you ship to Austria?' });
		const chatId = String(first.chat_id);
		const answers = async () =>
			(await r.view.get<{ messages: Json[] }>(`/chats/${chatId}/messages`)).messages.filter((m) => m.text === STUB_ANSWER).length;
		await waitFor('the first answer', async () => ((await answers()) === 1 ? true : undefined));
		await r.view.post<Json>('/_sandbox/teammate-message', { chat_id: first.chat_id, text: 'We do, in 3 days.' });
		for (const text of ['great', 'then I order', 'the blue one']) await r.view.post<Json>('/_sandbox/incoming', { phone: customer, text });
		await waitFor('the answer to the burst', async () => ((await answers()) === 2 ? true : undefined));
		await sleep(4000); // a third answer, if the burst were split, would come within the burst's quiet time and a poll
		assertEqual(await answers(), 2, 'answers in the chat');
		const calls = ours();
		assertEqual(calls.length, 2, 'model calls for the chat (the question, then the burst as one turn)');
		const messages = calls[1]!.messages;
		const roles = messages.map((message) => `${message.role}: ${message.content}`);
		assertEqual(messages[0]?.role, 'system', 'the first message of the request');
		assert(roles.includes('user: Do you ship to Austria?'), `the earlier question is in the request: ${JSON.stringify(roles)}`);
		assert(roles.includes(`assistant: ${STUB_ANSWER}`), `the answer sent is in the request: ${JSON.stringify(roles)}`);
		assert(
			roles.some((line) => /^assistant: .+ \(teammate\): We do, in 3 days\.$/.test(line)),
			`the teammate's message is in the request: ${JSON.stringify(roles)}`,
		);
		assertEqual(roles.at(-1), 'user: great\nthen I order\nthe blue one', 'the burst, last, as one message');
		assertEqual(roles.filter((line) => line.includes('the blue one')).length, 1, 'the burst in the request once');
		console.log(`AI responder: the model's request for the burst: ${JSON.stringify(messages)}`);
	} finally {
		modelStubs.delete(r);
		stub.server.close();
	}
}

export const exampleCases: RuntimeCase[] = [
	{ name: 'the example flows deploy on one config node and their event nodes subscribe', run: deployExamples },
	{ name: 'examples: a new customer gets the label "new", a teammate and one auto-reply', when: deployed, run: newCustomer },
	{ name: 'examples: the morning export writes one CSV row per unread chat', when: deployed, run: morningExport },
	{
		name: "examples: the files of an inbound message are downloaded into attachments/, byte-equal, from the sandbox's spec-shaped delivery and from exactly the spec's event (no attachment hint)",
		when: deployed,
		run: downloadsAttachments,
	},
	{ name: 'examples: the send example delivers its message with the attachment, once', when: deployed, run: sendExampleDelivers },
	{
		name: 'examples: the AI responder answers with the conversation; a burst is one model call and one answer',
		when: deployed,
		run: aiResponder,
	},
];
