/**
 * A task's life driven by the MCP project's official tasks client, @modelcontextprotocol/ext-tasks (its `client`
 * entry), over a connected client of the v2 SDK (@modelcontextprotocol/client, the one ext-tasks adapts): the task
 * started, its id and status while it works (polled through ext-tasks), cancelled through ext-tasks, seen cancelled,
 * then what the service saw after the cancel.
 *
 * Both come from the tools folder test/e2e/mcp/tools.sh fills (ext-tasks is pinned there), loaded by path: they are
 * ESM and not devDependencies of the workspace. At 2025-11-25 the session needs nothing more than the client. At
 * 2026-07-28 ext-tasks asks the host for a raw request path (`rawDispatch`) and the request framing
 * (`v2RequestFraming`), since the v2 client's own codecs refuse the tasks extension's wire shapes: the raw path here
 * is a plain POST of the request exactly as ext-tasks framed it, with the headers the revision wants.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { requestsAfterCancel } from '../../support/mcp-wire';
import { assert } from '../n8n/checks';
import type { Service } from './lifecycle';

const REVISION_2026 = '2026-07-28';
const TOOL = 'message_send_and_wait_for_reply';
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The few parts of ext-tasks' client API this case uses (its types live outside the workspace). */
interface TaskView {
	taskId: string;
	status: string;
}
interface Execution {
	kind: 'immediate' | 'task';
	handle?: { taskId: string };
	cancel(): Promise<void>;
	settle(): Promise<{ outcome: { status: string }; lastTask?: TaskView }>;
	close(): Promise<void>;
}
interface TaskSession {
	task(taskId: string): { snapshot(): Promise<TaskView> };
	callTool(name: string, params: Record<string, unknown>, options: Record<string, unknown>): Promise<Execution>;
	close(): Promise<void>;
}
interface ExtTasksClient {
	createTaskSessionFromClient(client: unknown, options: Record<string, unknown>): TaskSession;
	toolDeclarationFromMcpTool(tool: unknown): unknown;
}
type JsonRpcResponse = { kind: 'result'; result: unknown } | { kind: 'error'; error: { code: number; message: string; data?: unknown } };

/** ext-tasks' client entry and the v2 client it resolves as its peer, both from the tools folder. */
async function load(toolsDir: string) {
	const modules = join(toolsDir, 'node_modules', '@modelcontextprotocol');
	const importPath = (path: string) => import(pathToFileURL(join(modules, path)).href);
	const extTasks = (await importPath('ext-tasks/dist/client/index.js')) as ExtTasksClient;
	const sdk = await importPath('client/dist/index.mjs');
	return { extTasks, Client: sdk.Client, Transport: sdk.StreamableHTTPClientTransport };
}

/** The raw request path ext-tasks wants at 2026-07-28: the framed request, posted as it is; the answer as ext-tasks reads it. */
function rawDispatch(url: string) {
	return async (request: any, options: { signal?: AbortSignal } = {}): Promise<JsonRpcResponse> => {
		const response = await fetch(url, {
			method: 'POST',
			signal: options.signal,
			headers: {
				'content-type': 'application/json',
				accept: 'application/json, text/event-stream',
				'mcp-protocol-version': REVISION_2026,
				'mcp-method': request.method,
				'mcp-name': String(request.params?.name ?? request.params?.taskId),
			},
			body: JSON.stringify({ jsonrpc: '2.0', id: request.id ?? Date.now(), ...request }),
		});
		const text = await response.text();
		const events = text.split('\n').filter((line) => line.startsWith('data: '));
		const message = JSON.parse(events.length ? events[events.length - 1]!.slice(6) : text);
		return message.error ? { kind: 'error', error: message.error } : { kind: 'result', result: message.result };
	};
}

/** The case: a Send and Wait for Reply started as a task through ext-tasks, polled, cancelled, and what followed. */
export async function taskLifeExtTasks(url: string, service: Service, chatId: number, revision: string, toolsDir: string): Promise<string> {
	const { extTasks, Client, Transport } = await load(toolsDir);
	const clientInfo = { name: 'mcp-e2e-ext-tasks', version: '1.0.0' };
	const at2026 = revision === REVISION_2026;
	const client = new Client(clientInfo, { versionNegotiation: { mode: at2026 ? { pin: REVISION_2026 } : 'legacy' } });
	await client.connect(new Transport(new URL(url)));
	const negotiated = client.getNegotiatedProtocolVersion();
	assert(negotiated === revision, `the client negotiated ${negotiated}, not ${revision}`);
	const session = extTasks.createTaskSessionFromClient(client, {
		endpointId: `chat-messaging-e2e-${revision}`,
		...(at2026
			? { rawDispatch: rawDispatch(url), v2RequestFraming: { protocolVersion: REVISION_2026, clientInfo, clientCapabilities: {} } }
			: {}),
	});
	try {
		const tool = (await client.listTools()).tools.find((item: { name: string }) => item.name === TOOL);
		assert(tool, `tools/list has no ${TOOL}`);
		const execution = await session.callTool(
			TOOL,
			{ sendTo: 'chat', chat_id: chatId, text: `A task through ext-tasks (${revision})`, replyTimeout: 120, pollInterval: 1 },
			{ declaration: extTasks.toolDeclarationFromMcpTool(tool), task: { preference: 'require', retentionMs: 60_000 } },
		);
		assert(execution.kind === 'task' && execution.handle, `ext-tasks ran the call as ${execution.kind}, not as a task`);
		const { taskId } = execution.handle;
		const settled = execution.settle();
		await pause(2500);
		const polled = await session.task(taskId).snapshot();
		assert(polled.status === 'working', `polled: ${polled.status}`);
		await execution.cancel();
		const cancelled = await session.task(taskId).snapshot();
		assert(cancelled.status === 'cancelled', `after the cancel: ${cancelled.status}`);
		const { outcome } = await settled;
		assert(outcome.status === 'cancelled', `settled ${outcome.status}`);
		const after = await requestsAfterCancel(service);
		assert(after === 0, `${after} requests reached the service after the cancel`);
		return `${negotiated}, task ${taskId.slice(0, 8)}…: polled ${polled.status}, cancelled through ext-tasks, then ${cancelled.status} (settled ${outcome.status}); ${after} requests after the cancel`;
	} finally {
		await session.close();
		await client.close();
	}
}
