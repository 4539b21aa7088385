/**
 * Real-n8n cases of the polling trigger and of Send and Wait for Reply, run
 * from run.ts once n8n is started with the package installed and the credential imported:
 * - the Poll Trigger, published in n8n and polling every minute, starts one execution per poll
 *   holding each new inbound message once: the first activation replays nothing, later polls repeat
 *   nothing, and a message that arrives while n8n is stopped comes once after the restart;
 * - Send and Wait for Reply behind a Webhook trigger: without a reply n8n resumes the execution at
 *   the time-out with the input items; otherwise the execution waits, a message of another chat
 *   leaves it waiting, the reply resumes it (its output holds the reply), the temporary subscription
 *   is gone, and so is the one the timed-out wait left.
 * The workflows are created through n8n's public API.
 */
import { randomBytes } from 'node:crypto';
import { requireBuilt } from '../../support/packages';
import type { N8nInstance } from './n8n-instance';
import { CREDENTIAL_ID, CREDENTIAL_TYPE, PACKAGE_NAME } from './workflows';
import { sleep, waitFor } from '../../support/harness';

export interface TriggerCasesContext {
	check: (name: string, body: () => Promise<string | undefined>) => Promise<void>;
	n8n: () => N8nInstance;
	sandbox: <T = unknown>(method: string, path: string, body?: unknown) => Promise<T>;
	/** A direct chat of the sandbox, and another one. */
	chats: Array<{ id: number; phone: string | null }>;
}

/** The newest version of the built action node (Send and Wait for Reply is a version 2 operation). */
function newestActionVersion(): number {
	const exported = requireBuilt<
		Record<string, new () => { nodeVersions?: Record<string, unknown>; description: { version?: number | number[] } }>
	>('n8n', 'dist/nodes/ChatMessaging/ChatMessaging.node.js');
	const node = new (Object.values(exported)[0])();
	if (node.nodeVersions) return Math.max(...Object.keys(node.nodeVersions).map(Number));
	const version = node.description.version ?? 1;
	return Array.isArray(version) ? Math.max(...version) : version;
}

function assert(condition: unknown, message: string): asserts condition {
	if (!condition) throw new Error(message);
}

const credentials = { [CREDENTIAL_TYPE]: { id: CREDENTIAL_ID, name: 'Chat Messaging sandbox' } };

type Json = Record<string, unknown>;
interface Execution {
	id: string;
	status: string;
	finished: boolean;
	data?: { resultData: { runData: Record<string, Array<{ data?: { main?: Array<Array<{ json: Json }> | null> } }>> } };
}

interface Webhook {
	id: number;
	event_type: string;
	url: string;
}

export const POLL_TRIGGER_NAME = 'Chat Messaging Poll Trigger';
const REPLY_NODE_NAME = 'Ask and wait for the reply';

/** What the cases share: the context, the n8n and sandbox reads they make, and what one case leaves for the next. */
class TriggerRun {
	readonly actionTypeVersion = newestActionVersion();
	pollWorkflowId = '';
	/** The inbound messages sent for the Poll Trigger, in order. */
	readonly sentUids: string[] = [];
	/** The subscription the timed-out wait left behind. */
	expiredHooks: Webhook[] = [];

	constructor(readonly ctx: TriggerCasesContext) {}

	get chat() {
		return this.ctx.chats[0];
	}

	get otherChat() {
		return this.ctx.chats[1];
	}

	n8n(): N8nInstance {
		return this.ctx.n8n();
	}

	async createWorkflow(name: string, nodes: Json[], connections: Json = {}): Promise<string> {
		const created = await this.n8n().publicApi('POST', '/workflows', { name, nodes, connections, settings: { executionOrder: 'v1' } });
		assert(created.status === 200, `creating "${name}" answered ${created.status}: ${JSON.stringify(created.body).slice(0, 400)}`);
		return String((created.body as { id: string }).id);
	}

	async activate(workflowId: string): Promise<void> {
		const activated = await this.n8n().publicApi('POST', `/workflows/${workflowId}/activate`);
		assert(activated.status === 200, `activate answered ${activated.status}: ${JSON.stringify(activated.body).slice(0, 400)}`);
	}

	async executions(workflowId: string): Promise<Execution[]> {
		const listed = await this.n8n().publicApi('GET', `/executions?workflowId=${workflowId}&includeData=true&limit=50`);
		assert(listed.status === 200, `executions answered ${listed.status}`);
		return (listed.body as { data: Execution[] }).data;
	}

	/** The execution once it no longer waits or runs. */
	async finished(workflowId: string, id: string, options: { timeoutMs: number; intervalMs?: number }): Promise<Execution> {
		return await waitFor(
			'the resumed execution',
			async () => {
				const found = (await this.executions(workflowId)).find((execution) => execution.id === id);
				return found && found.status !== 'waiting' && found.status !== 'running' && found.status !== 'new' ? found : undefined;
			},
			options,
		);
	}

	async webhooks(): Promise<Webhook[]> {
		const data = await this.ctx.sandbox<Webhook[] | { webhooks: Webhook[] }>('GET', '/webhooks');
		return Array.isArray(data) ? data : data.webhooks;
	}

	/** Message uids each poll execution carried, oldest execution first. */
	async polledUids(): Promise<string[][]> {
		return (await this.executions(this.pollWorkflowId))
			.filter((execution) => execution.status === 'success')
			.reverse()
			.map((execution) => itemsOf(execution, POLL_TRIGGER_NAME).map((item) => String(item.message_uid)));
	}

	/** An inbound message in the first chat; its uid. */
	async incoming(text: string): Promise<string> {
		return (await this.ctx.sandbox<{ message: { uid: string } }>('POST', '/_sandbox/incoming', { chat_id: this.chat.id, text })).message
			.uid;
	}

	/** A workflow from a Webhook trigger on `path` to Send and Wait for Reply into the first chat. */
	async replyWorkflow(path: string, parameters: Json): Promise<string> {
		const { actionTypeVersion, chat } = this;
		return await this.createWorkflow(
			`E2E send and wait (${path})`,
			[
				{
					id: `webhook-${path}`,
					name: 'Start',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					position: [0, 0],
					parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
					webhookId: `7a1d2c3e-${randomBytes(2).toString('hex')}-4b5c-8d9e-${randomBytes(6).toString('hex')}`,
				},
				{
					id: `reply-${path}`,
					name: REPLY_NODE_NAME,
					type: `${PACKAGE_NAME}.chatMessaging`,
					typeVersion: actionTypeVersion,
					position: [240, 0],
					parameters: {
						resource: 'message',
						operation: 'sendAndWaitForReply',
						replyWaitSendTo: 'chat',
						// Version 2 picks the chat with a resource locator (saved as n8n stores it).
						replyWaitChatId: actionTypeVersion >= 2 ? { __rl: true, mode: 'id', value: String(chat.id) } : String(chat.id),
						...parameters,
					},
					credentials,
				},
			],
			{ Start: { main: [[{ node: REPLY_NODE_NAME, type: 'main', index: 0 }]] } },
		);
	}

	/** Activates the workflow, calls its Webhook trigger, and returns the execution once it waits. */
	async start(workflowId: string, path: string): Promise<Execution> {
		await this.activate(workflowId);
		const called = await waitFor(
			'the webhook trigger',
			async () => {
				const response = await fetch(`${this.n8n().baseUrl}/webhook/${path}`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ order: 'A-17' }),
				});
				await response.text();
				return response.status === 200 ? true : undefined;
			},
			{ timeoutMs: 15_000 },
		);
		assert(called, 'the webhook did not answer');
		return await waitFor(
			'the waiting execution',
			async () => (await this.executions(workflowId)).find((execution) => execution.status === 'waiting'),
			{ timeoutMs: 20_000 },
		);
	}
}

const itemsOf = (execution: Execution, nodeName: string): Json[] =>
	(execution.data?.resultData.runData[nodeName]?.at(-1)?.data?.main?.[0] ?? []).map((item) => item.json);

async function firstPollReplaysNothing(t: TriggerRun): Promise<string> {
	assert(t.chat, 'no direct chat');
	await t.incoming(`before activation ${randomBytes(3).toString('hex')}`);
	const hooksBefore = new Set((await t.webhooks()).map((hook) => hook.id));
	t.pollWorkflowId = await t.createWorkflow('E2E poll trigger', [
		{
			id: 'poll-trigger',
			name: POLL_TRIGGER_NAME,
			type: `${PACKAGE_NAME}.chatMessagingPollTrigger`,
			typeVersion: 1,
			position: [0, 0],
			parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, event: 'messageReceived', options: {} },
			credentials,
		},
	]);
	await t.activate(t.pollWorkflowId);
	await sleep(2000);
	assert((await t.executions(t.pollWorkflowId)).length === 0, 'the first poll started an execution (history replayed)');
	const added = (await t.webhooks()).filter((hook) => !hooksBefore.has(hook.id));
	assert(added.length === 0, `the poll trigger created webhook subscriptions: ${JSON.stringify(added)}`);
	return 'no execution, no subscription';
}

async function eachMessageOnce(t: TriggerRun): Promise<string> {
	const { sentUids } = t;
	sentUids.push(await t.incoming(`poll A ${randomBytes(3).toString('hex')}`), await t.incoming(`poll B ${randomBytes(3).toString('hex')}`));
	const first = await waitFor('the first poll execution', async () => ((await t.polledUids()).length >= 1 ? t.polledUids() : undefined), {
		timeoutMs: 75_000,
	});
	assert(
		JSON.stringify(first.flat().sort()) === JSON.stringify([...sentUids].sort()),
		`polled ${JSON.stringify(first)}, sent ${JSON.stringify(sentUids)}`,
	);
	sentUids.push(await t.incoming(`poll C ${randomBytes(3).toString('hex')}`));
	const second = await waitFor('the next poll execution', async () => ((await t.polledUids()).length >= 2 ? t.polledUids() : undefined), {
		timeoutMs: 75_000,
	});
	assert(JSON.stringify(second.at(-1)) === JSON.stringify([sentUids[2]]), `the second poll carried ${JSON.stringify(second.at(-1))}`);
	return `${second.length} executions: ${second.map((uids) => uids.length).join(' + ')} items`;
}

async function messageWhileStopped(t: TriggerRun): Promise<string> {
	const { sentUids } = t;
	await t.n8n().stop();
	sentUids.push(await t.incoming(`poll D while stopped ${randomBytes(3).toString('hex')}`));
	await t.n8n().start();
	const all = await waitFor(
		'the message sent while stopped',
		async () => {
			const polled = await t.polledUids();
			return polled.flat().includes(sentUids[3]) ? polled : undefined;
		},
		{ timeoutMs: 90_000 },
	);
	const flat = all.flat();
	assert(flat.length === new Set(flat).size, `a message came twice: ${JSON.stringify(all)}`);
	assert(
		JSON.stringify([...flat].sort()) === JSON.stringify([...sentUids].sort()),
		`polled ${JSON.stringify(all)}, sent ${JSON.stringify(sentUids)}`,
	);
	const deactivated = await t.n8n().publicApi('POST', `/workflows/${t.pollWorkflowId}/deactivate`);
	assert(deactivated.status === 200, `deactivate answered ${deactivated.status}`);
	return `${flat.length} messages in ${all.length} executions, each once`;
}

async function noReplyTimesOut(t: TriggerRun): Promise<string> {
	const workflowId = await t.replyWorkflow('e2e-no-reply', {
		replyWaitText: 'Anyone there?',
		replyWaitTimeout: 0.05,
		replyWaitTimeoutUnit: 'minutes',
	});
	const waiting = await t.start(workflowId, 'e2e-no-reply');
	// n8n's wait tracker looks for due executions every minute.
	const done = await t.finished(workflowId, waiting.id, { timeoutMs: 100_000, intervalMs: 1000 });
	assert(done.status === 'success', `the execution ended ${done.status}`);
	const [item] = itemsOf(done, REPLY_NODE_NAME);
	assert(item && !('reply' in item) && JSON.stringify(item).includes('A-17'), `the output is ${JSON.stringify(item).slice(0, 400)}`);
	await t.n8n().publicApi('POST', `/workflows/${workflowId}/deactivate`);
	// Its subscription outlives the time-out (n8n runs no node code then); the next run removes it (next check).
	t.expiredHooks = (await t.webhooks()).filter((hook) => hook.url.includes(`/webhook-waiting/${waiting.id}/`));
	assert(t.expiredHooks.length === 1, `${t.expiredHooks.length} subscriptions of the timed-out execution`);
	return `resumed as ${done.status} with the input item; its subscription ${t.expiredHooks[0].id} left for the next run`;
}

async function replyResumes(t: TriggerRun): Promise<string> {
	const { chat, otherChat } = t;
	const { sandbox } = t.ctx;
	assert(chat && otherChat, 'two direct chats are needed');
	const text = `Can we deliver tomorrow? ${randomBytes(3).toString('hex')}`;
	const workflowId = await t.replyWorkflow('e2e-reply', { replyWaitText: text, replyWaitTimeout: 10, replyWaitTimeoutUnit: 'minutes' });
	const waiting = await t.start(workflowId, 'e2e-reply');
	const hook = await waitFor(
		'the temporary subscription',
		async () => (await t.webhooks()).find((item) => item.url.includes(`/webhook-waiting/${waiting.id}/`)),
		{ timeoutMs: 10_000 },
	);
	assert(hook.event_type === 'message:received:new', `subscribed to ${hook.event_type}`);
	const leftOver = (await t.webhooks()).filter((item) => t.expiredHooks.some((expired) => expired.id === item.id));
	assert(leftOver.length === 0, 'the subscription of the timed-out wait was not removed by this run');
	const { messages } = await sandbox<{ messages: Array<{ text: string; from_me: boolean }> }>('GET', `/chats/${chat.id}/messages`);
	assert(messages.filter((m) => m.from_me && m.text === text).length === 1, 'the question was not sent exactly once');

	await sandbox('POST', '/_sandbox/incoming', { chat_id: otherChat.id, text: 'a message in another chat' });
	await sleep(2000);
	const still = (await t.executions(workflowId)).find((execution) => execution.id === waiting.id);
	assert(still?.status === 'waiting', `after another chat's message the execution is ${still?.status}`);

	const answer = `Yes, after 5 pm ${randomBytes(3).toString('hex')}`;
	await sandbox('POST', '/_sandbox/incoming', { chat_id: chat.id, text: answer });
	const done = await t.finished(workflowId, waiting.id, { timeoutMs: 30_000 });
	assert(done.status === 'success', `the execution ended ${done.status}`);
	const [item] = itemsOf(done, REPLY_NODE_NAME);
	assert(item?.replied === true, `the output is ${JSON.stringify(item).slice(0, 400)}`);
	assert((item.reply as Json | undefined)?.text === answer, `the reply is ${JSON.stringify(item.reply).slice(0, 300)}`);
	await waitFor('the subscription removed', async () => ((await t.webhooks()).some((item) => item.id === hook.id) ? undefined : true), {
		timeoutMs: 10_000,
	});
	await t.n8n().publicApi('POST', `/workflows/${workflowId}/deactivate`);
	return `execution ${waiting.id} resumed by "${answer}"; subscription ${hook.id} removed, and the expired one before it`;
}

const CASES: Array<[string, (t: TriggerRun) => Promise<string>]> = [
	['Poll Trigger: published, its first poll replays no history and holds no subscription', firstPollReplaysNothing],
	['Poll Trigger: each new inbound message starts the workflow once, across polls (n8n polls every minute)', eachMessageOnce],
	['Poll Trigger: a message that arrives while n8n is stopped comes once after the restart, nothing repeats', messageWhileStopped],
	['Send and Wait for Reply: without a reply n8n resumes at the time-out with the input items', noReplyTimesOut],
	['Send and Wait for Reply: waits, ignores another chat, resumes on the reply and removes its subscription', replyResumes],
];

export async function runTriggerCases(ctx: TriggerCasesContext): Promise<void> {
	const t = new TriggerRun(ctx);
	for (const [name, body] of CASES) await ctx.check(name, () => body(t));
}
