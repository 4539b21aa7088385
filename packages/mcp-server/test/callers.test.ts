/**
 * A server for each caller, as a transport makes one (callerParts of the process's shared parts), driven by the
 * official v1 client in process against two sandboxes, two workspaces: each caller's calls run in its own workspace,
 * its tools are its scope's, a tool outside its scope is refused the way a transport can turn into 403
 * insufficient_scope, and its tasks and file links are its own. And the task store's promises, which a store shared
 * by several processes must keep too: JSON records, an owner's tasks only, a cancel that stops the tracked work.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, ErrorCode, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';
import { virtualTiming } from '../../../test/support/scripted-transport';
import { INVALID_PARAMS, RequestRefusal, unknownTool } from '../src/calls/errors';
import { admitCall, scopeRefusalOf } from '../src/calls/pipeline';
import { ToolTasks } from '../src/calls/taskStore';
import { FileLinks } from '../src/resources/fileLinks';
import { server2025 } from '../src/revisions/2025-11-25';
import { callerParts, sharedParts, type Caller, type SharedParts } from '../src/revisions/common';
import { selectTools } from '../src/scopes';
import { catalogueTools } from '../src/tools';
import { createExecutor } from '../src/workspace';

const TOKEN = 'callers-test-token-51c2';

async function connect(shared: SharedParts, caller: Caller): Promise<Client> {
	const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
	const server = server2025(callerParts(shared, caller));
	const client = new Client({ name: 'callers-test', version: '1.0.0' });
	await server.connect(serverSide);
	await client.connect(clientSide);
	return client;
}

const structured = async (client: Client, name: string, args: Record<string, unknown> = {}) => {
	const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
	if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
	return result.structuredContent as Record<string, any>;
};

describe('the call pipeline: a tool outside the caller scope', () => {
	const all = catalogueTools();
	const catalogue = new Map(all.map((tool) => [tool.name, tool]));
	const readOnly = new Map(selectTools(all, { readOnly: true }).map((tool) => [tool.name, tool]));

	it('is refused as invalid params in the unknown tool words, naming the least scope that gives it, for every tool', () => {
		const outside = all.filter((tool) => !readOnly.has(tool.name));
		expect(outside.length).toBeGreaterThan(20);
		for (const tool of outside) {
			const refused = admitCall({ byName: readOnly, catalogue }, tool.name);
			expect(refused).toBeInstanceOf(RequestRefusal);
			const { code, message, data, insufficientScope } = refused as RequestRefusal;
			expect({ code, message, data }).toEqual({ code: INVALID_PARAMS, message: unknownTool(tool.name).message, data: { name: tool.name } });
			expect(insufficientScope?.tool).toBe(tool.name);
			// The scope named gives the tool, and a tool that only reads is given by a read-only scope.
			expect(selectTools(all, insufficientScope!.scope).map(({ name }) => name)).toContain(tool.name);
		}
		for (const tool of all)
			expect(
				selectTools(all, (admitCall({ byName: new Map(), catalogue }, tool.name) as RequestRefusal).insufficientScope!.scope),
			).toContain(tool);
		expect((admitCall({ byName: new Map(), catalogue }, 'chat_get') as RequestRefusal).insufficientScope?.scope).toEqual({
			readOnly: true,
			toolsets: ['chats'],
		});
	});

	it('is found in a request body before it reaches a server, for a transport to answer 403', () => {
		const parts = { byName: readOnly, catalogue };
		const call = (name: unknown, id = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
		expect(scopeRefusalOf(parts, call('message_send'))?.insufficientScope).toEqual({
			tool: 'message_send',
			scope: { toolsets: ['messages'] },
		});
		expect(scopeRefusalOf(parts, [call('chat_get'), call('webhook_delete', 2)])?.insufficientScope?.tool).toBe('webhook_delete');
		// What the caller may call, a name nobody has, and anything that is not a call go on to the server.
		for (const body of [
			call('chat_get'),
			call('chat_get_everything'),
			call(42),
			{ jsonrpc: '2.0', id: 1, method: 'tools/list' },
			'x',
			null,
		])
			expect(scopeRefusalOf(parts, body)).toBeUndefined();
	});

	it('is not a name the catalogue lacks: that is unknown, with no scope to ask for', () => {
		const refused = admitCall({ byName: readOnly, catalogue }, 'chat_get_everything') as RequestRefusal;
		expect(refused).toMatchObject({ code: INVALID_PARAMS, data: { name: 'chat_get_everything' } });
		expect(refused.insufficientScope).toBeUndefined();
		expect(admitCall({ byName: readOnly, catalogue }, 'chat_get')).toBe(readOnly.get('chat_get'));
	});
});

describe('a server for each caller, from one process', () => {
	let alicesWorkspace: RunningSandbox;
	let bobsWorkspace: RunningSandbox;
	const clients: Client[] = [];
	const tasks = new ToolTasks();
	beforeAll(async () => {
		[alicesWorkspace, bobsWorkspace] = await Promise.all([
			startSandbox({ chats: 3, tokens: [TOKEN], seed: 61, paceMs: 5 }),
			startSandbox({ chats: 5, tokens: [TOKEN], seed: 62, paceMs: 5 }),
		]);
	});
	afterAll(async () => {
		for (const client of clients) await client.close();
		tasks.close();
		await Promise.all([alicesWorkspace?.stop(), bobsWorkspace?.stop()]);
	});

	it('runs each call in its caller workspace with its scope; tasks and file links are the caller own', async () => {
		const all = catalogueTools();
		// Every download a link, so a link is handed out at all.
		const shared = sharedParts({ version: '0.0.0', tasks, links: new FileLinks({ timing: virtualTiming(), inlineLimitBytes: 0 }) });
		const alice = await connect(shared, {
			executor: createExecutor({ baseUrl: alicesWorkspace.url, token: TOKEN }),
			tools: selectTools(all, { toolsets: ['all'] }),
			owner: 'caller:alice',
		});
		const bob = await connect(shared, {
			executor: createExecutor({ baseUrl: bobsWorkspace.url, token: TOKEN }),
			tools: selectTools(all, { readOnly: true }),
			owner: 'caller:bob',
		});
		clients.push(alice, bob);

		expect((await structured(alice, 'chat_get_many')).items).toHaveLength(3);
		expect((await structured(bob, 'chat_get_many')).items).toHaveLength(5);
		expect((await bob.listTools()).tools.map(({ name }) => name)).not.toContain('file_upload');
		await expect(bob.callTool({ name: 'file_upload', arguments: {} })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });

		const uploaded = await structured(alice, 'file_upload', {
			file: { data: Buffer.from('for alice only').toString('base64'), filename: 'alice.txt', mimeType: 'text/plain' },
		});
		const download = await structured(alice, 'file_download', { uid: uploaded.uid });
		expect(download.uri).toMatch(/^chat-messaging-file:\/\//);
		expect((await alice.listResources()).resources.map(({ uri }) => uri)).toEqual([download.uri]);
		expect((await bob.listResources()).resources).toEqual([]);
		await expect(bob.readResource({ uri: download.uri })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
		expect((await alice.readResource({ uri: download.uri })).contents).toHaveLength(1);

		const stream = alice.experimental.tasks.callToolStream({ name: 'chat_get_many', arguments: {} }, CallToolResultSchema, {
			task: { ttl: 60_000 },
		});
		const { taskId } = ((await stream.next()).value as { task: { taskId: string } }).task;
		await stream.return(undefined);
		const finished = async (): Promise<{ status: string }> => {
			const task = await alice.experimental.tasks.getTask(taskId);
			return task.status === 'working' ? (await new Promise((resolve) => setTimeout(resolve, 50)), finished()) : task;
		};
		expect(await finished()).toMatchObject({ status: 'completed' });
		await expect(bob.experimental.tasks.getTask(taskId)).rejects.toThrow(/not found/i);
		await expect(bob.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)).rejects.toThrow(/not found/i);
		await expect(bob.experimental.tasks.cancelTask(taskId)).rejects.toThrow(/not found/i);
	});
});

describe('the task store', () => {
	const store = new ToolTasks();
	afterAll(() => store.close());

	it('keeps JSON records, an owner sees only its tasks, and a cancel by the owner stops the tracked work', async () => {
		const task = await store.create('caller:alice', { ttl: 60_000, pollInterval: 1000 });
		expect(JSON.parse(JSON.stringify(task))).toEqual(task);
		expect(task).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: 1000 });
		expect(JSON.stringify(task)).not.toContain('alice');
		const signal = store.track(task.taskId);

		expect(await store.get('caller:bob', task.taskId)).toBeUndefined();
		expect((await store.list('caller:bob')).tasks).toEqual([]);
		await expect(store.setStatus('caller:bob', task.taskId, 'cancelled')).rejects.toThrow();
		expect(signal.aborted).toBe(false);

		expect((await store.list('caller:alice')).tasks).toEqual([task]);
		await store.setStatus('caller:alice', task.taskId, 'cancelled', 'Cancelled by the client');
		expect(signal.aborted).toBe(true);
		expect(await store.get('caller:alice', task.taskId)).toMatchObject({ status: 'cancelled', statusMessage: 'Cancelled by the client' });
		// The work's late result is refused: a cancelled task keeps its status.
		await expect(store.finish('caller:alice', task.taskId, 'completed', { content: [] })).rejects.toThrow();
		store.done(task.taskId);
	});

	it('keeps a finished result for its owner only', async () => {
		const { taskId } = await store.create('caller:alice', { ttl: null, pollInterval: 1000 });
		const result = { content: [{ type: 'text' as const, text: '{}' }], structuredContent: {} };
		await expect(store.finish('caller:bob', taskId, 'completed', result)).rejects.toThrow();
		await store.finish('caller:alice', taskId, 'completed', result);
		expect(JSON.parse(JSON.stringify(await store.result('caller:alice', taskId)))).toEqual(result);
		await expect(store.result('caller:bob', taskId)).rejects.toThrow();
	});
});
