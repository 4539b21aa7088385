/**
 * The example workflows users import (packages/n8n/examples), run in real n8n: the two that run on demand with
 * `n8n execute` (before n8n is started as a server), and the three started by the webhook trigger, published in the
 * running n8n (after the trigger's own cases).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assert } from './checks';
import type { N8nRun } from './n8n-instance';
import { describeCli, equalSets, nodeItems, required, type Case, type N8nE2e } from './run-context';
import { exampleWorkflows } from './workflows';
import { sleep, waitFor } from '../../support/harness';

const examples = exampleWorkflows();

async function exportUnreadChats(e: N8nE2e): Promise<string> {
	const { cli, run } = await e.execute(examples['export-unread-chats-every-morning'].id);
	assert(cli.code === 0, `n8n execute failed: ${describeCli(cli)}`);
	const unread = (await e.sandboxChats('read=false&')).map((chat) => String(chat.id));
	assert(unread.length > 0, 'the sandbox has no unread chat to export');
	const rows = nodeItems(run, 'Columns');
	assert(
		equalSets(
			rows.map((row) => String(row.json.id)),
			unread,
		),
		`rows ${JSON.stringify(rows.map((row) => row.json.id))}, unread chats ${JSON.stringify(unread)}`,
	);
	assert(
		rows.every((row) => Object.keys(row.json).sort().join() === 'id,labels,last_message,name,phone,responsible'),
		`unexpected columns: ${JSON.stringify(rows[0]?.json)}`,
	);
	const [file] = nodeItems(run, 'CSV file') as Array<{
		binary?: Record<string, { fileName?: string; mimeType?: string; data?: string }>;
	}>;
	const csv = file?.binary?.data;
	assert(csv?.fileName === 'unread-chats.csv' && csv.mimeType === 'text/csv', `the CSV file item is ${JSON.stringify(file).slice(0, 300)}`);
	return `${rows.length} unread chats; n8n execute ${cli.ms} ms`;
}

async function sendFileAndWait(e: N8nE2e): Promise<string> {
	const { cli, run } = await e.execute(examples['send-attachment-and-wait-for-delivery'].id);
	assert(cli.code === 0, `n8n execute failed: ${describeCli(cli)}`);
	const items = nodeItems(run, 'Send with attachment, wait for delivery');
	assert(items.length === 1, `expected 1 output item, got ${items.length}`);
	const { message_uid: uid, status } = items[0].json;
	assert(status === 'delivered' || status === 'read', `the output says status ${String(status)}`);
	const message = await e.sandbox<{ text: string; chat_id: number; has_attachment: boolean; attachment_filename: string }>(
		'GET',
		`/messages/${encodeURIComponent(String(uid))}`,
	);
	assert(message.has_attachment && message.attachment_filename === 'price-list.pdf', `the sandbox holds ${JSON.stringify(message)}`);
	const history = await e.sandbox<{ messages: Array<{ uid: string; text: string }> }>('GET', `/chats/${message.chat_id}/messages`);
	const copies = history.messages.filter((m) => m.text === message.text).length;
	assert(copies === 1, `the chat holds ${copies} copies of the message`);
	return `uid ${String(uid)} ${String(status)}; n8n execute ${cli.ms} ms`;
}

async function autoReplyAndLabel(e: N8nE2e): Promise<string> {
	const active = [examples['auto-reply-to-inbound-messages'], examples['label-and-assign-new-chats']];
	const webhookIds = active.flatMap((example) => example.nodes.map((node) => node.webhookId ?? '')).filter(Boolean);
	const exampleHooks = async () => (await e.sandboxWebhooks()).filter((hook) => webhookIds.some((id) => hook.url.includes(id)));
	for (const example of active) {
		const activated = await e.running().publicApi('POST', `/workflows/${example.id}/activate`);
		assert(
			activated.status === 200,
			`activating "${example.name}" answered ${activated.status}: ${JSON.stringify(activated.body).slice(0, 300)}`,
		);
	}
	const hooks = await waitFor('both subscriptions', async () => ((await exampleHooks()).length === 2 ? exampleHooks() : undefined), {
		timeoutMs: 10_000,
	});
	const { teammates } = await e.sandbox<{ teammates: Array<{ email: string; status: string }> }>('GET', '/workspace/teammates');
	const teammate = required(
		teammates.find((member) => member.status === 'active'),
		'an active teammate',
	).email;
	const phone = '+4915177' + String(Date.now()).slice(-6);
	const incoming = await e.sandbox<{ chat_id: number; chat_created: boolean }>('POST', '/_sandbox/incoming', {
		phone,
		text: 'Hello, a new customer here',
	});
	assert(incoming.chat_created, 'the sandbox did not create a new chat');
	const reply = 'Thanks for your message, we will answer shortly.';
	const replies = async () =>
		(
			await e.sandbox<{ messages: Array<{ text: string; from_me: boolean }> }>('GET', `/chats/${incoming.chat_id}/messages`)
		).messages.filter((m) => m.from_me && m.text === reply).length;
	const chat = await waitFor(
		'the label, the assignment and the reply',
		async () => {
			const record = await e.sandbox<{ labels: string[]; responsible_email: string | null }>('GET', `/chats/${incoming.chat_id}`);
			const replied = await replies();
			return record.labels.includes('new') && record.responsible_email === teammate && replied > 0 ? record : undefined;
		},
		{ timeoutMs: 20_000 },
	);
	await sleep(1000); // a second reply, if one were sent, would show up within this pause
	assert((await replies()) === 1, 'the customer got more than one auto-reply');
	for (const example of active) {
		const deactivated = await e.running().publicApi('POST', `/workflows/${example.id}/deactivate`);
		assert(deactivated.status === 200, `deactivating "${example.name}" answered ${deactivated.status}`);
	}
	await waitFor('the subscriptions to be removed', async () => ((await exampleHooks()).length === 0 ? true : undefined), {
		timeoutMs: 10_000,
	});
	return `${hooks.map((hook) => hook.event_type).join(' + ')}; labels ${JSON.stringify(chat.labels)}, assigned to ${teammate}`;
}

type BinaryRef = { data?: string; id?: string; fileSize?: string };
type Run = { id: string; status: string; data?: { resultData: N8nRun['data']['resultData'] } };

/** The example's run of one delivery: the file described, and the trigger's binary byte-equal to what was uploaded. */
async function checkDownloadRun(e: N8nE2e, run: Run, bytes: Buffer): Promise<void> {
	const described = run.data?.resultData.runData['Describe the file']?.[0]?.data?.main?.[0]?.[0] as
		{ json: Record<string, unknown>; binary?: Record<string, BinaryRef> } | undefined;
	assert(
		described?.json.file_name === 'order.pdf' && described.json.file_type === 'application/pdf',
		`described: ${JSON.stringify(described?.json)}`,
	);
	const fromTrigger = run.data?.resultData.runData['Inbound message with attachments']?.[0]?.data?.main?.[0]?.[0] as
		{ binary?: Record<string, BinaryRef> } | undefined;
	const binary = fromTrigger?.binary?.attachment_0;
	assert(binary, `no binary attachment_0 on the trigger's item: ${JSON.stringify(fromTrigger).slice(0, 300)}`);
	// n8n keeps the bytes inline (base64), or in its filesystem store under the user folder (an id).
	const stored = binary.id?.startsWith('filesystem-v2:')
		? readFileSync(join(e.userFolder, '.n8n', 'storage', binary.id.slice('filesystem-v2:'.length)))
		: Buffer.from(String(binary.data), 'base64');
	assert(stored.equals(bytes), `the stored attachment differs (${stored.length} bytes, ${JSON.stringify(binary).slice(0, 200)})`);
}

async function downloadAttachments(e: N8nE2e): Promise<string> {
	const { inboundChat } = e;
	assert(inboundChat, 'no direct chat');
	const example = examples['download-attachments-of-inbound-messages'];
	const activated = await e.running().publicApi('POST', `/workflows/${example.id}/activate`);
	assert(activated.status === 200, `activating answered ${activated.status}: ${JSON.stringify(activated.body).slice(0, 300)}`);
	try {
		await waitFor(
			'its subscription',
			async () => ((await e.sandboxWebhooks()).some((hook) => hook.url.includes(String(example.nodes[0].webhookId))) ? true : undefined),
			{ timeoutMs: 10_000 },
		);
		const bytes = Buffer.from(Array.from({ length: 3000 }, (_, index) => (index * 31) % 256));
		const form = new FormData();
		form.append('file', new Blob([bytes], { type: 'application/pdf' }), 'order.pdf');
		const uploaded = await fetch(`${e.sandboxUrl}/files_upload`, {
			method: 'POST',
			headers: { authorization: `Bearer ${e.token}` },
			body: form,
		});
		const fileUid = ((await uploaded.json()) as { data: { uid: string } }).data.uid;
		const done: string[] = [];
		for (const payload of ['spec', 'spec-exact']) {
			await e.sandbox('POST', '/_sandbox/incoming', {
				phone: inboundChat.phone,
				text: `my order, attached (${payload})`,
				file_uid: fileUid,
				payload,
			});
			const run = await waitFor(
				`the execution of the ${payload} delivery`,
				async () => {
					const listed = await e.running().publicApi('GET', `/executions?workflowId=${example.id}&includeData=true`);
					const [latest] = (listed.body as { data: Run[] }).data;
					return latest && latest.status === 'success' && !done.includes(String(latest.id)) ? latest : undefined;
				},
				{ timeoutMs: 20_000 },
			);
			done.push(String(run.id));
			await checkDownloadRun(e, run, bytes);
		}
		return `order.pdf, ${bytes.length} bytes, equal from both delivery shapes`;
	} finally {
		await e.running().publicApi('POST', `/workflows/${example.id}/deactivate`);
	}
}

/** Run with `n8n execute`, before n8n is started as a server. */
export const exampleRunNowCases: Case[] = [
	{ name: '(examples) Export unread chats every morning: run now, one CSV row per unread chat', run: exportUnreadChats },
	{ name: '(examples) Send a file and wait for delivery: delivered, with its attachment, once', run: sendFileAndWait },
];

/** Published in the running n8n, after the webhook trigger's own cases. */
export const exampleWebhookCases: Case[] = [
	{
		name: '(examples) Auto-reply and Label and assign new chats: a new customer gets the label, a teammate and the answer',
		run: autoReplyAndLabel,
	},
	{
		name: "(examples) Download the attachments of inbound messages: the file arrives as binary data, byte-equal, from the sandbox's spec-shaped delivery and from exactly the spec's event (no attachment hint)",
		run: downloadAttachments,
	},
];
