/**
 * A long call's life on each revision, against the built server over Streamable HTTP and the sandbox: a task
 * (created, polled, cancelled) and a cancelled call, each followed by what the service saw after the cancel (0
 * requests expected: the send itself went out once and stays). The Inspector CLI (2.12) cannot drive a task: it
 * follows a task-backed tools/call to its end by itself and answers `Unsupported method: tasks/get` (and
 * tasks/cancel) on its command line. So 2025-11-25 is driven by the official v1 client (its experimental tasks API)
 * and 2026-07-28 on the wire the revision's tasks extension defines (the v2 client 2.4.0 refuses a CreateTaskResult:
 * "Unsupported result type 'task'"); its cancel by closing the response stream is the v2 client's own.
 */
import { Client as Client2026, StreamableHTTPClientTransport as Transport2026 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';

import { rpc2026, requestsAfterCancel } from '../../support/mcp-wire';
import { assert } from '../n8n/checks';

const REVISION_2026 = '2026-07-28';
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Service {
	url: string;
	token: string;
}

const waitArguments = (chatId: number, text: string) => ({ sendTo: 'chat', chat_id: chatId, text, replyTimeout: 120, pollInterval: 1 });

/** 2025-11-25, a session of the v1 client: the task's id at once, working while it waits, cancelled by tasks/cancel. */
export async function taskLife2025(url: string, service: Service, chatId: number): Promise<string> {
	const client = new Client({ name: 'mcp-e2e-tasks', version: '1.0.0' });
	await client.connect(new StreamableHTTPClientTransport(new URL(url)));
	try {
		const stream = client.experimental.tasks.callToolStream(
			{ name: 'message_send_and_wait_for_reply', arguments: waitArguments(chatId, 'A task (2025-11-25)') },
			CallToolResultSchema,
			{ task: { ttl: 60_000 } },
		);
		const first = (await stream.next()).value as { type: string; task?: { taskId: string; status: string } };
		assert(first.type === 'taskCreated' && first.task, `no task created: ${JSON.stringify(first)}`);
		const { taskId } = first.task;
		await pause(2500);
		const polled = await client.experimental.tasks.getTask(taskId);
		assert(polled.status === 'working', `polled: ${polled.status}`);
		await client.experimental.tasks.cancelTask(taskId);
		const cancelled = await client.experimental.tasks.getTask(taskId);
		assert(cancelled.status === 'cancelled', `after tasks/cancel: ${cancelled.status}`);
		await stream.return(undefined);
		const after = await requestsAfterCancel(service);
		assert(after === 0, `${after} requests reached the service after the cancel`);
		return `task ${taskId.slice(0, 8)}…: created ${first.task.status}, polled ${polled.status}, tasks/cancel, then ${cancelled.status}; ${after} requests after the cancel`;
	} finally {
		await client.close();
	}
}

/** 2026-07-28, the tasks extension: a flat CreateTaskResult, tasks/get while it works, tasks/cancel, tasks/get cancelled. */
export async function taskLife2026(url: string, service: Service, chatId: number): Promise<string> {
	const created = await rpc2026(url, 'tools/call', {
		name: 'message_send_and_wait_for_reply',
		arguments: waitArguments(chatId, 'A task (2026-07-28)'),
	});
	assert(created.resultType === 'task' && typeof created.taskId === 'string', `no task created: ${JSON.stringify(created)}`);
	const { taskId } = created as { taskId: string };
	await pause(2500);
	const polled = await rpc2026(url, 'tasks/get', { taskId });
	assert(polled.status === 'working', `polled: ${polled.status}`);
	await rpc2026(url, 'tasks/cancel', { taskId });
	const cancelled = await rpc2026(url, 'tasks/get', { taskId });
	assert(cancelled.status === 'cancelled', `after tasks/cancel: ${cancelled.status}`);
	const after = await requestsAfterCancel(service);
	assert(after === 0, `${after} requests reached the service after the cancel`);
	return `task ${taskId.slice(0, 8)}…: created ${created.status} (ttlMs ${created.ttlMs}, pollIntervalMs ${created.pollIntervalMs}), polled ${polled.status}, tasks/cancel, then ${cancelled.status}; ${after} requests after the cancel`;
}

/**
 * A call the client gives up on: 2025-11-25's client sends notifications/cancelled within its session, 2026-07-28's
 * closes the call's response stream, which that revision counts as the cancel.
 */
export async function cancelledCall(url: string, service: Service, chatId: number, revision: string): Promise<string> {
	const cancel = new AbortController();
	let close: () => Promise<void>;
	let call: Promise<unknown>;
	const request = { name: 'message_send_and_wait_for_reply', arguments: waitArguments(chatId, `Cancel me (${revision})`) };
	if (revision === REVISION_2026) {
		const client = new Client2026({ name: 'mcp-e2e-cancel', version: '1.0.0' }, { versionNegotiation: { mode: { pin: REVISION_2026 } } });
		await client.connect(new Transport2026(new URL(url)));
		close = () => client.close();
		call = client.callTool(request, { signal: cancel.signal });
	} else {
		const client = new Client({ name: 'mcp-e2e-cancel', version: '1.0.0' });
		await client.connect(new StreamableHTTPClientTransport(new URL(url)));
		close = () => client.close();
		call = client.callTool(request, undefined, { signal: cancel.signal });
	}
	try {
		await pause(2500);
		cancel.abort('the user stopped it');
		await call.then(
			() => assert(false, 'the call was answered after its cancel'),
			() => undefined,
		);
		const after = await requestsAfterCancel(service);
		assert(after === 0, `${after} requests reached the service after the cancel`);
		return `${after} requests reached the service after the cancel`;
	} finally {
		await close();
	}
}
