/**
 * Real-n8n cases of Send and Wait for Response, n8n's standard `sendAndWait` (human in the loop), run
 * from run.ts once n8n is started with the package installed, the owner set up and the credential
 * imported:
 * - n8n offers the action node as a human-in-the-loop tool: its generated `chatMessagingHitlTool`
 *   type is listed beside the node, an AI tool whose operation is `sendAndWait`;
 * - Approval behind a Webhook trigger: the message reaches the sandbox once, with n8n's signed links
 *   (loopback, as n8n's WEBHOOK_URL here); a link preview leaves the execution waiting; a person
 *   opening the approve link resumes it with `{ data: { approved: true } }`, and a second click
 *   finds nothing to answer;
 * - Free Text: the form link serves a form; posting the answer resumes with `{ data: { text } }`.
 * The workflows are created through n8n's public API.
 */
import { randomBytes } from 'node:crypto';
import { assert } from './checks';
import type { N8nInstance } from './n8n-instance';
import { CREDENTIAL_ID, CREDENTIAL_TYPE, PACKAGE_NAME } from './workflows';
import { sleep, waitFor } from '../../support/harness';

export interface SendAndWaitCasesContext {
	check: (name: string, body: () => Promise<string | undefined>) => Promise<void>;
	n8n: () => N8nInstance;
	sandbox: <T = unknown>(method: string, path: string, body?: unknown) => Promise<T>;
	/** The action node's version new nodes get (Send and Wait for Response is an operation of version 2.x). */
	typeVersion: number;
}

type Json = Record<string, unknown>;
interface Execution {
	id: string;
	status: string;
	data?: { resultData: { runData: Record<string, Array<{ data?: { main?: Array<Array<{ json: Json }> | null> } }>> } };
}

const credentials = { [CREDENTIAL_TYPE]: { id: CREDENTIAL_ID, name: 'Chat Messaging sandbox' } };
const NODE_NAME = 'Ask for approval';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
const HITL_TYPE = `${PACKAGE_NAME}.chatMessagingHitlTool`;

export async function runSendAndWaitCases(ctx: SendAndWaitCasesContext): Promise<void> {
	const { check, sandbox, n8n, typeVersion } = ctx;

	async function executions(workflowId: string): Promise<Execution[]> {
		const listed = await n8n().publicApi('GET', `/executions?workflowId=${workflowId}&includeData=true&limit=20`);
		assert(listed.status === 200, `executions answered ${listed.status}`);
		return (listed.body as { data: Execution[] }).data;
	}
	const itemsOf = (execution: Execution): Json[] =>
		(execution.data?.resultData.runData[NODE_NAME]?.at(-1)?.data?.main?.[0] ?? []).map((item) => item.json);
	const finished = async (workflowId: string, id: string): Promise<Execution> =>
		await waitFor(
			'the resumed execution',
			async () => {
				const found = (await executions(workflowId)).find((execution) => execution.id === id);
				return found && !['waiting', 'running', 'new'].includes(found.status) ? found : undefined;
			},
			{ timeoutMs: 30_000, intervalMs: 250 },
		);

	/** Creates and activates Webhook trigger → Send and Wait for Response, calls the trigger, returns the waiting execution. */
	async function startWaiting(path: string, parameters: Json): Promise<{ workflowId: string; execution: Execution; nodeId: string }> {
		const nodeId = `send-and-wait-${path}`;
		const created = await n8n().publicApi('POST', '/workflows', {
			name: `E2E send and wait for response (${path})`,
			nodes: [
				{
					id: `webhook-${path}`,
					name: 'Start',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					position: [0, 0],
					parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
					webhookId: `5e2d9c1a-${randomBytes(2).toString('hex')}-4f6a-9b8c-${randomBytes(6).toString('hex')}`,
				},
				{
					id: nodeId,
					name: NODE_NAME,
					type: `${PACKAGE_NAME}.chatMessaging`,
					typeVersion,
					position: [240, 0],
					parameters: { resource: 'message', operation: 'sendAndWait', ...parameters },
					credentials,
				},
			],
			connections: { Start: { main: [[{ node: NODE_NAME, type: 'main', index: 0 }]] } },
			settings: { executionOrder: 'v1' },
		});
		assert(created.status === 200, `creating the workflow answered ${created.status}: ${JSON.stringify(created.body).slice(0, 400)}`);
		const workflowId = String((created.body as { id: string }).id);
		const activated = await n8n().publicApi('POST', `/workflows/${workflowId}/activate`);
		assert(activated.status === 200, `activate answered ${activated.status}: ${JSON.stringify(activated.body).slice(0, 400)}`);
		await waitFor(
			'the webhook trigger',
			async () => {
				const response = await fetch(`${n8n().baseUrl}/webhook/${path}`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ order: 'A-18' }),
				});
				await response.text();
				return response.status === 200 ? true : undefined;
			},
			{ timeoutMs: 15_000 },
		);
		const execution = await waitFor(
			'the waiting execution',
			async () => (await executions(workflowId)).find((candidate) => candidate.status === 'waiting'),
			{ timeoutMs: 20_000 },
		);
		return { workflowId, execution, nodeId };
	}

	/** The texts the sandbox holds for a phone number's chat that start with `prefix`. */
	async function sentTexts(phone: string, prefix: string): Promise<string[]> {
		const { chats } = await sandbox<{ chats: Array<{ id: number }> }>('GET', `/chats?phone=${encodeURIComponent(phone)}`);
		const texts: string[] = [];
		for (const chat of chats) {
			const { messages } = await sandbox<{ messages: Array<{ text: string | null; from_me: boolean }> }>(
				'GET',
				`/chats/${chat.id}/messages`,
			);
			texts.push(
				...messages.filter((message) => message.from_me && message.text?.startsWith(prefix)).map((message) => String(message.text)),
			);
		}
		return texts;
	}

	/** The link after `label: ` in a sent text; it must lead to this n8n's waiting webhook of the node. */
	function linkOf(text: string, label: string, executionId: string, nodeId: string): string {
		const line = text.split('\n').find((candidate) => candidate.startsWith(`${label}: `));
		assert(line, `no "${label}: " line in ${JSON.stringify(text)}`);
		const url = new URL(line.slice(label.length + 2));
		assert(
			url.origin === n8n().baseUrl && url.pathname === `/webhook-waiting/${executionId}/${nodeId}`,
			`the ${label} link is ${url.href}, not this n8n's waiting webhook of execution ${executionId}`,
		);
		return url.href;
	}

	await check("Send and Wait for Response: n8n offers the node as a human-in-the-loop tool (n8n's own rule)", async () => {
		const response = await fetch(`${n8n().baseUrl}/types/nodes.json`, { headers: { cookie: n8n().sessionCookie } });
		assert(response.ok, `types/nodes.json answered ${response.status}`);
		const types = (await response.json()) as Array<{ name: string; version: number | number[]; outputs?: unknown; properties: Json[] }>;
		const hitl = types.filter((type) => type.name === HITL_TYPE);
		assert(
			hitl.length > 0,
			`n8n lists no ${HITL_TYPE}: ${types
				.filter((type) => type.name.startsWith(PACKAGE_NAME))
				.map((type) => type.name)
				.join(', ')}`,
		);
		const versions = hitl.flatMap((type) => ([] as number[]).concat(type.version));
		assert(versions.includes(typeVersion) && !versions.includes(1), `the tool serves versions ${versions.join(', ')}`);
		const [description] = hitl;
		assert(JSON.stringify(description.outputs).includes('ai_tool'), `its outputs are ${JSON.stringify(description.outputs)}`);
		const operation = description.properties.find((property) => property.name === 'operation');
		assert(operation?.type === 'hidden' && operation.default === 'sendAndWait', `its operation is ${JSON.stringify(operation)}`);
		assert(
			description.properties.some((property) => property.name === 'message' && String(property.default).includes('$tool')),
			"its message is not n8n's tool-call message",
		);
		return `${HITL_TYPE} versions ${versions.join(', ')}, output ai_tool, operation sendAndWait`;
	});

	await check(
		'Send and Wait for Response (Approval): the signed links reach the chat once; a preview waits; approving resumes',
		async () => {
			const phone = '+4915166' + String(Date.now()).slice(-6);
			const message = `Refund order A-18? ${randomBytes(3).toString('hex')}`;
			const { workflowId, execution, nodeId } = await startWaiting('e2e-approval', {
				sendTo: 'phone',
				phone,
				message,
				approvalOptions: { values: { approvalType: 'double', approveLabel: 'Refund', disapproveLabel: 'Keep' } },
			});
			try {
				const texts = await waitFor('the message in the sandbox', async () =>
					(await sentTexts(phone, message)).length ? sentTexts(phone, message) : undefined,
				);
				assert(texts.length === 1, `the message was stored ${texts.length} times`);
				const approve = linkOf(texts[0], 'Refund', execution.id, nodeId);
				const decline = linkOf(texts[0], 'Keep', execution.id, nodeId);
				assert(approve !== decline, 'approve and decline share a link');

				const preview = await fetch(approve, { headers: { 'user-agent': 'WhatsApp/2.23.20.0 A' } });
				assert(preview.status === 200 && (await preview.text()).includes('<form method="post">'), `the preview got ${preview.status}`);
				await sleep(1000);
				const still = (await executions(workflowId)).find((candidate) => candidate.id === execution.id);
				assert(still?.status === 'waiting', `after a link preview the execution is ${still?.status}`);

				const opened = await fetch(approve, { headers: { 'user-agent': BROWSER } });
				const page = await opened.text();
				assert(
					opened.status === 200 && page.includes('Got it, thanks'),
					`opening the link answered ${opened.status}: ${page.slice(0, 200)}`,
				);
				const done = await finished(workflowId, execution.id);
				assert(done.status === 'success', `the execution ended ${done.status}`);
				const [item] = itemsOf(done);
				const data = item?.data as Json | undefined;
				assert(data?.approved === true && typeof data.respondedAt === 'string', `the output is ${JSON.stringify(item)}`);

				const again = await fetch(decline, { headers: { 'user-agent': BROWSER } });
				await again.text();
				const after = (await executions(workflowId)).filter((candidate) => candidate.id === execution.id);
				assert(after.length === 1 && after[0].status === 'success', 'a second click changed the execution');
				assert((await sentTexts(phone, message)).length === 1, 'the message was sent again');
				return `execution ${execution.id} resumed with ${JSON.stringify(data)}; a second click answered ${again.status}`;
			} finally {
				await n8n().publicApi('POST', `/workflows/${workflowId}/deactivate`);
			}
		},
	);

	await check('Send and Wait for Response (Free Text): the link opens a form; posting the answer resumes with its text', async () => {
		const phone = '+4915167' + String(Date.now()).slice(-6);
		const message = `Which day suits you for the delivery? ${randomBytes(3).toString('hex')}`;
		const { workflowId, execution, nodeId } = await startWaiting('e2e-free-text', {
			sendTo: 'phone',
			phone,
			message,
			responseType: 'freeText',
			options: { responseFormTitle: 'Delivery day', responseFormButtonLabel: 'Send answer' },
		});
		try {
			const texts = await waitFor('the message in the sandbox', async () =>
				(await sentTexts(phone, message)).length ? sentTexts(phone, message) : undefined,
			);
			const link = linkOf(texts[0], 'Respond', execution.id, nodeId);
			const form = await fetch(link, { headers: { 'user-agent': BROWSER } });
			const html = await form.text();
			assert(
				form.status === 200 && html.includes('<h1>Delivery day</h1>') && html.includes('name="response"'),
				`the form: ${html.slice(0, 300)}`,
			);
			assert(html.includes('Send answer') && html.includes(message), 'the form lacks its button label or the message');
			const still = (await executions(workflowId)).find((candidate) => candidate.id === execution.id);
			assert(still?.status === 'waiting', `after opening the form the execution is ${still?.status}`);

			const answer = `Friday after 5 pm ${randomBytes(3).toString('hex')}`;
			const posted = await fetch(link, {
				method: 'POST',
				headers: { 'user-agent': BROWSER, 'content-type': 'application/x-www-form-urlencoded' },
				body: new URLSearchParams({ response: answer }).toString(),
			});
			const page = await posted.text();
			assert(posted.status === 200 && page.includes('Got it, thanks'), `posting answered ${posted.status}: ${page.slice(0, 200)}`);
			const done = await finished(workflowId, execution.id);
			assert(done.status === 'success', `the execution ended ${done.status}`);
			const [item] = itemsOf(done);
			assert((item?.data as Json | undefined)?.text === answer, `the output is ${JSON.stringify(item)}`);
			return `execution ${execution.id} resumed with the text "${answer}"`;
		} finally {
			await n8n().publicApi('POST', `/workflows/${workflowId}/deactivate`);
		}
	});
}
