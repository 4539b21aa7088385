/**
 * Real-n8n cases of Send and Wait for Response, n8n's standard `sendAndWait` (human in the loop), run
 * from run.ts (or alone from send-and-wait-only.ts) once n8n is started with the package installed, the
 * owner set up and the credential imported:
 * - n8n offers the action node as a human-in-the-loop tool: its generated `chatMessagingHitlTool`
 *   type is listed beside the node, an AI tool whose operation is `sendAndWait`;
 * - Approval behind a Webhook trigger, one waiting execution per visitor: the message reaches the sandbox
 *   once, with n8n's signed links; a GET of the approve link by curl, python-requests, a headless Chromium
 *   or a chat app's link unfurler, and a POST without the page, each leave the execution waiting;
 * - a click on the page's button in Chromium approves, once: a second click changes nothing;
 * - two waits of one node in a loop (Loop Over Items): a late click on the first message's page, or its
 *   link opened again, does not answer the second wait; the second message's button does;
 * - Free Text: the link serves a form (a GET answers nothing); submitting it in Chromium resumes with the text.
 * The workflows are created through n8n's public API.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { assert } from './checks';
import type { N8nInstance } from './n8n-instance';
import { hiddenFields } from './send-and-wait-page';
import { CREDENTIAL_ID, CREDENTIAL_TYPE, PACKAGE_NAME, type WorkflowNode } from './workflows';
import { launchChromium } from '../../support/chromium';
import { sleep, waitFor } from '../../support/harness';

export interface SendAndWaitCasesContext {
	check: (name: string, body: () => Promise<string | undefined>) => Promise<void>;
	n8n: () => N8nInstance;
	sandbox: <T = unknown>(method: string, path: string, body?: unknown) => Promise<T>;
	/** The action node's version new nodes get (Send and Wait for Response is an operation of version 2.x). */
	typeVersion: number;
	/**
	 * Queue mode: the links point at n8n's WEBHOOK_URL (`linkOrigin`) and are opened at the webhook processes
	 * (`servedBy`, in turn, so one wait's page and the next are served by different processes).
	 */
	webhookProcesses?: { linkOrigin: string; servedBy: string[] };
	/** The cases to run; all by default. */
	cases?: Array<'hitl' | 'approval' | 'loop' | 'freeText'>;
}

type Json = Record<string, unknown>;
interface Execution {
	id: string;
	status: string;
	data?: { resultData: { runData: Record<string, Array<{ data?: { main?: Array<Array<{ json: Json }> | null> } }>> } };
}
type Connections = Record<string, { main: Array<Array<{ node: string; type: 'main'; index: number }>> }>;

const credentials = { [CREDENTIAL_TYPE]: { id: CREDENTIAL_ID, name: 'Chat Messaging sandbox' } };
const NODE_NAME = 'Ask for approval';
const HITL_TYPE = `${PACKAGE_NAME}.chatMessagingHitlTool`;

/** What the chat apps' link unfurlers and previewers send (each one approved before a GET stopped answering). */
const UNFURLERS: Array<[string, string]> = [
	['Slack unfurler', 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)'],
	['Facebook/Messenger crawler', 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)'],
	['Iframely', 'Iframely/1.3.1 (+https://iframely.com/docs/about)'],
	['WhatsApp preview', 'WhatsApp/2.23.20.0 A'],
];

interface Visit {
	status: number;
	html: string;
}

/** What a page is, in a word, for the report. */
const pageKind = (html: string): string =>
	html.includes('Got it, thanks')
		? 'answered ("Got it, thanks")'
		: html.includes('no longer valid')
			? '"no longer valid" page'
			: html.includes('<form method="post">')
				? 'page with its button'
				: html.includes('Not answered')
					? '"not answered" page'
					: html.includes('No action required')
						? `n8n's "No action required" page`
						: `other page (${html.replace(/\s+/g, ' ').slice(0, 80)})`;

/** The real curl binary (its own user agent and headers). */
function curl(link: string, ...extra: string[]): Visit {
	const out = execFileSync('curl', ['-sS', '-w', '\n%{http_code}', ...extra, link], { encoding: 'utf8' });
	const cut = out.lastIndexOf('\n');
	return { status: Number(out.slice(cut + 1)), html: out.slice(0, cut) };
}

async function get(link: string, headers: Record<string, string>): Promise<Visit> {
	const response = await fetch(link, { headers });
	return { status: response.status, html: await response.text() };
}

/** Opens a link in a new tab of the browser; the tab stays open for its button. */
async function openTab(browser: Browser, link: string): Promise<{ tab: Page; visit: Visit }> {
	const tab = await browser.newPage();
	const response = await tab.goto(link);
	return { tab, visit: { status: response?.status() ?? 0, html: await tab.content() } };
}

/** Clicks the page's button as a person does and returns the page it leads to, with the Origin its POST carried. */
async function clickButton(tab: Page): Promise<Visit & { origin: string }> {
	const posted = tab.waitForRequest((request) => request.method() === 'POST');
	const [response] = await Promise.all([tab.waitForNavigation(), tab.click('button[type="submit"]')]);
	const origin = (await posted).headers().origin ?? '(none)';
	return { status: response?.status() ?? 0, html: await tab.content(), origin };
}

/** What the cases share: the context, the n8n and sandbox reads and workflows they make, the browser they open. */
class SendAndWaitRun {
	private browser: Browser | undefined;

	constructor(readonly ctx: SendAndWaitCasesContext) {}

	n8n(): N8nInstance {
		return this.ctx.n8n();
	}

	async chromium(): Promise<Browser> {
		return (this.browser ??= await launchChromium());
	}

	async close(): Promise<void> {
		await this.browser?.close();
	}

	private webhookBase(): string {
		return this.ctx.webhookProcesses?.servedBy[0] ?? this.n8n().baseUrl;
	}

	async executions(workflowId: string): Promise<Execution[]> {
		const listed = await this.n8n().publicApi('GET', `/executions?workflowId=${workflowId}&includeData=true&limit=50`);
		assert(listed.status === 200, `executions answered ${listed.status}`);
		return (listed.body as { data: Execution[] }).data;
	}

	async execution(workflowId: string, id: string): Promise<Execution | undefined> {
		return (await this.executions(workflowId)).find((candidate) => candidate.id === id);
	}

	async finished(workflowId: string, id: string): Promise<Execution> {
		return await waitFor(
			'the resumed execution',
			async () => {
				const found = await this.execution(workflowId, id);
				return found && !['waiting', 'running', 'new'].includes(found.status) ? found : undefined;
			},
			{ timeoutMs: 30_000, intervalMs: 250 },
		);
	}

	/** The execution's status once what a visit could have started has had time to start. */
	async statusAfterVisit(workflowId: string, id: string): Promise<string> {
		await sleep(1500);
		return (await this.execution(workflowId, id))?.status ?? 'missing';
	}

	/** Creates and activates a workflow that starts at a Webhook trigger on `path`; returns its id. */
	async activate(path: string, nodes: WorkflowNode[], connections: Connections): Promise<string> {
		const created = await this.n8n().publicApi('POST', '/workflows', {
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
				...nodes,
			],
			connections,
			settings: { executionOrder: 'v1' },
		});
		assert(created.status === 200, `creating the workflow answered ${created.status}: ${JSON.stringify(created.body).slice(0, 400)}`);
		const workflowId = String((created.body as { id: string }).id);
		const activated = await this.n8n().publicApi('POST', `/workflows/${workflowId}/activate`);
		assert(activated.status === 200, `activate answered ${activated.status}: ${JSON.stringify(activated.body).slice(0, 400)}`);
		return workflowId;
	}

	async deactivate(workflowId: string): Promise<void> {
		await this.n8n().publicApi('POST', `/workflows/${workflowId}/deactivate`);
	}

	/** Calls the workflow's trigger with `body` and returns the execution it started, once it waits. */
	async startWaiting(workflowId: string, path: string, body: Json): Promise<Execution> {
		const before = new Set((await this.executions(workflowId)).map((run) => run.id));
		await waitFor(
			'the webhook trigger',
			async () => {
				const response = await fetch(`${this.webhookBase()}/webhook/${path}`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify(body),
				});
				await response.text();
				return response.status === 200 ? true : undefined;
			},
			{ timeoutMs: 15_000 },
		);
		return await waitFor(
			'the waiting execution',
			async () => (await this.executions(workflowId)).find((run) => !before.has(run.id) && run.status === 'waiting'),
			{ timeoutMs: 20_000, intervalMs: 200 },
		);
	}

	/** The Send and Wait for Response node of these workflows. */
	askNode(path: string, parameters: Json): WorkflowNode {
		return {
			id: `send-and-wait-${path}`,
			name: NODE_NAME,
			type: `${PACKAGE_NAME}.chatMessaging`,
			typeVersion: this.ctx.typeVersion,
			position: [480, 0],
			parameters: { resource: 'message', operation: 'sendAndWait', ...parameters },
			credentials,
		};
	}

	/** The texts the sandbox holds for a phone number's chat that start with `prefix`. */
	async sentTexts(phone: string, prefix: string): Promise<string[]> {
		const { sandbox } = this.ctx;
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

	async sentOnce(phone: string, prefix: string): Promise<string> {
		const texts = await waitFor(
			'the message in the sandbox',
			async () => ((await this.sentTexts(phone, prefix)).length ? this.sentTexts(phone, prefix) : undefined),
			{ timeoutMs: 20_000 },
		);
		assert(texts.length === 1, `the message was stored ${texts.length} times`);
		return texts[0];
	}

	/**
	 * The link after `label: ` in a sent text; it must lead to this n8n's waiting webhook of the node for this execution.
	 * In queue mode it is opened at webhook process number `process` (n8n signs the path and query, not the origin).
	 */
	linkOf(text: string, label: string, executionId: string, nodeId: string, process = 0): string {
		const { webhookProcesses } = this.ctx;
		const line = text.split('\n').find((candidate) => candidate.startsWith(`${label}: `));
		assert(line, `no "${label}: " line in ${JSON.stringify(text)}`);
		const url = new URL(line.slice(label.length + 2));
		assert(
			url.origin === new URL(webhookProcesses?.linkOrigin ?? this.n8n().baseUrl).origin &&
				url.pathname === `/webhook-waiting/${executionId}/${nodeId}`,
			`the ${label} link is ${url.href}, not this n8n's waiting webhook of execution ${executionId}`,
		);
		if (!webhookProcesses) return url.href;
		const { servedBy } = webhookProcesses;
		return `${servedBy[process % servedBy.length]}${url.pathname}${url.search}`;
	}
}

const runsOf = (run: Execution | undefined): Json[][] =>
	(run?.data?.resultData.runData[NODE_NAME] ?? []).map((entry) => (entry.data?.main?.[0] ?? []).map((item) => item.json));

const chain = (...names: string[]): Connections =>
	Object.fromEntries(names.slice(0, -1).map((name, index) => [name, { main: [[{ node: names[index + 1], type: 'main', index: 0 }]] }]));

async function offeredAsTool(s: SendAndWaitRun): Promise<string> {
	const response = await fetch(`${s.n8n().baseUrl}/types/nodes.json`, { headers: { cookie: s.n8n().sessionCookie } });
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
	assert(versions.includes(s.ctx.typeVersion) && !versions.includes(1), `the tool serves versions ${versions.join(', ')}`);
	const [description] = hitl;
	assert(JSON.stringify(description.outputs).includes('ai_tool'), `its outputs are ${JSON.stringify(description.outputs)}`);
	const operation = description.properties.find((property) => property.name === 'operation');
	assert(operation?.type === 'hidden' && operation.default === 'sendAndWait', `its operation is ${JSON.stringify(operation)}`);
	assert(
		description.properties.some((property) => property.name === 'message' && String(property.default).includes('$tool')),
		"its message is not n8n's tool-call message",
	);
	return `${HITL_TYPE} versions ${versions.join(', ')}, output ai_tool, operation sendAndWait`;
}

/** Approval: one workflow, one waiting execution per visitor, so each visitor's effect is seen on its own. */
class Approval {
	readonly path = 'e2e-approval';
	readonly phone = '+4915166' + String(Date.now()).slice(-6);
	readonly tag = randomBytes(3).toString('hex');
	// Created by the first check, so that a run whose setup failed reports these checks instead of stopping.
	id = '';
	/** The execution the headless browser's visit left waiting, its tab kept open for the button. */
	browserWait: { run: Execution; approve: string; tab: Page } | undefined;

	constructor(readonly s: SendAndWaitRun) {}

	async create(): Promise<void> {
		const { s, path, phone, tag } = this;
		this.id = await s.activate(
			path,
			[
				s.askNode(path, {
					sendTo: 'phone',
					phone,
					message: `=Refund order {{ $json.body.order }}? ${tag}`,
					approvalOptions: { values: { approvalType: 'double', approveLabel: 'Refund', disapproveLabel: 'Keep' } },
				}),
			],
			chain('Start', NODE_NAME),
		);
	}

	/** A new waiting execution of the approval workflow, with the links of the one message it sent. */
	async wait(order: string): Promise<{ run: Execution; approve: string; decline: string }> {
		const { s } = this;
		const run = await s.startWaiting(this.id, this.path, { order });
		const text = await s.sentOnce(this.phone, `Refund order ${order}? ${this.tag}`);
		const nodeId = s.askNode(this.path, {}).id;
		return { run, approve: s.linkOf(text, 'Refund', run.id, nodeId), decline: s.linkOf(text, 'Keep', run.id, nodeId) };
	}
}

async function visitsNeverAnswer(a: Approval): Promise<string> {
	const { s } = a;
	await a.create();
	const visitors: Array<[string, (link: string) => Promise<Visit>]> = [
		['curl (the binary)', async (link) => curl(link)],
		[
			'python-requests',
			(link) =>
				get(link, {
					'user-agent': 'python-requests/2.31.0',
					accept: '*/*',
					'accept-encoding': 'gzip, deflate',
					connection: 'keep-alive',
				}),
		],
		...UNFURLERS.map(([name, agent]): [string, (link: string) => Promise<Visit>] => [name, (link) => get(link, { 'user-agent': agent })]),
		['curl -X POST (no page)', async (link) => curl(link, '-X', 'POST', '-H', 'content-type: application/x-www-form-urlencoded', '-d', '')],
	];
	const report: string[] = [];
	const resumed: string[] = [];
	for (const [index, [name, visit]] of visitors.entries()) {
		const { run, approve } = await a.wait(`V${index}`);
		const got = await visit(approve);
		const status = await s.statusAfterVisit(a.id, run.id);
		report.push(`${name}: HTTP ${got.status}, ${pageKind(got.html)}, execution ${status}`);
		if (status !== 'waiting' || got.html.includes('Got it')) resumed.push(name);
	}
	// A headless browser opening the link, as a link scanner does; its tab is kept for the button below.
	const { run, approve } = await a.wait('CHROMIUM');
	const { tab, visit } = await openTab(await s.chromium(), approve);
	const status = await s.statusAfterVisit(a.id, run.id);
	report.push(
		`headless Chromium (${await tab.evaluate(() => navigator.userAgent.split(' ').find((part) => part.includes('Chrome')))}): HTTP ${visit.status}, ${pageKind(visit.html)}, execution ${status}`,
	);
	if (status !== 'waiting' || visit.html.includes('Got it')) resumed.push('headless Chromium');
	else a.browserWait = { run, approve, tab };
	assert(resumed.length === 0, `answered the wait: ${resumed.join(', ')}\n${report.join('\n')}`);
	for (const line of report.filter((entry) => !entry.includes('curl -X POST')))
		assert(line.includes('HTTP 200, page with its button'), `not the page with its button: ${line}`);
	assert(report.at(-2)?.includes('"not answered" page'), `a POST without the page: ${report.at(-2)}`);
	return report.join('; ');
}

async function buttonApprovesOnce(a: Approval): Promise<string> {
	const { s } = a;
	assert(a.browserWait, 'no execution waits with its page open in Chromium (the check above failed)');
	const { run, approve, tab } = a.browserWait;
	// A second tab on the same link, as a person who opened it twice; its button is the second click.
	const { tab: second } = await openTab(await s.chromium(), approve);
	const clicked = await clickButton(tab);
	assert(clicked.status === 200 && clicked.html.includes('Got it, thanks'), `the click got ${clicked.status}: ${pageKind(clicked.html)}`);
	const done = await s.finished(a.id, run.id);
	assert(done.status === 'success', `the execution ended ${done.status}`);
	const [[item]] = runsOf(done);
	const data = item?.data as Json | undefined;
	assert(data?.approved === true && typeof data.respondedAt === 'string', `the output is ${JSON.stringify(item)}`);

	const again = await clickButton(second);
	const replayed = await fetch(approve, {
		method: 'POST',
		headers: { 'content-type': 'application/x-www-form-urlencoded' },
		body: new URLSearchParams(hiddenFields(await (await fetch(approve)).text())).toString(),
	});
	await replayed.text();
	const after = await s.execution(a.id, run.id);
	assert(after?.status === 'success', `after a second click the execution is ${after?.status}`);
	assert(
		JSON.stringify(runsOf(after)) === JSON.stringify(runsOf(done)),
		`a second click changed the output: ${JSON.stringify(runsOf(after))}`,
	);
	await tab.close();
	await second.close();
	return `the click (Origin ${clicked.origin}) resumed execution ${run.id} with ${JSON.stringify(data)}; a second click got HTTP ${again.status}, ${pageKind(again.html)}; a replayed POST ${replayed.status}; the output unchanged`;
}

/** A workflow whose Send and Wait node runs once per order, in a Loop Over Items. */
async function loopWorkflow(s: SendAndWaitRun, path: string, ask: WorkflowNode): Promise<string> {
	return await s.activate(
		path,
		[
			{
				id: `orders-${path}`,
				name: 'Orders',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [160, 0],
				parameters: { fieldToSplitOut: 'body.orders', options: {} },
			},
			{
				id: `loop-${path}`,
				name: 'Loop',
				type: 'n8n-nodes-base.splitInBatches',
				typeVersion: 3,
				position: [320, 0],
				parameters: { options: {} },
			},
			ask,
		],
		{
			Start: { main: [[{ node: 'Orders', type: 'main', index: 0 }]] },
			Orders: { main: [[{ node: 'Loop', type: 'main', index: 0 }]] },
			// Loop Over Items: output 0 when done, output 1 for each batch.
			Loop: { main: [[], [{ node: NODE_NAME, type: 'main', index: 0 }]] },
			[NODE_NAME]: { main: [[{ node: 'Loop', type: 'main', index: 0 }]] },
		},
	);
}

async function loopWaitsApart(s: SendAndWaitRun): Promise<string> {
	const path = 'e2e-loop';
	const phone = '+4915168' + String(Date.now()).slice(-6);
	const loopTag = randomBytes(3).toString('hex');
	const ask = s.askNode(path, { sendTo: 'phone', phone, message: `=Ship order {{ $json.order }}? ${loopTag}` });
	const workflowId = await loopWorkflow(s, path, ask);
	try {
		const run = await s.startWaiting(workflowId, path, { orders: [{ order: 'L-1' }, { order: 'L-2' }] });
		const firstText = await s.sentOnce(phone, `Ship order L-1? ${loopTag}`);
		const first = s.linkOf(firstText, 'Approve', run.id, ask.id);
		// The first message's link opened twice: one tab answers the first wait, the other is the late click.
		const { tab } = await openTab(await s.chromium(), first);
		const { tab: late } = await openTab(await s.chromium(), s.linkOf(firstText, 'Approve', run.id, ask.id, 1));
		const clicked = await clickButton(tab);
		assert(clicked.html.includes('Got it, thanks'), `the first click got ${clicked.status}: ${pageKind(clicked.html)}`);
		const secondText = await s.sentOnce(phone, `Ship order L-2? ${loopTag}`);
		const second = s.linkOf(secondText, 'Approve', run.id, ask.id, 1);
		assert(second !== first, 'both waits sent the same link');
		await waitFor('the second wait', async () => (await s.execution(workflowId, run.id))?.status === 'waiting', {
			timeoutMs: 20_000,
			intervalMs: 200,
		});

		const lateClick = await clickButton(late);
		const afterLateClick = await s.statusAfterVisit(workflowId, run.id);
		const reopened = curl(s.linkOf(firstText, 'Approve', run.id, ask.id, 1));
		const afterReopen = await s.statusAfterVisit(workflowId, run.id);
		const report =
			`late click on the first page: HTTP ${lateClick.status}, ${pageKind(lateClick.html)}, execution ${afterLateClick}; ` +
			`first link opened again (curl): HTTP ${reopened.status}, ${pageKind(reopened.html)}, execution ${afterReopen}`;
		assert(afterLateClick === 'waiting' && afterReopen === 'waiting', `the first message answered the second wait: ${report}`);
		assert(lateClick.status === 410 && lateClick.html.includes('no longer valid'), `the late click's page: ${report}`);
		assert(reopened.status === 410 && reopened.html.includes('no longer valid'), `the reopened link's page: ${report}`);
		const answers = (runs: Json[][]) => runs.filter(([item]) => item?.data !== undefined);
		const waitingRuns = runsOf(await s.execution(workflowId, run.id));
		assert(answers(waitingRuns).length === 1, `the node's runs while the second wait waits: ${JSON.stringify(waitingRuns)}`);

		const { tab: secondTab } = await openTab(await s.chromium(), second);
		const answered = await clickButton(secondTab);
		assert(answered.html.includes('Got it, thanks'), `the second message's click got ${answered.status}: ${pageKind(answered.html)}`);
		const done = await s.finished(workflowId, run.id);
		assert(done.status === 'success', `the execution ended ${done.status}`);
		const runs = runsOf(done);
		assert(
			answers(runs).length === 2 && answers(runs).every(([item]) => (item?.data as Json | undefined)?.approved === true),
			`the node's runs: ${JSON.stringify(runs)}`,
		);
		for (const open of [tab, late, secondTab]) await open.close();
		return `${report}; the second message's button then answered: 2 runs, each approved`;
	} finally {
		await s.deactivate(workflowId);
	}
}

async function freeTextForm(s: SendAndWaitRun): Promise<string> {
	const path = 'e2e-free-text';
	const phone = '+4915167' + String(Date.now()).slice(-6);
	const message = `Which day suits you for the delivery? ${randomBytes(3).toString('hex')}`;
	const ask = s.askNode(path, {
		sendTo: 'phone',
		phone,
		message,
		responseType: 'freeText',
		options: { responseFormTitle: 'Delivery day', responseFormButtonLabel: 'Send answer' },
	});
	const workflowId = await s.activate(path, [ask], chain('Start', NODE_NAME));
	try {
		const run = await s.startWaiting(workflowId, path, {});
		const link = s.linkOf(await s.sentOnce(phone, message), 'Respond', run.id, ask.id);
		const form = curl(link);
		assert(
			form.status === 200 && form.html.includes('<h1>Delivery day</h1>') && form.html.includes('name="response"'),
			`the form: ${form.html.slice(0, 300)}`,
		);
		assert(form.html.includes('Send answer') && form.html.includes(message), 'the form lacks its button label or the message');
		assert((await s.statusAfterVisit(workflowId, run.id)) === 'waiting', 'opening the form answered');

		const answer = `Friday after 5 pm ${randomBytes(3).toString('hex')}`;
		const { tab } = await openTab(await s.chromium(), link);
		await tab.fill('#response', answer);
		const submitted = await clickButton(tab);
		assert(submitted.html.includes('Got it, thanks'), `submitting got ${submitted.status}: ${pageKind(submitted.html)}`);
		const done = await s.finished(workflowId, run.id);
		assert(done.status === 'success', `the execution ended ${done.status}`);
		const [[item]] = runsOf(done);
		assert((item?.data as Json | undefined)?.text === answer, `the output is ${JSON.stringify(item)}`);
		await tab.close();
		return `execution ${run.id} resumed with the text "${answer}"`;
	} finally {
		await s.deactivate(workflowId);
	}
}

export async function runSendAndWaitCases(ctx: SendAndWaitCasesContext): Promise<void> {
	const { check } = ctx;
	const want = (name: 'hitl' | 'approval' | 'loop' | 'freeText') => !ctx.cases || ctx.cases.includes(name);
	const s = new SendAndWaitRun(ctx);
	try {
		if (want('hitl'))
			await check("Send and Wait for Response: n8n offers the node as a human-in-the-loop tool (n8n's own rule)", () => offeredAsTool(s));
		if (want('approval')) {
			const approval = new Approval(s);
			await check(
				'Send and Wait for Response (Approval): a GET of the link never answers — curl, python-requests, headless Chromium, chat unfurlers each get the page and the execution waits on',
				() => visitsNeverAnswer(approval),
			);
			await check(
				'Send and Wait for Response (Approval): the button of the page in Chromium approves, once; a second click changes nothing',
				() => buttonApprovesOnce(approval),
			);
			if (approval.id) await s.deactivate(approval.id);
		}
		if (want('loop'))
			await check(
				"Send and Wait for Response in a loop (Loop Over Items, two waits of one node): the first message's page and link do not answer the second wait",
				() => loopWaitsApart(s),
			);
		if (want('freeText'))
			await check(
				'Send and Wait for Response (Free Text): the link opens a form (a GET answers nothing); submitting it in Chromium resumes with its text',
				() => freeTextForm(s),
			);
	} finally {
		await s.close();
	}
}
