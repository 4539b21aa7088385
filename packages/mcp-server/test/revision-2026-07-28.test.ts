/**
 * Protocol revision 2026-07-28 as its own clients meet it: the built server, over Streamable HTTP and stdio, driven
 * by the official v2 client (@modelcontextprotocol/client, pinned to 2026-07-28) against the sandbox. A tool call;
 * a confirmation, which this revision asks as an input-required result the client answers by calling again; a
 * cancel by closing the response stream; a task of the tasks extension (created, polled, cancelled) and whose task it
 * is; and the same access checks as 2025-11-25 (a forged Host or Origin, a missing client secret beyond loopback).
 */
import type { ChildProcess } from 'node:child_process';
import { request } from 'node:http';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';
import { cli, serverEnvironment, startHttpServer } from './support';
import { rpc2026 as wire, requestsAfterCancel as afterCancel } from '../../../test/support/mcp-wire';

const TOKEN = 'mcp-2026-token-3a9d51';
const CLIENT_SECRET = 'mcp-2026-secret-77e1c0d4';
const REVISION = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';

const rpc2026 = (port: number, method: string, params: Record<string, unknown>, headers?: Record<string, string>) =>
	wire(`http://127.0.0.1:${port}/mcp`, method, params, headers);
const requestsAfterCancel = (sandbox: RunningSandbox) => afterCancel({ url: sandbox.url, token: TOKEN });
const POLL_MS = 1000;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function environment(sandbox: RunningSandbox, env: Record<string, string> = {}): Record<string, string> {
	return serverEnvironment(sandbox, TOKEN, { CHAT_MESSAGING_MCP_TOOLSETS: 'all', ...env });
}

const startHttp = (sandbox: RunningSandbox, args: string[] = [], env: Record<string, string> = {}) =>
	startHttpServer(['--http', '0', ...args], environment(sandbox, env));

interface Asked {
	message: string;
}

/** A v2 client pinned to 2026-07-28 that declares form elicitation (answering with `answers`) and the tasks extension. */
function client2026(answers: Array<{ action: 'accept' | 'decline'; content?: Record<string, boolean> }> = [], asked: Asked[] = []): Client {
	// Not the tasks extension: the v2 client (2.4.0) cannot read a CreateTaskResult ("Unsupported result type 'task'").
	const client = new Client(
		{ name: 'mcp-2026-test', version: '1.0.0' },
		{
			capabilities: { elicitation: { form: {} } },
			versionNegotiation: { mode: { pin: REVISION } },
		},
	);
	client.setRequestHandler('elicitation/create', (request) => {
		asked.push({ message: (request.params as { message: string }).message });
		return answers.shift() ?? { action: 'decline' };
	});
	return client;
}

async function serviceGet(sandbox: RunningSandbox, path: string): Promise<any> {
	const response = await fetch(`${sandbox.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
	return ((await response.json()) as { data: unknown }).data;
}
const creditsUsed = async (sandbox: RunningSandbox) => (await serviceGet(sandbox, '/_sandbox/queue')).quota.used as number;

async function chatIds(sandbox: RunningSandbox): Promise<number[]> {
	return ((await serviceGet(sandbox, '/chats')).chats as Array<{ id: number }>).map((chat) => chat.id);
}

/** One raw 2026-07-28 tools/call (its envelope and headers as the revision wants them), with the headers given. */
function rawCall(port: number, headers: Record<string, string>): Promise<number> {
	const body = JSON.stringify({
		jsonrpc: '2.0',
		id: 1,
		method: 'tools/call',
		params: {
			name: 'chat_get_many',
			arguments: { limit: 1 },
			_meta: {
				'io.modelcontextprotocol/protocolVersion': REVISION,
				'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
				'io.modelcontextprotocol/clientCapabilities': {},
			},
		},
	});
	return new Promise((resolve, reject) => {
		const req = request(
			{
				host: '127.0.0.1',
				port,
				path: '/mcp',
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					accept: 'application/json, text/event-stream',
					'mcp-protocol-version': REVISION,
					'mcp-method': 'tools/call',
					'mcp-name': 'chat_get_many',
					...headers,
				},
			},
			(res) => {
				res.resume();
				res.on('end', () => resolve(res.statusCode!));
			},
		);
		req.on('error', reject);
		req.end(body);
	});
}

describe('2026-07-28 with the official v2 client', () => {
	let sandbox: RunningSandbox;
	let port: number;
	const running: ChildProcess[] = [];
	const clients: Client[] = [];
	const connectHttp = async (client = client2026()) => {
		await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
		clients.push(client);
		return client;
	};
	beforeAll(async () => {
		sandbox = await startSandbox({ chats: 12, tokens: [TOKEN], seed: 28, paceMs: 5 });
		const started = await startHttp(sandbox);
		running.push(started.server);
		port = started.port;
	});
	afterAll(async () => {
		for (const client of clients) await client.close().catch(() => undefined);
		for (const server of running) server.kill('SIGTERM');
		await sandbox?.stop();
	});

	it('over HTTP: negotiates 2026-07-28, lists the tools with their schemas, calls one', async () => {
		const client = await connectHttp();
		expect(client.getNegotiatedProtocolVersion()).toBe(REVISION);
		expect(client.getServerCapabilities()?.extensions?.[TASKS]).toEqual({});
		const { tools } = await client.listTools();
		const get = tools.find((tool) => tool.name === 'chat_get')!;
		expect(get.outputSchema).toMatchObject({ type: 'object' });
		const [chatId] = await chatIds(sandbox);
		const result = await client.callTool({ name: 'chat_get', arguments: { chat_id: chatId } });
		expect(result.isError).toBeFalsy();
		expect(result.structuredContent).toMatchObject({ id: chatId });
		await expect(client.callTool({ name: 'chat_get_everything', arguments: {} })).rejects.toMatchObject({ code: -32602 });
	});

	it('asks before Remove All labels as an input-required result: declined, nothing changes; accepted, it runs', async () => {
		const asked: Asked[] = [];
		const client = await connectHttp(client2026([{ action: 'decline' }, { action: 'accept', content: { confirm: true } }], asked));
		const [, , , chatId] = await chatIds(sandbox);
		const labels = async () => (await serviceGet(sandbox, `/chats/${chatId}/labels`)).labels as string[];
		expect((await client.callTool({ name: 'label_add', arguments: { chat_id: chatId, labels: ['modern'] } })).isError).toBeFalsy();
		const declined = await client.callTool({ name: 'label_remove_all', arguments: { chat_id: chatId } });
		expect(declined).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('did not confirm label_remove_all') }] });
		expect(asked[0]!.message).toMatch(/^An AI agent asks to .*Run it\?$/);
		expect(await labels()).toContain('modern');
		const accepted = await client.callTool({ name: 'label_remove_all', arguments: { chat_id: chatId } });
		expect(accepted.isError).toBeFalsy();
		expect(asked).toHaveLength(2);
		expect(await labels()).toEqual([]);
	});

	it('stops a Send and Wait for Reply whose response stream the client closes: no request reaches the service after it, the send kept', async () => {
		const client = await connectHttp();
		const [, chatId] = await chatIds(sandbox);
		const before = await creditsUsed(sandbox);
		const cancel = new AbortController();
		const call = client.callTool(
			{
				name: 'message_send_and_wait_for_reply',
				arguments: { sendTo: 'chat', chat_id: chatId, text: 'Cancel me (2026)', replyTimeout: 120, pollInterval: POLL_MS / 1000 },
			},
			{ signal: cancel.signal },
		);
		await pause(2500);
		cancel.abort('the user stopped it');
		await expect(call).rejects.toThrow();
		expect(await requestsAfterCancel(sandbox)).toBe(0);
		expect(await creditsUsed(sandbox)).toBe(before + 1);
	});

	it('runs Send and Wait for Reply as a task of the tasks extension: created, polled, cancelled, nothing after', async () => {
		const [, , chatId] = await chatIds(sandbox);
		const before = await creditsUsed(sandbox);
		const created = await rpc2026(port, 'tools/call', {
			name: 'message_send_and_wait_for_reply',
			arguments: { sendTo: 'chat', chat_id: chatId, text: 'A task (2026)', replyTimeout: 120, pollInterval: POLL_MS / 1000 },
		});
		expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: expect.any(Number), pollIntervalMs: 1000 });
		expect(created).not.toHaveProperty('task');
		const { taskId } = created as { taskId: string };
		await pause(2500);
		expect(await rpc2026(port, 'tasks/get', { taskId })).toMatchObject({ taskId, status: 'working' });
		const ack = await rpc2026(port, 'tasks/cancel', { taskId });
		expect(ack).not.toHaveProperty('status');
		expect(await rpc2026(port, 'tasks/get', { taskId })).toMatchObject({ taskId, status: 'cancelled' });
		expect(await requestsAfterCancel(sandbox)).toBe(0);
		expect(await creditsUsed(sandbox)).toBe(before + 1);
	});

	it('a tool error fails its task on either revision, its result the tool error', async () => {
		const noChat = { name: 'message_send_and_wait_for_reply', arguments: { sendTo: 'chat', text: 'No chat named', replyTimeout: 60 } };
		const created = await rpc2026(port, 'tools/call', noChat);
		expect(created).toMatchObject({ resultType: 'task' });
		const { taskId } = created as { taskId: string };
		const finished = async (): Promise<Record<string, any>> => {
			const task = await rpc2026(port, 'tasks/get', { taskId });
			return task.status === 'working' ? (await pause(200), finished()) : task;
		};
		expect(await finished()).toMatchObject({
			status: 'failed',
			result: { isError: true, content: expect.arrayContaining([expect.objectContaining({ text: 'chat_id: is required' })]) },
		});
		const { Client: Client2025 } = await import('@modelcontextprotocol/sdk/client/index.js');
		const { StreamableHTTPClientTransport: Transport2025 } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
		const { CallToolResultSchema } = await import('@modelcontextprotocol/sdk/types.js');
		const client = new Client2025({ name: 'task-error', version: '1.0.0' });
		await client.connect(new Transport2025(new URL(`http://127.0.0.1:${port}/mcp`)));
		const messages = [];
		for await (const message of client.experimental.tasks.callToolStream(noChat, CallToolResultSchema, { task: { ttl: 60_000 } }))
			messages.push(message);
		const sessionTask = (messages[0] as { task: { taskId: string } }).task.taskId;
		expect(await client.experimental.tasks.getTask(sessionTask)).toMatchObject({ status: 'failed' });
		await client.close();
	});

	it("a task is the caller's own: a list of many parts completes with its result inlined; another credential, another session or a request without the session is told it does not exist", async () => {
		const alice = { authorization: 'Bearer alice' };
		const created = await rpc2026(port, 'tools/call', { name: 'chat_get_many', arguments: { limit: 200 } }, alice);
		expect(created).toMatchObject({ resultType: 'task' });
		const { taskId } = created as { taskId: string };
		const done = async (): Promise<Record<string, any>> => {
			const task = await rpc2026(port, 'tasks/get', { taskId }, alice);
			return task.status === 'working' ? (await pause(200), done()) : task;
		};
		expect(await done()).toMatchObject({ status: 'completed', result: { structuredContent: { items: expect.any(Array) } } });
		await expect(rpc2026(port, 'tasks/get', { taskId }, { authorization: 'Bearer bob' })).rejects.toMatchObject({ code: -32602 });
		await expect(rpc2026(port, 'tasks/get', { taskId })).rejects.toMatchObject({ code: -32602 });
		await expect(rpc2026(port, 'tasks/cancel', { taskId }, { authorization: 'Bearer bob' })).rejects.toMatchObject({ code: -32602 });
		const { Client: Client2025 } = await import('@modelcontextprotocol/sdk/client/index.js');
		const { StreamableHTTPClientTransport: LegacyTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
		const legacy = new Client2025({ name: 'another-session', version: '1.0.0' });
		await legacy.connect(new LegacyTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers: alice } }));
		await expect(legacy.experimental.tasks.getTask(taskId)).rejects.toThrow();
		// And the other way: a 2025-11-25 session's task, asked for by its id without the session, does not exist.
		const { CallToolResultSchema } = await import('@modelcontextprotocol/sdk/types.js');
		const stream = legacy.experimental.tasks.callToolStream({ name: 'chat_get_many', arguments: { limit: 2 } }, CallToolResultSchema, {
			task: { ttl: 60_000 },
		});
		const sessionTask = ((await stream.next()).value as { task: { taskId: string } }).task.taskId;
		await stream.return(undefined);
		expect(await legacy.experimental.tasks.getTask(sessionTask)).toMatchObject({ taskId: sessionTask });
		const sessionless = await fetch(`http://127.0.0.1:${port}/mcp`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...alice },
			body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tasks/get', params: { taskId: sessionTask } }),
		});
		expect(await sessionless.text()).toMatch(/"error":\{"code":-32602/);
		await legacy.close();
		// Without the extension declared, the task methods say what is missing.
		const bare = await fetch(`http://127.0.0.1:${port}/mcp`, {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				accept: 'application/json, text/event-stream',
				'mcp-protocol-version': REVISION,
				'mcp-method': 'tasks/get',
				'mcp-name': taskId,
			},
			body: JSON.stringify({
				jsonrpc: '2.0',
				id: 7,
				method: 'tasks/get',
				params: {
					taskId,
					_meta: {
						'io.modelcontextprotocol/protocolVersion': REVISION,
						'io.modelcontextprotocol/clientInfo': { name: 'bare', version: '1' },
						'io.modelcontextprotocol/clientCapabilities': {},
					},
				},
			}),
		});
		expect(((await bare.json()) as { error: { code: number } }).error.code).toBe(-32021);
	});

	it('refuses a forged Host or Origin on the 2026-07-28 path (403), and beyond loopback a call without the client secret (401)', async () => {
		expect(await rawCall(port, { host: `127.0.0.1:${port}` })).toBe(200);
		expect(await rawCall(port, { host: 'attacker.example' })).toBe(403);
		expect(await rawCall(port, { host: `127.0.0.1:${port}`, origin: 'https://attacker.example' })).toBe(403);
		const { server, port: widePort } = await startHttp(
			sandbox,
			['--host', '0.0.0.0', '--allowed-hosts', 'mcp.internal.example', '--allowed-origins', 'none'],
			{ CHAT_MESSAGING_MCP_AUTH_TOKEN: CLIENT_SECRET },
		);
		running.push(server);
		expect(await rawCall(widePort, { host: 'mcp.internal.example' })).toBe(401);
		expect(await rawCall(widePort, { host: 'mcp.internal.example', authorization: 'Bearer wrong' })).toBe(401);
		expect(await rawCall(widePort, { host: 'mcp.internal.example', authorization: `Bearer ${CLIENT_SECRET}` })).toBe(200);
	});

	it('over stdio: the first message chooses the revision; a call and a confirmation', async () => {
		const asked: Asked[] = [];
		const client = client2026([{ action: 'decline' }], asked);
		await client.connect(
			new StdioClientTransport({ command: process.execPath, args: [cli()], env: environment(sandbox), stderr: 'ignore' }),
		);
		clients.push(client);
		expect(client.getNegotiatedProtocolVersion()).toBe(REVISION);
		const [chatId] = await chatIds(sandbox);
		expect((await client.callTool({ name: 'chat_get', arguments: { chat_id: chatId } })).structuredContent).toMatchObject({ id: chatId });
		const declined = await client.callTool({ name: 'label_remove_all', arguments: { chat_id: chatId } });
		expect(declined).toMatchObject({ isError: true });
		expect(asked).toHaveLength(1);
	});
});
