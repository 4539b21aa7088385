/**
 * The built MCP server as an MCP client runs it: the official SDK's Client, over stdio (the server spawned
 * as `npx` would start it) and over Streamable HTTP (the server spawned with --http), against the sandbox
 * on loopback. What is checked is what a model and the service see: the tools listed, a send stored once,
 * a list walked with its cursor, errors as tool errors naming the argument, and the token nowhere.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ErrorCode, type CallToolResult, type Progress, type Tool } from '@modelcontextprotocol/sdk/types.js';

import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';
import { sandboxClient } from '../../../test/support/harness';
import { builtPackage } from '../../../test/support/packages';
import { DRAFT_REPLY_PROMPT } from '../src/prompts/draftReply';
import { catalogueTools, toolName } from '../src/tools';
import { runServer, serverEnvironment, startHttpServer, stdioServer } from './support';

const TOKEN = 'mcp-test-token-7f3c91ab';
/** A client's time-out for one call, far below the waits that test it (the MCP SDK's default is 60 s). */
const CLIENT_TIMEOUT_MS = 3000;
/** The poll interval of those waits: the least Send and Wait for Reply takes. */
const POLL_MS = 1000;
const CHATS = 130; // three pages of 50: a cursor crosses page boundaries

/** Everything a client was shown, to prove the token is never in it. */
const seen: string[] = [];

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
	const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
	seen.push(JSON.stringify(result));
	return result;
}

/** A successful call's structured result. */
async function ok<T = Record<string, any>>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
	const result = await call(client, name, args);
	if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
	return result.structuredContent as T;
}

const errorText = (result: CallToolResult) => (result.content[0] as { text: string }).text;

async function serviceGet(sandbox: RunningSandbox, path: string): Promise<any> {
	const response = await fetch(`${sandbox.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
	return ((await response.json()) as { data: unknown }).data;
}

const creditsUsed = async (sandbox: RunningSandbox) => (await serviceGet(sandbox, '/_sandbox/queue')).quota.used as number;

/** Every request the service has seen (its traffic log). */
const apiCalls = async (sandbox: RunningSandbox) => (await serviceGet(sandbox, '/_sandbox/traffic')).api_calls as number;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What the service sees after a cancel: the requests from one second after it (the send or look already on its
 * way resolved) to four seconds after it. A wait that went on looking every POLL_MS would show three or more.
 */
async function requestsAfterCancel(sandbox: RunningSandbox): Promise<number> {
	await pause(1000);
	const settled = await apiCalls(sandbox);
	await pause(3000);
	return (await apiCalls(sandbox)) - settled;
}

/** Every chat id, page by page, straight from the service. */
async function allChatIds(sandbox: RunningSandbox): Promise<number[]> {
	const ids: number[] = [];
	for (let page = 1; ; page++) {
		const data = await serviceGet(sandbox, `/chats?page=${page}`);
		ids.push(...(data.chats as Array<{ id: number }>).map((chat) => chat.id));
		if (!data.has_more_pages) return ids;
	}
}

function environment(sandbox: RunningSandbox): Record<string, string> {
	// Every tool, as a deployment that turns them all on: the scopes and their defaults have tests of their own.
	return serverEnvironment(sandbox, TOKEN, { CHAT_MESSAGING_MCP_TOOLSETS: 'all' });
}

/** The tests both transports run. */
function behavesAsAnMcpServer(connect: () => { client: () => Client; sandbox: () => RunningSandbox; stderr: () => string }) {
	it('lists one tool per catalogue operation (every toolset on), with input schemas and annotations', async () => {
		const { CATALOGUE, COMPOSITES, compositeToolDescription } = await import('@chat-messaging/core');
		const { tools } = await connect().client().listTools();
		expect(tools).toHaveLength(CATALOGUE.length);
		const byName = new Map<string, Tool>(tools.map((tool) => [tool.name, tool]));

		const list = byName.get('chat_get_many')!;
		expect(list.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
		expect(list.inputSchema.properties).toHaveProperty('cursor');
		expect(list.inputSchema.properties).toHaveProperty('limit', expect.objectContaining({ type: 'integer', minimum: 1 }));
		expect(list.inputSchema.properties).not.toHaveProperty('page');
		expect(list.inputSchema.properties!.closed).toMatchObject({ type: 'boolean' });
		expect(list.inputSchema.properties!.label).toMatchObject({ type: 'array', items: { type: 'string' } });

		const send = byName.get('message_send_to_phone')!;
		expect(send.inputSchema.required).toEqual(['phone']);
		expect(send.inputSchema.properties!.phone).toMatchObject({ type: 'string', description: expect.stringContaining('country code') });
		expect(send.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
		expect(send.description).toMatch(/At least one of: text: .*file_uid: /);
		expect(list.inputSchema.properties!.output).toMatchObject({ enum: ['simplified', 'raw', 'selected'], default: 'simplified' });

		expect(byName.get('file_delete')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
		expect(byName.get('chat_update')!.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
		const invitation = byName.get('invitation_create')!;
		expect(invitation.inputSchema.properties!.role).toMatchObject({ type: 'string', enum: expect.arrayContaining(['agent']) });
		const sendTo = byName.get('message_send')!;
		expect(sendTo.inputSchema.properties!.sendTo).toMatchObject({ enum: ['phone', 'chat', 'chatName', 'jid'], default: 'phone' });
		const chatName = sendTo.inputSchema.properties!.chat_name as { description: string };
		expect(chatName.description).toContain('(sendTo phone)');
		expect(chatName.description).toContain('(sendTo chatName)');
		expect(sendTo.inputSchema.properties).toHaveProperty('waitForStatus');
		expect(sendTo.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
		expect(byName.get('message_send_and_wait_for_reply')!.inputSchema.required).toEqual(['text']);
		for (const composite of COMPOSITES) expect(byName.get(toolName(composite))!.description).toBe(compositeToolDescription(composite));
		for (const tool of tools) {
			expect(tool.name).toMatch(/^[a-z]+(_[a-z0-9]+)+$/);
			expect(tool.description).toBeTruthy();
			expect(tool.inputSchema.additionalProperties).toBe(false);
		}
	});

	it('sends a message once: the service stores exactly one', async () => {
		const { client, sandbox } = connect();
		const [chatId] = await allChatIds(sandbox());
		const before = await creditsUsed(sandbox());
		const text = `mcp send ${Math.random().toString(36).slice(2)}`;
		const sent = await ok(client(), 'message_send_to_chat', { chat_id: chatId, text });
		expect(sent.message_uid).toEqual(expect.any(String));
		expect(await creditsUsed(sandbox())).toBe(before + 1);
		const history = await serviceGet(sandbox(), `/chats/${chatId}/messages`);
		expect((history.messages as Array<{ text: string; uid: string }>).filter((message) => message.text === text)).toEqual([
			expect.objectContaining({ uid: sent.message_uid }),
		]);
	});

	it('walks a list with its cursor: every chat once, in the service order, across page boundaries', async () => {
		const { client, sandbox } = connect();
		const expected = await allChatIds(sandbox());
		const ids: number[] = [];
		let cursor: string | undefined;
		let calls = 0;
		do {
			const page = await ok<{ items: Array<{ id: number }>; nextCursor?: string }>(client(), 'chat_get_many', {
				limit: 30,
				...(cursor ? { cursor } : {}),
			});
			expect(page.items.length).toBeLessThanOrEqual(30);
			ids.push(...page.items.map((chat) => chat.id));
			cursor = page.nextCursor;
			calls++;
		} while (cursor && calls < 20);
		expect(ids).toEqual(expected);
		expect(calls).toBe(Math.ceil(expected.length / 30));

		// By default a part is small and simplified (ids always in); raw gives every field the service sent.
		const small = await ok<{ items: Array<Record<string, unknown>>; nextCursor: string }>(client(), 'chat_get_many');
		expect(small.items).toHaveLength(10);
		expect(small.nextCursor).toEqual(expect.any(String));
		const raw = await ok<{ items: Array<Record<string, unknown>> }>(client(), 'chat_get_many', { limit: 1, output: 'raw' });
		expect(Object.keys(raw.items[0]!).length).toBeGreaterThan(Object.keys(small.items[0]!).length);
		const selected = await ok<{ items: Array<Record<string, unknown>> }>(client(), 'chat_get_many', {
			limit: 1,
			output: 'selected',
			fields: ['name'],
		});
		expect(Object.keys(selected.items[0]!).sort()).toEqual(['id', 'name']);

		const first = await ok<{ items: unknown[]; nextCursor: string }>(client(), 'chat_get_many', { limit: 5, closed: false });
		const otherFilters = await call(client(), 'chat_get_many', { limit: 5, cursor: first.nextCursor });
		expect(otherFilters.isError).toBe(true);
		expect(errorText(otherFilters)).toMatch(/^cursor: /);
	});

	it('runs the composites: Send with Send To and a status to wait for, stored once; Send and Wait for Reply', async () => {
		const { client, sandbox } = connect();
		const [, chatId] = await allChatIds(sandbox());
		const before = await creditsUsed(sandbox());
		const text = `mcp composite ${Math.random().toString(36).slice(2)}`;
		const sent = await ok(client(), 'message_send', { sendTo: 'chat', chat_id: chatId, text, waitForStatus: 'sent', waitTimeout: 20 });
		expect(sent).toMatchObject({ message_uid: expect.any(String), status: expect.stringMatching(/^(sent|delivered|read)$/) });
		expect(await creditsUsed(sandbox())).toBe(before + 1);
		const missing = await call(client(), 'message_send', { sendTo: 'chat', text });
		expect(missing.isError).toBe(true);
		expect(errorText(missing)).toMatch(/^chat_id: /);

		const waited = await ok(client(), 'message_send_and_wait_for_reply', {
			sendTo: 'chat',
			chat_id: chatId,
			text: `${text} (a question)`,
			replyTimeout: 1,
			pollInterval: 1,
		});
		expect(waited).toMatchObject({ chat_id: chatId, message_uid: expect.any(String), replied: false, reply: null, timed_out: true });
		expect(await creditsUsed(sandbox())).toBe(before + 2);
	});

	it("keeps a long wait alive with progress notifications: the reply comes after the client's time-out, the call still succeeds", async () => {
		const { client, sandbox } = connect();
		const [, , chatId] = await allChatIds(sandbox());
		const progress: Progress[] = [];
		let answered = false;
		// The customer's reply, sent from the progress callback; its failure is asserted below, not lost.
		let replied: Promise<unknown> = Promise.resolve(undefined);
		// The customer answers once the server reports more than the client's 3 s time-out waited.
		const waited = (await client().callTool(
			{
				name: 'message_send_and_wait_for_reply',
				arguments: { sendTo: 'chat', chat_id: chatId, text: 'Shall we ship tomorrow?', replyTimeout: 120, pollInterval: POLL_MS / 1000 },
			},
			undefined,
			{
				timeout: CLIENT_TIMEOUT_MS,
				resetTimeoutOnProgress: true,
				onprogress: (update) => {
					progress.push(update);
					if (!answered && update.progress > CLIENT_TIMEOUT_MS + 1000) {
						answered = true;
						replied = sandboxClient(sandbox().url, TOKEN)
							.control('incoming', { chat_id: chatId, text: 'Yes, tomorrow is fine' })
							.then(
								() => undefined,
								(error: unknown) => error,
							);
					}
				},
			},
		)) as CallToolResult;
		seen.push(JSON.stringify(waited));
		expect(await replied).toBeUndefined();
		expect(waited.isError).toBeFalsy();
		// The reply is the customer's words: marked as such (untrusted.ts).
		expect(waited.structuredContent).toMatchObject({
			chat_id: chatId,
			replied: true,
			reply: { text: expect.stringMatching(/^<customer-text-[0-9a-f]+>Yes, tomorrow is fine<\/customer-text-[0-9a-f]+>$/) },
		});
		expect(answered).toBe(true);
		expect(progress.length).toBeGreaterThan(3);
		expect(progress.every((update) => update.total === 120_000)).toBe(true);
		expect(progress.map((update) => update.progress)).toEqual([...progress.map((update) => update.progress)].sort((a, b) => a - b));
		expect(progress.at(-1)!.message).toMatch(/^Waiting for the customer's reply to message \S+: \d+ s of at most 120 s, \d+ looks$/);
	});

	it('runs an operation made of several calls (File Download: the record, then its link)', async () => {
		const { client } = connect();
		const bytes = Buffer.from(`mcp download ${Math.random()}`);
		const uploaded = await ok(client(), 'file_upload', {
			file: { data: bytes.toString('base64'), filename: 'note.txt', mimeType: 'text/plain' },
		});
		const result = await call(client(), 'file_download', { uid: uploaded.uid });
		expect(result.isError).toBeFalsy();
		const resource = result.content.find((item) => item.type === 'resource') as { resource: { blob: string; mimeType: string } };
		expect(Buffer.from(resource.resource.blob, 'base64')).toEqual(bytes);
		expect(resource.resource.mimeType).toBe('text/plain');
		expect(result.structuredContent).toMatchObject({ filename: 'note.txt', size: bytes.length });
		expect(await ok(client(), 'file_delete', { uid: uploaded.uid })).toEqual({ deleted: true });
	});

	it('returns a download above 1 MB as a resource_link read through resources/read, a small one inline', async () => {
		const { client, sandbox } = connect();
		// 3 MB straight into the service (an upload through an HTTP session would pass its 4 MB body bound as base64).
		const bytes = Buffer.alloc(3 * 1024 * 1024, 0);
		for (let index = 0; index < bytes.length; index += 4096) bytes.writeUInt32BE((index * 2654435761) >>> 0, index);
		const form = new FormData();
		form.append('file', new Blob([bytes], { type: 'application/pdf' }), 'large report.pdf');
		const response = await fetch(`${sandbox().url}/files_upload`, {
			method: 'POST',
			headers: { authorization: `Bearer ${TOKEN}` },
			body: form,
		});
		const { uid } = ((await response.json()) as { data: { uid: string } }).data;

		const result = await call(client(), 'file_download', { uid });
		expect(result.isError).toBeFalsy();
		expect(result.content.map((item) => item.type)).toEqual(['text', 'resource_link']);
		const link = result.content[1] as { uri: string; name: string; mimeType: string };
		expect(link).toMatchObject({ name: 'large report.pdf', mimeType: 'application/pdf' });
		expect(link.uri).toMatch(/^chat-messaging-file:\/\/[\w-]+\/large%20report\.pdf$/);
		expect(link.uri).not.toContain(TOKEN);
		expect(link.uri).not.toContain(sandbox().url.replace(/^https?:\/\//, ''));
		expect(result.structuredContent).toMatchObject({
			filename: 'large report.pdf',
			size: bytes.length,
			uri: link.uri,
			expiresAt: expect.any(String),
		});
		// The whole result is the description and the link: not the 4 MB of base64.
		expect(JSON.stringify(result).length).toBeLessThan(10_000);

		const listed = await client().listResources();
		expect(listed.resources).toContainEqual(
			expect.objectContaining({ uri: link.uri, name: 'large report.pdf', mimeType: 'application/pdf' }),
		);
		const read = await client().readResource({ uri: link.uri });
		seen.push(JSON.stringify(read.contents.map(({ uri }) => uri)));
		expect(read.contents).toHaveLength(1);
		expect(Buffer.from((read.contents[0] as { blob: string }).blob, 'base64').equals(bytes)).toBe(true);
		await expect(client().readResource({ uri: 'chat-messaging-file://no-such-link/x.pdf' })).rejects.toMatchObject({
			code: ErrorCode.InvalidParams,
			data: { uri: 'chat-messaging-file://no-such-link/x.pdf' },
		});

		// At the limit a file stays inline.
		const small = await ok(client(), 'file_upload', {
			file: { data: Buffer.alloc(1024 * 1024, 7).toString('base64'), filename: 'one.bin', mimeType: 'application/octet-stream' },
		});
		const inline = await call(client(), 'file_download', { uid: small.uid });
		expect(inline.content.map((item) => item.type)).toEqual(['text', 'resource']);
		expect(inline.structuredContent).not.toHaveProperty('uri');
	});

	it('returns invalid input as a tool error naming the argument, and sends nothing', async () => {
		const { client, sandbox } = connect();
		const before = await creditsUsed(sandbox());
		const badPhone = await call(client(), 'message_send_to_phone', { phone: '0151 123', text: 'never sent' });
		expect(badPhone.isError).toBe(true);
		expect(errorText(badPhone)).toMatch(/^phone: /);
		const missing = await call(client(), 'message_send_to_phone', { text: 'never sent' });
		expect(missing.isError).toBe(true);
		expect(errorText(missing)).toMatch(/^phone: /);
		const unknown = await call(client(), 'message_send_to_phone', { phone: '+14155550123', txt: 'typo' });
		expect(unknown.isError).toBe(true);
		expect(errorText(unknown)).toMatch(/^txt: is not an argument/);
		const limit = await call(client(), 'chat_get_many', { limit: 0 });
		expect(errorText(limit)).toMatch(/^limit: /);
		expect(await creditsUsed(sandbox())).toBe(before);
	});

	it('returns a service error as a tool error naming the argument', async () => {
		const { client } = connect();
		const result = await call(client(), 'message_get_many', { chat_id: 987654321 });
		expect(result.isError).toBe(true);
		// Named once, by the argument and the id it gave: not "chat_id: chat_id 987654321: …".
		expect(errorText(result)).toMatch(/^chat_id 987654321: not found/);
		expect(result.structuredContent).toBeUndefined();
		expect(JSON.parse((result.content[1] as { text: string }).text)).toMatchObject({
			error: { kind: 'service', httpStatus: 404, field: 'chat_id' },
		});
	});

	it('answers an unknown tool and arguments that are no object with the protocol error -32602, running nothing', async () => {
		const { client, sandbox } = connect();
		const before = await creditsUsed(sandbox());
		const unknown = client().callTool({ name: 'chat_get_everything', arguments: {} });
		await expect(unknown).rejects.toMatchObject({ code: ErrorCode.InvalidParams, message: expect.stringContaining('chat_get_everything') });
		const malformed = client().callTool({ name: 'chat_get', arguments: 'chat_id=1' as unknown as Record<string, unknown> });
		await expect(malformed).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
		expect(await creditsUsed(sandbox())).toBe(before);
	});

	it('stops a Send and Wait for Reply the client cancels (notifications/cancelled): no request reaches the service a second after, the send kept', async () => {
		const { client, sandbox } = connect();
		const [, , , , chatId] = await allChatIds(sandbox());
		const before = await creditsUsed(sandbox());
		const cancel = new AbortController();
		const call = client().callTool(
			{
				name: 'message_send_and_wait_for_reply',
				arguments: { sendTo: 'chat', chat_id: chatId, text: 'Cancel me', replyTimeout: 120, pollInterval: POLL_MS / 1000 },
			},
			undefined,
			{ signal: cancel.signal },
		);
		await pause(2500);
		cancel.abort('the user stopped it');
		await expect(call).rejects.toThrow();
		expect(await requestsAfterCancel(sandbox())).toBe(0);
		expect(await creditsUsed(sandbox())).toBe(before + 1);
	});

	it('runs Send and Wait for Reply as a task: its id at once, working while it waits, cancelled by tasks/cancel with no request after', async () => {
		const { client, sandbox } = connect();
		const [, , , , , , , chatId] = await allChatIds(sandbox());
		const before = await creditsUsed(sandbox());
		const listed = (await client().listTools()).tools;
		expect(listed.find((tool) => tool.name === 'message_send_and_wait_for_reply')?.execution).toEqual({ taskSupport: 'optional' });
		expect(listed.find((tool) => tool.name === 'chat_get')?.execution).toBeUndefined();
		const stream = client().experimental.tasks.callToolStream(
			{
				name: 'message_send_and_wait_for_reply',
				arguments: { sendTo: 'chat', chat_id: chatId, text: 'A task for you', replyTimeout: 120, pollInterval: POLL_MS / 1000 },
			},
			CallToolResultSchema,
			{ task: { ttl: 60_000 } },
		);
		const first = await stream.next();
		expect(first.value).toMatchObject({ type: 'taskCreated', task: { status: 'working' } });
		const { taskId } = (first.value as { task: { taskId: string } }).task;
		await pause(2500);
		expect(await client().experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'working' });
		await client().experimental.tasks.cancelTask(taskId);
		expect(await client().experimental.tasks.getTask(taskId)).toMatchObject({ status: 'cancelled' });
		await stream.return(undefined);
		expect(await requestsAfterCancel(sandbox())).toBe(0);
		expect(await creditsUsed(sandbox())).toBe(before + 1);
	});

	it('runs a list as a task: created, then its result as the call would have returned it', async () => {
		const { client } = connect();
		const messages: Array<{ type: string; task?: { status: string }; result?: CallToolResult }> = [];
		for await (const message of client().experimental.tasks.callToolStream(
			{ name: 'chat_get_many', arguments: { limit: 3 } },
			CallToolResultSchema,
			{ task: { ttl: 60_000 } },
		))
			messages.push(message as (typeof messages)[number]);
		expect(messages[0]).toMatchObject({ type: 'taskCreated' });
		const last = messages[messages.length - 1]!;
		expect(last.type).toBe('result');
		expect((last.result!.structuredContent as { items: unknown[]; nextCursor: string }).items).toHaveLength(3);
		expect(last.result!.structuredContent).toHaveProperty('nextCursor');
	});

	it('never shows the token, in tool output or in what the server logs', () => {
		const { stderr } = connect();
		expect(seen.length).toBeGreaterThan(5);
		expect(seen.join('\n')).not.toContain(TOKEN);
		expect(stderr()).toContain('serving');
		expect(stderr()).not.toContain(TOKEN);
	});
}

describe('MCP server over stdio', () => {
	let sandbox: RunningSandbox;
	let client: Client;
	let stderr = () => '';
	beforeAll(async () => {
		sandbox = await startSandbox({ chats: CHATS, tokens: [TOKEN], seed: 21, paceMs: 5 });
		const started = stdioServer([], environment(sandbox));
		stderr = started.stderr;
		const transport = started.transport;
		client = new Client({ name: 'mcp-server-test', version: '1.0.0' });
		await client.connect(transport);
	});
	afterAll(async () => {
		await client?.close();
		await sandbox?.stop();
	});

	behavesAsAnMcpServer(() => ({ client: () => client, sandbox: () => sandbox, stderr }));

	it('names itself and its version', () => {
		expect(client.getServerVersion()).toMatchObject({ name: 'chat-messaging', version: builtPackage('mcp-server').version });
	});

	it('without progress the same wait times out in the client, and the cancelled call stops: no more looks, nothing sent again', async () => {
		const [, , , chatId] = await allChatIds(sandbox);
		const before = await creditsUsed(sandbox);
		const call = client.callTool(
			{
				name: 'message_send_and_wait_for_reply',
				arguments: { sendTo: 'chat', chat_id: chatId, text: 'Are you there?', replyTimeout: 120, pollInterval: POLL_MS / 1000 },
			},
			undefined,
			{ timeout: CLIENT_TIMEOUT_MS },
		);
		await expect(call).rejects.toMatchObject({ code: ErrorCode.RequestTimeout });
		// The client told the server it gave up (notifications/cancelled): the server's wait ends at its next pause.
		const traffic = async () => (await serviceGet(sandbox, '/_sandbox/traffic')).api_calls as number;
		const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
		await pause(POLL_MS); // a look already on its way when the cancel came
		const settled = await traffic();
		await pause(3 * POLL_MS);
		expect(await traffic()).toBe(settled);
		expect(await creditsUsed(sandbox)).toBe(before + 1);
	});
});

describe('MCP server over Streamable HTTP', () => {
	let sandbox: RunningSandbox;
	let server: ChildProcess;
	let client: Client;
	let endpoint: URL;
	let stderr = () => '';
	beforeAll(async () => {
		sandbox = await startSandbox({ chats: CHATS, tokens: [TOKEN], seed: 22, paceMs: 5 });
		({ server, endpoint, stderr } = await startHttpServer(['--http', '0'], environment(sandbox)));
		client = new Client({ name: 'mcp-server-test', version: '1.0.0' });
		await client.connect(new StreamableHTTPClientTransport(endpoint));
	});
	afterAll(async () => {
		await client?.close();
		server?.kill('SIGTERM');
		await sandbox?.stop();
	});

	behavesAsAnMcpServer(() => ({ client: () => client, sandbox: () => sandbox, stderr }));

	it.each([
		['without a session', 5],
		['in a session', 6],
	])('stops a call whose response stream the client closes, %s: no request reaches the service a second after', async (mode, chatIndex) => {
		const chatId = (await allChatIds(sandbox))[chatIndex];
		const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
		if (mode === 'in a session') {
			const initialized = await fetch(endpoint, {
				method: 'POST',
				headers,
				body: JSON.stringify({
					jsonrpc: '2.0',
					id: 0,
					method: 'initialize',
					params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'stream-closer', version: '1.0.0' } },
				}),
			});
			await initialized.text();
			headers['mcp-session-id'] = initialized.headers.get('mcp-session-id')!;
			headers['mcp-protocol-version'] = '2025-11-25';
			expect(headers['mcp-session-id']).toEqual(expect.any(String));
			const notified = await fetch(endpoint, {
				method: 'POST',
				headers,
				body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
			});
			expect(notified.status).toBe(202);
		}
		const before = await creditsUsed(sandbox);
		const closed = new AbortController();
		const response = await fetch(endpoint, {
			method: 'POST',
			headers,
			body: JSON.stringify({
				jsonrpc: '2.0',
				id: 1,
				method: 'tools/call',
				params: {
					name: 'message_send_and_wait_for_reply',
					arguments: { sendTo: 'chat', chat_id: chatId, text: 'Hang up on me', replyTimeout: 120, pollInterval: POLL_MS / 1000 },
				},
			}),
			signal: closed.signal,
		});
		expect(response.status).toBe(200);
		await pause(2500);
		closed.abort();
		expect(await requestsAfterCancel(sandbox)).toBe(0);
		expect(await creditsUsed(sandbox)).toBe(before + 1);
	});

	it('listens on loopback and refuses a request for another host name (DNS rebinding)', async () => {
		expect(endpoint.hostname).toBe('127.0.0.1');
		const { request } = await import('node:http');
		const status = await new Promise<number>((resolve, reject) => {
			const req = request(
				{
					host: endpoint.hostname,
					port: endpoint.port,
					path: endpoint.pathname,
					method: 'POST',
					headers: { host: 'attacker.example', 'content-type': 'application/json' },
				},
				(res) => {
					res.resume();
					resolve(res.statusCode!);
				},
			);
			req.on('error', reject);
			req.end('{}');
		});
		expect(status).toBe(403);
	});
});

describe('MCP server command line', () => {
	const run = (args: string[], env: Record<string, string>) => runServer(args, { PATH: process.env.PATH ?? '', ...env });

	it('takes the token from the environment only, and never repeats one given as an argument', async () => {
		const result = await run(['--token', TOKEN], { CHAT_MESSAGING_BASE_URL: 'http://127.0.0.1:9' });
		expect(result.code).toBe(2);
		expect(result.stderr).toContain('CHAT_MESSAGING_TOKEN');
		expect(result.stderr + result.stdout).not.toContain(TOKEN);
	});

	it('names the missing variable', async () => {
		const result = await run([], { CHAT_MESSAGING_BASE_URL: 'http://127.0.0.1:9' });
		expect(result.code).toBe(2);
		expect(result.stderr).toMatch(/^CHAT_MESSAGING_TOKEN is not set/);
	});
});

describe('MCP server README', () => {
	const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

	it('names only tools that exist', () => {
		// Besides the tools, the prompt and the protocols' own names the README uses (MCP's, OAuth's).
		const protocolNames = ['resource_link', 'invalid_redirect_uri', 'client_secret_post'];
		const names = new Set([...catalogueTools().map((tool) => tool.name), DRAFT_REPLY_PROMPT.name, ...protocolNames]);
		const named = [...readme.matchAll(/`([a-z]+(?:_[a-z0-9]+)+)`/g)].map((match) => match[1]!);
		expect(named.length).toBeGreaterThan(10);
		expect(named.filter((name) => !names.has(name))).toEqual([]);
	});

	it('configures a desktop client with npx and the two environment variables, no argument carrying them', () => {
		const block = /```json\n([\s\S]*?)```/.exec(readme)![1]!;
		const server = (JSON.parse(block) as { mcpServers: Record<string, { command: string; args: string[]; env: object }> }).mcpServers[
			'chat-messaging'
		]!;
		expect(server.command).toBe('npx');
		expect(server.args).toContain('@chat-messaging/mcp-server');
		expect(Object.keys(server.env).sort()).toEqual(['CHAT_MESSAGING_BASE_URL', 'CHAT_MESSAGING_TOKEN']);
	});
});
