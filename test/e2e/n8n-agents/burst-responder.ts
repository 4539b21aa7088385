/**
 * The AI responder of the README in a real n8n, imported from packages/n8n/examples/ai-responder-with-memory.json:
 * Chat Messaging Trigger (webhook) → Wait for Customer to Finish Typing → Get Burst to Answer → AI Agent (n8n's
 * OpenAI Chat Model, here on the loopback stub, and Chat Messaging Memory) → Chat Messaging send. A customer's three quick messages give one model call and one reply; the model's
 * request holds the customer's earlier message and a teammate's (from the memory: the service's history) and the
 * burst (the prompt).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { sleep, waitFor } from '../../support/harness';
import { assert } from '../n8n/checks';
import type { N8nInstance } from '../n8n/n8n-instance';
import { CREDENTIAL_TYPE } from '../n8n/workflows';
import type { CompletionRequest, Script } from './openai-stub';

const EXAMPLE = join(__dirname, '..', '..', '..', 'packages', 'n8n', 'examples', 'ai-responder-with-memory.json');
export const BURST_WORKFLOW = { id: 'e2eAgentBurstMem', webhookId: 'c6a1e5a0-3b7e-4c55-9f41-0d2f0e6b1a06' } as const;
/** The quiet time the e2e's responder waits: the latencies it reports are measured against it. */
export const QUIET_SECONDS = 4;

export interface BurstScenario {
	/** The burst's first word: the stub knows this workflow's turns by it. */
	mark: string;
	phone: string;
	earlier: string;
	teammate: string;
	burst: [string, string, string];
	reply: string;
}

let phoneSequence = 0;

export function burstScenario(mark = 'BURST'): BurstScenario {
	const tag = randomBytes(3).toString('hex');
	phoneSequence = (phoneSequence + 1) % 100;
	return {
		mark,
		phone: `+491517${String(Date.now()).slice(-5)}${String(phoneSequence).padStart(2, '0')}`,
		earlier: `Earlier question ${tag}: do you ship to Austria?`,
		teammate: `Teammate answer ${tag}: yes, in 3 days`,
		burst: [`${mark} hi ${tag}`, `my order ${tag}`, `#1234 ${tag}`],
		reply: `Your order is on its way (${tag})`,
	};
}

/** The stub's script for this workflow's turns: an answer, no tool. */
export const burstScript = (scenarios: BurstScenario[], prompt: string): Script | undefined => {
	const scenario = scenarios.find((candidate) => prompt.startsWith(candidate.mark));
	return scenario && (() => ({ answer: scenario.reply }));
};

/** The example users import (packages/n8n/examples), with the e2e's credentials, the stub's model and a short quiet time. */
export function burstWorkflow(credentials: { chat: { id: string; name: string }; openAi: { id: string; name: string } }) {
	const example = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as {
		nodes: Array<{
			name: string;
			type: string;
			parameters: Record<string, unknown>;
			credentials?: Record<string, unknown>;
			webhookId?: string;
		}>;
	} & Record<string, unknown>;
	for (const node of example.nodes) {
		if (node.credentials?.[CREDENTIAL_TYPE]) node.credentials[CREDENTIAL_TYPE] = { ...credentials.chat };
		if (node.credentials?.openAiApi) node.credentials.openAiApi = { ...credentials.openAi };
		if (node.type === '@n8n/n8n-nodes-langchain.lmChatOpenAi')
			node.parameters = { ...node.parameters, model: { __rl: true, mode: 'id', value: 'stub-model' }, responsesApiEnabled: false };
		if (node.parameters.operation === 'waitForCustomerToFinishTyping') node.parameters.burstQuietSeconds = QUIET_SECONDS;
		if (node.webhookId) node.webhookId = BURST_WORKFLOW.webhookId;
	}
	const kinds = example.nodes.map((node) => node.type.split('.').pop()).join(', ');
	if (kinds !== 'chatMessagingTrigger, chatMessaging, chatMessaging, agent, lmChatOpenAi, chatMessagingMemory, chatMessaging')
		throw new Error(`the example's nodes are not those this case checks: ${kinds}`);
	return { ...example, id: BURST_WORKFLOW.id, active: false };
}

/** What the e2e gives this case: the sandbox, n8n, the stub's records, and the workflow's id in n8n. */
export interface BurstDeps {
	sandbox: <T>(method: string, path: string, body?: unknown) => Promise<T>;
	n8n: N8nInstance;
	requests: CompletionRequest[];
	failures: string[];
	workflowId: string;
}

/** What a run may do around the burst: deliver it (queue mode's relay), or act while its executions wait (a restart). */
export interface BurstHooks {
	afterSend?: () => Promise<void>;
	duringWait?: () => Promise<string>;
}

type SandboxMessage = { uid: string; text: string | null; from_me: boolean; origin?: string };

/** Before the workflow is active: the customer's earlier message and a teammate's answer, in a new chat. */
export async function seedHistory(deps: Pick<BurstDeps, 'sandbox'>, scenario: BurstScenario): Promise<number> {
	const { chat_id: chatId } = await deps.sandbox<{ chat_id: number }>('POST', '/_sandbox/incoming', {
		phone: scenario.phone,
		text: scenario.earlier,
	});
	await deps.sandbox('POST', '/_sandbox/teammate-message', { chat_id: chatId, text: scenario.teammate });
	return chatId;
}

const content = (value: unknown): string =>
	typeof value === 'string'
		? value
		: Array.isArray(value)
			? value.map((part) => (part && typeof part === 'object' && 'text' in part ? String(part.text) : '')).join('')
			: '';

/** The model request's messages, one line each: role and text. */
export const describeRequest = (request: CompletionRequest): string[] =>
	request.messages.map((message) => `${message.role}: ${JSON.stringify(content(message.content))}`);

/** Executions of the responder workflow n8n lists, by whether they wait. */
async function executions(deps: BurstDeps): Promise<{ waiting: number; ended: number }> {
	const listed = await deps.n8n.publicApi('GET', `/executions?workflowId=${deps.workflowId}&limit=100`);
	const all = (listed.body as { data?: Array<{ status: string }> }).data ?? [];
	const waiting = all.filter((execution) => execution.status === 'waiting').length;
	return { waiting, ended: all.length - waiting };
}

/**
 * Three quick messages, then: one reply in the chat, one model call, and that call's messages hold the earlier
 * message and the teammate's (memory) and the burst (prompt). Returns the lines to print.
 */
export async function burstGivesOneTurn(
	deps: BurstDeps,
	scenario: BurstScenario,
	chatId: number,
	{ afterSend, duringWait }: BurstHooks = {},
): Promise<string> {
	const before = { requests: deps.requests.length, ...(await executions(deps)) };
	for (const text of scenario.burst) await deps.sandbox('POST', '/_sandbox/incoming', { chat_id: chatId, text });
	await afterSend?.();
	let note = '';
	if (duringWait) {
		await waitFor('the three executions of the burst waiting', async () => (await executions(deps)).waiting >= before.waiting + 3, {
			timeoutMs: 30_000,
			intervalMs: 250,
		});
		note = `; ${await duringWait()}`;
	}
	const messages = async () => (await deps.sandbox<{ messages: SandboxMessage[] }>('GET', `/chats/${chatId}/messages`)).messages;
	const replies = async () => (await messages()).filter((message) => message.from_me && message.text === scenario.reply);
	await waitFor('the reply in the chat', async () => (await replies()).length > 0 || undefined, {
		timeoutMs: 150_000,
		intervalMs: 500,
	}).catch((error: Error) => {
		throw new Error(`${error.message}; stub failures: ${deps.failures.join(' | ') || 'none'}`);
	});
	// Every execution of the burst has ended (the two earlier ones without output) before counting.
	await waitFor('the three executions of the burst to end', async () => (await executions(deps)).ended >= before.ended + 3, {
		timeoutMs: 90_000,
		intervalMs: 1000,
	});
	const calls = deps.requests.slice(before.requests).filter((request) => {
		const users = request.messages.filter((message) => message.role === 'user');
		return content(users.at(-1)?.content).startsWith(scenario.mark);
	});
	const sent = await replies();
	assert(calls.length === 1, `the burst gave ${calls.length} model calls, not 1`);
	assert(sent.length === 1, `the burst gave ${sent.length} replies, not 1`);
	const lines = describeRequest(calls[0]);
	const all = lines.join('\n');
	for (const text of [scenario.earlier, scenario.teammate, ...scenario.burst])
		assert(all.includes(JSON.stringify(text).slice(1, -1)), `the model's request lacks "${text}":\n${all}`);
	const prompt = content(calls[0].messages.at(-1)?.content);
	assert(prompt === scenario.burst.join('\n'), `the prompt is not the burst, one message a line: ${JSON.stringify(prompt)}`);
	return `1 model call, 1 reply${note}; the model's request:\n      ${lines.join('\n      ')}`;
}

// ---------------------------------------------------------------------------------------------
// Latency: from a burst's last message to the stored answer.

/** When each reply was stored: the service's own `message:sent:new` deliveries, received on loopback. */
export interface SentReceiver {
	/** Arrival time (epoch ms) of the first delivery of a sent message, by `chat_id|text`. */
	sentAt: Map<string, number>;
	stop(): Promise<void>;
}

export async function startSentReceiver(sandbox: BurstDeps['sandbox']): Promise<SentReceiver> {
	const sentAt = new Map<string, number>();
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const at = Date.now();
			try {
				const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
					data?: { chat_id?: unknown; text?: unknown };
					chat?: { chat_id?: unknown };
					message?: { text?: unknown };
				};
				const key = `${String(body.data?.chat_id ?? body.chat?.chat_id)}|${String(body.data?.text ?? body.message?.text)}`;
				if (!sentAt.has(key)) sentAt.set(key, at);
			} catch {
				// not a delivery: nothing to time
			}
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end('{"status":"ok"}');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sent`;
	const hook = await sandbox<{ id: number }>('POST', '/webhooks', { event_type: 'message:sent:new', url });
	return {
		sentAt,
		stop: async () => {
			await sandbox('DELETE', `/webhooks/${hook.id}`).catch(() => undefined);
			await new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			});
		},
	};
}

/** Ten bursts' scenarios, one chat each; the stub answers them by their marks (register them before a run). */
export const latencyScenarios = (mark: string, count = 10): BurstScenario[] =>
	Array.from({ length: count }, (_, index) => burstScenario(`${mark}${index}:`));

export interface LatencyOptions {
	/** Between the starts of two bursts: spread over n8n's one-minute wait tick, so each burst meets it at another point. */
	staggerMs: number;
	/** The workflow's quiet time, to report against. */
	quietSeconds: number;
	/** After the bursts were sent, while their executions wait (a restart): what it did, for the report. */
	duringWait?: () => Promise<string>;
}

const median = (values: number[]): number => {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const seconds = (ms: number): string => (ms / 1000).toFixed(1);

/**
 * Bursts of three messages in chats of their own, started `staggerMs` apart: each burst gets one reply and one model
 * call (asserted), and the time from its last message to its stored reply is measured and reported (never asserted:
 * speed is reported, the test asserts one answer).
 */
export async function burstLatencies(deps: BurstDeps, scenarios: BurstScenario[], options: LatencyOptions): Promise<string> {
	const receiver = await startSentReceiver(deps.sandbox);
	try {
		const baseline = { requests: deps.requests.length, waiting: (await executions(deps)).waiting };
		const started = Date.now();
		const sent = await Promise.all(
			scenarios.map(async (scenario, index) => {
				await sleep(Math.max(0, started + index * options.staggerMs - Date.now()));
				const [first, ...rest] = scenario.burst;
				const { chat_id: chatId } = await deps.sandbox<{ chat_id: number }>('POST', '/_sandbox/incoming', {
					phone: scenario.phone,
					text: first,
				});
				for (const text of rest) await deps.sandbox('POST', '/_sandbox/incoming', { chat_id: chatId, text });
				return { scenario, chatId, lastAt: Date.now() };
			}),
		);
		let note = '';
		if (options.duringWait) note = `; ${await options.duringWait()}`;
		const latencies: number[] = [];
		for (const { scenario, chatId, lastAt } of sent) {
			const key = `${chatId}|${scenario.reply}`;
			const at = await waitFor(`the reply to burst ${scenario.mark}`, async () => receiver.sentAt.get(key), {
				timeoutMs: 240_000,
				intervalMs: 100,
			}).catch((error: Error) => {
				throw new Error(`${error.message}; stub failures: ${deps.failures.join(' | ') || 'none'}`);
			});
			latencies.push(at - lastAt);
		}
		// Every execution of the bursts has ended (the earlier ones of each burst without output) before counting.
		await waitFor('the bursts’ executions to end', async () => (await executions(deps)).waiting <= baseline.waiting || undefined, {
			timeoutMs: 120_000,
			intervalMs: 1000,
		});
		const calls = deps.requests.slice(baseline.requests);
		for (const { scenario, chatId } of sent) {
			const ours = calls.filter((request) =>
				content(request.messages.filter((message) => message.role === 'user').at(-1)?.content).startsWith(scenario.mark),
			);
			assert(ours.length === 1, `burst ${scenario.mark} gave ${ours.length} model calls, not 1`);
			const messages = (await deps.sandbox<{ messages: SandboxMessage[] }>('GET', `/chats/${chatId}/messages`)).messages;
			const replies = messages.filter((message) => message.from_me && message.text === scenario.reply);
			assert(replies.length === 1, `burst ${scenario.mark} gave ${replies.length} replies, not 1`);
		}
		const quietMs = options.quietSeconds * 1000;
		return (
			`${sent.length} bursts, ${seconds(options.staggerMs)} s apart, quiet ${options.quietSeconds} s: one model call and one reply each${note}; ` +
			`from the last message to the stored reply: median ${seconds(median(latencies))} s (quiet + ${seconds(median(latencies) - quietMs)} s), ` +
			`worst ${seconds(Math.max(...latencies))} s (quiet + ${seconds(Math.max(...latencies) - quietMs)} s); ` +
			`each: ${latencies.map(seconds).join(', ')} s`
		);
	} finally {
		await receiver.stop();
	}
}
