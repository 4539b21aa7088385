/**
 * The example flows the package ships, deployed next to the base flow on its one config node (a tap on the send
 * example's output records what the flow got back), each doing what its description says.
 */
import { readFile } from 'node:fs/promises';
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
const deployed = (r: RuntimeRun) => r.examples !== undefined;

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
	const flows = Object.entries(examples).flatMap(([name, nodes]) => (name === SEND_EXAMPLE ? [...tapped, tap] : nodes));
	await deployFlows(red.url, [...baseFlow(r.sandbox.url, r.publicUrl, r.token), ...flows]);
	const events = flows.filter((node) => node.type === 'chat-messaging-event').flatMap((node) => node.events as string[]);
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
];
