/**
 * What the replicas share beyond grants, each proved through the proxy or on one replica directly: the replicas
 * pacing one workspace together at the service's limit, every request of a 2025-11-25 session kept on the replica
 * that opened it (the proxy's sticky rule), a task started on one replica read and cancelled on the other with its
 * work stopping where it runs, a finished task's result read on the other (both revisions), and a replica killed while
 * its task runs (the task failed, read on the survivor).
 */
import { CONNECTOR_PACING as PACING, floorSeconds, sendThroughSessions, serviceCounts } from '../../support/mcp-pacing';
import { requestsAfterCancel, rpc2026 } from '../../support/mcp-wire';
import { assert } from '../n8n/checks';
import { killReplica, type Replica } from './cluster';
import { connectWithSdk, TestProvider, type Context } from './connector-cases';

/** The service's rate the sandbox enforces per token. */
const RATE = 30;
/**
 * The refused share above which the pacing check fails: the target is under 2 % (what n8n's queue-mode workers
 * measure, 1.5–1.8 %), reported each run; this bound, which no run near the target reaches, catches replicas that
 * do not give way to each other at all (a fixed pace each: a quarter of the requests refused).
 */
const REFUSED_AT_MOST = 0.05;

const direct = (replica: Replica) => `http://127.0.0.1:${replica.port}/mcp`;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The service's API and control routes as the run reads them, never through the server. */
async function service<T>(context: Context, method: string, path: string, body?: unknown): Promise<T> {
	const response = await fetch(`${context.service.url}${path}`, {
		method,
		headers: { authorization: `Bearer ${context.service.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
		...(body ? { body: JSON.stringify(body) } : {}),
	});
	const json = (await response.json()) as { data: T };
	if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json).slice(0, 300)}`);
	return json.data;
}

/** What `what` gives once it gives something, polled; throws after `ms`. */
async function eventually<T>(what: () => Promise<T | undefined>, ms: number, every = 250): Promise<T> {
	const end = Date.now() + ms;
	for (;;) {
		const value = await what();
		if (value !== undefined) return value;
		if (Date.now() > end) throw new Error(`nothing within ${ms} ms`);
		await pause(every);
	}
}

/** One stateless request of 2025-11-25 (no session: it may go to any replica); its result, or throws its error. */
async function rpc2025(url: string, method: string, params: Record<string, unknown>, token: string): Promise<any> {
	const response = await fetch(url, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			accept: 'application/json, text/event-stream',
			'mcp-protocol-version': '2025-11-25',
			authorization: `Bearer ${token}`,
		},
		body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
	});
	const text = await response.text();
	const json = JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text);
	if (json.error) throw new Error(`${method}: ${json.error.code} ${json.error.message}`);
	return json.result;
}

const sendAndWait = (chatId: number, text: string, replyTimeout: number) => ({
	name: 'message_send_and_wait_for_reply',
	arguments: { sendTo: 'chat', chat_id: chatId, text, replyTimeout, pollInterval: 1 },
});

/** The grant and the chat the replica checks use. */
interface Connector {
	token: string;
	chatId: number;
}

export async function replicaChecks(context: Context): Promise<void> {
	const connector: Connector = { token: '', chatId: 0 };
	await context.check('a connector for the replica checks: the default access, and a chat of the workspace to send to', async () => {
		connector.token = (await connectWithSdk(context, new TestProvider(context.redirectUrl), 'default')).access_token;
		const { chats } = await service<{ chats: Array<{ id: number; phone: string | null }> }>(context, 'GET', '/chats');
		connector.chatId = chats.find((chat) => chat.phone)?.id ?? 0;
		assert(connector.chatId, 'no chat with a phone');
		return `chat ${connector.chatId}`;
	});
	await pacingChecks(context, connector);
	await taskChecks(context, connector);
}

async function pacingChecks(context: Context, { token, chatId }: Connector): Promise<void> {
	const { check, seen, publicUrl } = context;
	await check(
		`the replicas pace one workspace together: ${PACING.sessions * PACING.sends} sends from ${PACING.sessions} sessions on both, at the service's ${RATE} a second`,
		async () => {
			const before = await serviceCounts(context.service);
			const sent = await sendThroughSessions([`${publicUrl}/mcp`], token, chatId, PACING, 'pacing');
			const after = await serviceCounts(context.service);
			const ports = sent.sessionIds.map((id) => seen.find((routed) => routed.session === id)?.port);
			const total = PACING.sessions * PACING.sends;
			const requests = after.requests - before.requests;
			const refused = after.refused - before.refused;
			const share = refused / requests;
			const floor = floorSeconds(total);
			assert(new Set(ports).size === 2, `the sessions' replicas: ${ports.join(', ')}`);
			assert(sent.toolErrors === 0, `${sent.toolErrors} sends answered with a tool error`);
			assert(after.charged - before.charged === total, `${after.charged - before.charged} messages charged for ${total} sends`);
			assert(share < REFUSED_AT_MOST, `${refused} of ${requests} requests refused (${(100 * share).toFixed(1)} %)`);
			return (
				`sessions on ${ports.join(', ')}; ${total} sent once each in ${(sent.ms / 1000).toFixed(1)} s, ` +
				`${(sent.ms / 1000 / floor).toFixed(2)}x the floor of ${floor.toFixed(1)} s; ${refused} of ${requests} requests refused ` +
				`(${(100 * share).toFixed(2)} %: ${share < 0.02 ? 'under' : 'NOT under'} the 2 % target)`
			);
		},
	);

	await check(
		'every request of a 2025-11-25 session went to the replica that opened it (the proxy is sticky by Mcp-Session-Id)',
		async () => {
			const bySession = new Map<string, Set<number>>();
			for (const routed of seen)
				if (routed.session) bySession.set(routed.session, (bySession.get(routed.session) ?? new Set()).add(routed.port));
			const split = [...bySession].filter(([, ports]) => ports.size > 1);
			assert(bySession.size >= PACING.sessions && !split.length, `${bySession.size} sessions, ${split.length} on more than one replica`);
			const requests = seen.filter((routed) => routed.session).length;
			return `${requests} requests of ${bySession.size} sessions, each session's on one replica`;
		},
	);
}

async function taskChecks(context: Context, { token, chatId }: Connector): Promise<void> {
	const { check, replicas } = context;
	const bearer = () => ({ authorization: `Bearer ${token}` });
	await check('a task started on one replica is read and cancelled on the other; its work stops where it runs', async () => {
		const [a, b] = [replicas[0]!, replicas[1]!];
		const task = await rpc2026(direct(a), 'tools/call', sendAndWait(chatId, 'e2e: a wait cancelled from the other replica', 300), bearer());
		assert(task.resultType === 'task', `not a task: ${JSON.stringify(task).slice(0, 200)}`);
		const onB = await rpc2026(direct(b), 'tasks/get', { taskId: task.taskId }, bearer());
		assert(onB.status === 'working', `on the other replica: ${onB.status}`);
		await rpc2026(direct(b), 'tasks/cancel', { taskId: task.taskId }, bearer());
		const after = await requestsAfterCancel(context.service);
		const onA = await rpc2026(direct(a), 'tasks/get', { taskId: task.taskId }, bearer());
		assert(onA.status === 'cancelled', `on the replica running it: ${onA.status}`);
		assert(after === 0, `${after} requests reached the service after the cancel`);
		return `task ${task.taskId.slice(0, 8)}… started on ${a.port}, working on ${b.port} and cancelled there; ${a.port} reads it cancelled; 0 requests after the cancel`;
	});

	await check("a long call's result, finished on one replica, is read on the other (2026-07-28 and 2025-11-25)", async () => {
		const [a, b] = [replicas[0]!, replicas[1]!];
		const modern = await rpc2026(direct(a), 'tools/call', sendAndWait(chatId, 'e2e: waiting on 2026-07-28', 60), bearer());
		const legacy = (
			await rpc2025(direct(a), 'tools/call', { ...sendAndWait(chatId, 'e2e: waiting on 2025-11-25', 60), task: { ttl: 600_000 } }, token)
		).task as { taskId: string };
		// Both sends out before the customer answers: each wait looks for the customer's next message after its send.
		await eventually(async () => {
			const { messages } = await service<{ messages: Array<{ text?: string }> }>(context, 'GET', `/chats/${chatId}/messages?page=1`);
			const texts = messages.map((message) => message.text ?? '');
			return texts.includes('e2e: waiting on 2026-07-28') && texts.includes('e2e: waiting on 2025-11-25') ? true : undefined;
		}, 10_000);
		await service(context, 'POST', '/_sandbox/incoming', { chat_id: chatId, text: 'e2e: the customer answers' });
		const done = await eventually(async () => {
			const got = await rpc2026(direct(b), 'tasks/get', { taskId: modern.taskId }, bearer());
			return got.status === 'working' ? undefined : got;
		}, 30_000);
		assert(done.status === 'completed' && JSON.stringify(done.result).includes('e2e: the customer answers'), `2026-07-28: ${done.status}`);
		const legacyTask = await eventually(async () => {
			const got = await rpc2025(direct(b), 'tasks/get', { taskId: legacy.taskId }, token);
			return got.status === 'working' ? undefined : got;
		}, 30_000);
		const legacyResult = await rpc2025(direct(b), 'tasks/result', { taskId: legacy.taskId }, token);
		assert(
			legacyTask.status === 'completed' && JSON.stringify(legacyResult).includes('e2e: the customer answers'),
			`2025-11-25: ${legacyTask.status}`,
		);
		return `both started on ${a.port}; the customer's answer read on ${b.port}: inlined by tasks/get (2026-07-28), by tasks/result (2025-11-25, stateless)`;
	});

	await check('a replica killed while its task runs: the task becomes failed, read on the survivor, never left working', async () => {
		const [survivor, runner] = [replicas[0]!, replicas[1]!];
		const task = await rpc2026(direct(runner), 'tools/call', sendAndWait(chatId, 'e2e: a wait whose replica dies', 300), bearer());
		assert((await rpc2026(direct(survivor), 'tasks/get', { taskId: task.taskId }, bearer())).status === 'working', 'not working');
		await killReplica(runner);
		const killedAt = Date.now();
		const failed = await eventually(
			async () => {
				const got = await rpc2026(direct(survivor), 'tasks/get', { taskId: task.taskId }, bearer());
				return got.status === 'working' ? undefined : got;
			},
			60_000,
			500,
		);
		const seconds = (Date.now() - killedAt) / 1000;
		assert(
			failed.status === 'failed' && failed.result?.isError && JSON.stringify(failed.result).includes('stopped before it finished'),
			`after the kill: ${JSON.stringify(failed).slice(0, 300)}`,
		);
		replicas[1] = await context.launch();
		return `killed ${runner.port} running task ${task.taskId.slice(0, 8)}…; ${survivor.port} read it failed ${seconds.toFixed(1)} s later ("${String(failed.statusMessage).slice(0, 60)}…"); restarted on ${replicas[1].port}`;
	});
}
