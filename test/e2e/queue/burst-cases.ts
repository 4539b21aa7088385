/**
 * The AI responder in queue mode (packages/n8n/examples/ai-responder-with-memory.json, as the agents e2e runs it):
 * created and published through the main's public API, with n8n's OpenAI Chat Model on a loopback stub. A
 * customer's three quick messages, each delivered to a webhook process in turn: the three executions wait in
 * the database, the main resumes them, the two workers run them; one model call and one reply, and the model's
 * request holds the customer's earlier message and a teammate's (the memory, read on a worker from the service)
 * and the burst. The run's hook: `runBurstCases` after the other cases.
 */
import type { CheckRun } from '../n8n/checks';
import type { RelayRoutes } from './run';
import type { N8nInstance } from '../n8n/n8n-instance';
import {
	burstGivesOneTurn,
	burstScenario,
	burstScript,
	burstWorkflow,
	BURST_WORKFLOW,
	QUIET_SECONDS,
	seedHistory,
} from '../n8n-agents/burst-responder';
import { burstLatencies, latencyScenarios } from '../n8n-agents/latency';
import { startOpenAiStub } from '../n8n-agents/openai-stub';
import { waitFor } from '../../support/harness';
import { assert } from '../n8n/checks';

export interface QueueBurstDeps {
	check: CheckRun['check'];
	/** The main, with its API key. */
	n8n: () => N8nInstance;
	sandbox: <T>(method: string, path: string, body?: unknown) => Promise<T>;
	/** The chat credential the run imported. */
	chatCredential: { id: string; name: string };
	/** How one delivery reaches a webhook process. */
	/** Where the relay's hook for each delivery is set (the responder's deliveries are handed on as they come). */
	relayRoutes: RelayRoutes;
	deliver: (delivery: { pathAndQuery: string; body: string; uid: string }, port: number) => Promise<number>;
	webhookPorts: readonly number[];
	/** Each worker's log so far: which worker ran which execution ("Worker started execution <id>"). */
	workerLogs: () => string[];
}

export async function runBurstCases(deps: QueueBurstDeps): Promise<void> {
	const scenario = burstScenario('QUEUED');
	const timed = latencyScenarios('QTIMED');
	const stub = await startOpenAiStub((prompt) => burstScript([scenario, ...timed], prompt));
	// Each delivery for the responder's trigger goes to the webhook processes in turn as it arrives, as a load
	// balancer would hand it on.
	let forwarded = 0;
	const forwardFailures: string[] = [];
	deps.relayRoutes.onDelivery = (delivery) => {
		if (!delivery.pathAndQuery.includes(BURST_WORKFLOW.webhookId)) return;
		const port = deps.webhookPorts[forwarded++ % deps.webhookPorts.length];
		void deps.deliver(delivery, port).then(
			(status) => void (status === 200 || forwardFailures.push(`a webhook process answered ${status} to a delivery`)),
			(error: Error) => forwardFailures.push(error.message),
		);
	};
	try {
		let chatId = 0;
		let workflowId = '';
		await deps.check(
			"AI responder: the example workflow created and published through the public API, its OpenAI credential (on a loopback stub) through the editor's REST API",
			async () => {
				const n8n = deps.n8n();
				chatId = await seedHistory(deps, scenario);
				// Through the editor's REST API with the owner's session: the run's API key holds workflow and execution scopes only.
				const openAi = (await n8n.rest('POST', '/rest/credentials', {
					name: 'OpenAI stub (queue)',
					type: 'openAiApi',
					data: { apiKey: 'stub-key-not-secret', url: stub.url, header: false },
				})) as { id?: string; name?: string };
				assert(openAi?.id, `creating the OpenAI credential answered ${JSON.stringify(openAi).slice(0, 300)}`);
				const { name, nodes, connections, settings } = burstWorkflow({
					chat: deps.chatCredential,
					openAi: { id: openAi.id, name: String(openAi.name) },
				}) as unknown as Record<string, unknown>;
				const created = await n8n.publicApi('POST', '/workflows', { name, nodes, connections, settings });
				const id = (created.body as { id?: string }).id;
				assert(
					created.status === 200 && id,
					`creating the workflow answered ${created.status}: ${JSON.stringify(created.body).slice(0, 300)}`,
				);
				workflowId = id;
				const activated = await n8n.publicApi('POST', `/workflows/${id}/activate`);
				assert(activated.status === 200, `activating it answered ${activated.status}: ${JSON.stringify(activated.body).slice(0, 300)}`);
				await waitFor(
					'the subscription of its trigger',
					async () => {
						const data = await deps.sandbox<{ webhooks?: Array<{ url: string }> } | Array<{ url: string }>>('GET', '/webhooks');
						return (
							(Array.isArray(data) ? data : (data.webhooks ?? [])).some((hook) => hook.url.includes(BURST_WORKFLOW.webhookId)) || undefined
						);
					},
					{ timeoutMs: 30_000, intervalMs: 250 },
				);
				return `workflow ${id}; chat ${chatId} holds the earlier message and a teammate's`;
			},
			true,
		);
		const workflowExecutions = async () => {
			const listed = await deps.n8n().publicApi('GET', `/executions?workflowId=${workflowId}&limit=100`);
			return (listed.body as { data?: Array<{ id: string }> }).data ?? [];
		};
		await deps.check(
			'AI responder in queue mode: three quick messages through both webhook processes, run by the workers: one model call, one reply, the memory read on a worker',
			async () => {
				const outcome = await burstGivesOneTurn(
					{ sandbox: deps.sandbox, n8n: deps.n8n(), requests: stub.requests, failures: stub.failures, workflowId },
					scenario,
					chatId,
				);
				assert(forwardFailures.length === 0, forwardFailures.join('; '));
				const ours = new Set((await workflowExecutions()).map((execution) => String(execution.id)));
				const perWorker = deps
					.workerLogs()
					.map((log) => [...log.matchAll(/Worker started execution (\d+)/g)].filter((match) => ours.has(match[1])).length);
				return `${outcome}\n      runs per worker (an execution resumed after its wait counts again): ${perWorker.join(' / ')}`;
			},
		);
		await deps.check(
			'AI responder in queue mode, timed: ten bursts in ten chats through both webhook processes, each one model call and one reply; latency from the last message to the stored reply',
			async () => {
				const outcome = await burstLatencies(
					{ sandbox: deps.sandbox, n8n: deps.n8n(), requests: stub.requests, failures: stub.failures, workflowId },
					timed,
					{ staggerMs: 6000, quietSeconds: QUIET_SECONDS },
				);
				assert(forwardFailures.length === 0, forwardFailures.join('; '));
				return outcome;
			},
		);
	} finally {
		deps.relayRoutes.onDelivery = undefined;
		await stub.stop();
	}
}
