/**
 * The AI responder of the README in a real n8n, imported from packages/n8n/examples/ai-responder-with-memory.json:
 * Chat Messaging Trigger (webhook) → Wait for Customer to Finish Typing → Get Burst to Answer → AI Agent (n8n's
 * OpenAI Chat Model, here on the loopback stub, and Chat Messaging Memory) → Chat Messaging send. A customer's three quick messages give one model call and one reply; the model's
 * request holds the customer's earlier message and a teammate's (from the memory: the service's history) and the
 * burst (the prompt).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { waitFor } from '../../support/harness';
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
	if (
		kinds !== 'chatMessagingTrigger, chatMessaging, chatMessaging, if, openAi, set, agent, lmChatOpenAi, chatMessagingMemory, chatMessaging'
	)
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

export type SandboxMessage = { uid: string; text: string | null; from_me: boolean; origin?: string };

/** Before the workflow is active: the customer's earlier message and a teammate's answer, in a new chat. */
export async function seedHistory(deps: Pick<BurstDeps, 'sandbox'>, scenario: BurstScenario): Promise<number> {
	const { chat_id: chatId } = await deps.sandbox<{ chat_id: number }>('POST', '/_sandbox/incoming', {
		phone: scenario.phone,
		text: scenario.earlier,
	});
	await deps.sandbox('POST', '/_sandbox/teammate-message', { chat_id: chatId, text: scenario.teammate });
	return chatId;
}

export const content = (value: unknown): string =>
	typeof value === 'string'
		? value
		: Array.isArray(value)
			? value.map((part) => (part && typeof part === 'object' && 'text' in part ? String(part.text) : '')).join('')
			: '';

/** The model request's messages, one line each: role and text. */
export const describeRequest = (request: CompletionRequest): string[] =>
	request.messages.map((message) => `${message.role}: ${JSON.stringify(content(message.content))}`);

/** Executions of the responder workflow n8n lists, by whether they wait. */
export async function executions(deps: BurstDeps): Promise<{ waiting: number; ended: number }> {
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
