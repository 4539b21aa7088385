/**
 * What limits an agent, as an MCP client meets it: the built server over stdio with the official SDK client,
 * against the sandbox. Scopes (toolsets, read-only, tools by name, each from a flag or the environment) and
 * what their tool lists cost; annotations derived from the catalogue; a person's confirmation, through form
 * elicitation, before what cannot be undone; and no secret (the token, a receiver's secret) in any result of
 * any tool in a full run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
	ElicitRequestSchema,
	ErrorCode,
	type CallToolResult,
	type ElicitRequest,
	type ElicitResult,
	type Tool,
} from '@modelcontextprotocol/sdk/types.js';

import { CATALOGUE, isComposite, type CatalogueOperation } from '@chat-messaging/core';
import type { RunningSandbox } from '@chat-messaging/sandbox';
import { toolName } from '../src/tools';
import { runServer, sandboxForTests, serverEnvironment, startHttpServer, stdioServer } from './support';

const TOKEN = 'mcp-agents-token-c4e7a1';
/** Receivers' secrets as the n8n trigger and the Node-RED event node put them in their addresses. */
const N8N_SECRET = '9f1c2b7d4e6a8f0c3b5d7e9a1c2b4d6f8e0a2c4d';
const NODE_RED_SECRET = 'c0ffee42'.repeat(6);
const N8N_RECEIVER = `http://127.0.0.1:9/webhook/4b1e6a52-0c3d-4f7e-9a8b-2d5c6e7f8a9b/chat-messaging?secret=${N8N_SECRET}`;
const NODE_RED_RECEIVER = `http://127.0.0.1:9/chat-messaging/events/n1/${NODE_RED_SECRET}`;

interface Connected {
	client: Client;
	/** What the client was asked to confirm, in order. */
	asked: ElicitRequest['params'][];
	stderr: () => string;
}

/**
 * The server spawned as a desktop client starts it, with these arguments and environment; a client that
 * declares form elicitation answers each request with the next of `answers`.
 */
async function connect(
	sandbox: RunningSandbox,
	args: string[],
	env: Record<string, string> = {},
	answers?: ElicitResult[],
): Promise<Connected> {
	const { transport, stderr } = stdioServer(args, serverEnvironment(sandbox, TOKEN, env));
	const client = new Client({ name: 'mcp-agents-test', version: '1.0.0' }, answers ? { capabilities: { elicitation: { form: {} } } } : {});
	const asked: ElicitRequest['params'][] = [];
	if (answers)
		client.setRequestHandler(ElicitRequestSchema, (request) => {
			asked.push(request.params);
			return answers.shift() ?? { action: 'decline' };
		});
	await client.connect(transport);
	return { client, asked, stderr };
}

const names = (tools: Tool[]) => tools.map((tool) => tool.name);
/** The tool list in tokens, as a client puts it in a model's context: the JSON of tools/list, characters / 4. */
const tokens = (tools: Tool[]) => Math.round(JSON.stringify({ tools }).length / 4);

const byTool = new Map<string, CatalogueOperation>(CATALOGUE.map((op) => [toolName(op), op]));
const isRead = (op: CatalogueOperation) => op.effect === 'read';
const resourceOf = (op: CatalogueOperation) => op.resource;

describe('scopes: which tools a session gets', () => {
	const { sandbox, closeAfter } = sandboxForTests({ chats: 3, tokens: [TOKEN], seed: 51, paceMs: 5 });
	const listed = async (args: string[], env: Record<string, string> = {}) => {
		const { client } = await connect(sandbox(), args, env);
		closeAfter(() => client.close());
		return { client, tools: (await client.listTools()).tools };
	};

	it('by default: every toolset but webhooks and invitations, and one Send for the four single sends', async () => {
		const { client, tools } = await listed([]);
		const expected = CATALOGUE.filter(
			(op) =>
				op.resource !== 'webhook' &&
				op.resource !== 'invitation' &&
				!(op.resource === 'message' && !isComposite(op) && 'sendsMessage' in op && op.sendsMessage === true),
		).map(toolName);
		expect(names(tools)).toEqual(expected);
		expect(names(tools)).toContain('message_send');
		expect(names(tools).filter((name) => /^(webhook|invitation)_/.test(name))).toEqual([]);
		// A tool left out cannot be called either.
		await expect(client.callTool({ name: 'webhook_create', arguments: { url: N8N_RECEIVER } })).rejects.toMatchObject({
			code: ErrorCode.InvalidParams,
		});
		expect(
			(await (await fetch(`${sandbox().url}/webhooks`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as object,
		).toMatchObject({
			data: { webhooks: [] },
		});
	});

	it('--read-only (or its variable): only the tools that read, each marked read-only', async () => {
		const { tools } = await listed(['--read-only']);
		const { tools: fromEnv } = await listed([], { CHAT_MESSAGING_MCP_READ_ONLY: 'true' });
		expect(names(fromEnv)).toEqual(names(tools));
		expect(names(tools)).toEqual(CATALOGUE.filter((op) => isRead(op) && !['webhook', 'invitation'].includes(resourceOf(op))).map(toolName));
		for (const tool of tools) expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
		const { tools: allRead } = await listed(['--read-only', '--toolsets', 'all']);
		expect(names(allRead)).toEqual(CATALOGUE.filter(isRead).map(toolName));
	});

	it('--toolsets, --tools and --exclude-tools (or their variables) pick tools by group and by name', async () => {
		const { tools: webhooks } = await listed(['--toolsets', 'webhooks']);
		expect(names(webhooks)).toEqual(CATALOGUE.filter((op) => op.resource === 'webhook').map(toolName));
		const { tools: team } = await listed([], { CHAT_MESSAGING_MCP_TOOLSETS: 'team,workspace' });
		expect(names(team)).toEqual(['account_get_many', 'workspace_get', 'teammate_get_many', 'invitation_create', 'invitation_revoke']);
		const { tools: some } = await listed(['--tools', 'chat_get,label_add']);
		expect(names(some)).toEqual(['chat_get', 'label_add']);
		const { tools: more } = await listed(['--toolsets', 'default,webhooks', '--exclude-tools', 'webhook_delete,file_delete']);
		expect(names(more)).toContain('webhook_create');
		expect(names(more)).not.toContain('webhook_delete');
		expect(names(more)).not.toContain('file_delete');
		const { tools: excludedByEnv } = await listed(['--toolsets', 'all'], { CHAT_MESSAGING_MCP_EXCLUDE_TOOLS: 'chat_close' });
		expect(names(excludedByEnv)).toHaveLength(CATALOGUE.length - 1);
		// An option given wins over its variable.
		const { tools: flagWins } = await listed(['--tools', 'chat_get'], { CHAT_MESSAGING_MCP_TOOLS: 'label_get' });
		expect(names(flagWins)).toEqual(['chat_get']);
	});

	it('refuses a toolset or a tool that does not exist, naming it and what exists', async () => {
		const run = (args: string[]) => runServer(args, serverEnvironment(sandbox(), TOKEN));
		const toolset = await run(['--toolsets', 'chats,hooks']);
		expect(toolset.code).toBe(2);
		expect(toolset.stderr).toMatch(/^toolsets: no "hooks"; choose from default, all, chats, labels, /);
		const tool = await run(['--exclude-tools', 'chat_delete']);
		expect(tool.code).toBe(2);
		expect(tool.stderr).toMatch(/^exclude-tools: no "chat_delete"/);
	});

	it('costs at most 4.5k tokens read-only and 11.5k by default with --no-output-schemas (or its variable), as the README table says', async () => {
		const measured: Record<string, { tools: number; tokens: number; inputOnly: number }> = {};
		for (const [mode, args] of [
			['default', []],
			['read-only', ['--read-only']],
			['all', ['--toolsets', 'all']],
		] as const) {
			const { tools } = await listed([...args]);
			const { tools: withoutSchemas } = await listed([...args, '--no-output-schemas']);
			expect(withoutSchemas.filter((tool) => tool.outputSchema)).toEqual([]);
			expect(withoutSchemas.map(({ name }) => name)).toEqual(tools.map(({ name }) => name));
			measured[mode] = { tools: tools.length, tokens: tokens(tools), inputOnly: tokens(withoutSchemas) };
		}
		const { tools: fromEnvironment } = await listed(['--read-only'], { CHAT_MESSAGING_MCP_NO_OUTPUT_SCHEMAS: 'true' });
		expect(tokens(fromEnvironment)).toBe(measured['read-only']!.inputOnly);
		expect(measured['read-only']!.inputOnly).toBeLessThanOrEqual(4500);
		expect(measured.default!.inputOnly).toBeLessThanOrEqual(11500);
		const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
		for (const [mode, { tools, tokens: count, inputOnly }] of Object.entries(measured))
			expect(readme).toContain(`| ${mode} | ${tools} | ${count.toLocaleString('en-US')} | ${inputOnly.toLocaleString('en-US')} |`);
	});
});

describe('annotations: derived from the catalogue', () => {
	const { sandbox, closeAfter } = sandboxForTests({ chats: 1, tokens: [TOKEN], seed: 52, paceMs: 5 });
	let client: Client;
	beforeAll(async () => {
		client = (await connect(sandbox(), ['--toolsets', 'all'])).client;
		closeAfter(() => client.close());
	});

	it("every tool's hints follow its effect: read-only for reads, destructive unless it only reads or adds, idempotent unless it creates", async () => {
		const { tools } = await client.listTools();
		expect(tools).toHaveLength(CATALOGUE.length);
		for (const tool of tools) {
			const op = byTool.get(tool.name)!;
			const adds = op.effect === 'create' || ('additive' in op && op.additive === true);
			expect({ tool: tool.name, ...tool.annotations }).toEqual({
				tool: tool.name,
				readOnlyHint: op.effect === 'read',
				destructiveHint: op.effect !== 'read' && !adds,
				idempotentHint: op.effect !== 'create',
				openWorldHint: true,
			});
		}
		const hints = new Map(tools.map((tool) => [tool.name, tool.annotations!]));
		// Updates overwrite (a chat's name, its agent, a subscription's address): destructive, as the MCP default reads.
		for (const name of ['chat_update', 'chat_assign', 'chat_close', 'webhook_update', 'label_replace', 'reaction_set', 'file_delete'])
			expect([name, hints.get(name)!.destructiveHint]).toEqual([name, true]);
		// Only what adds is not: a send, labels kept with the others, a note, an upload.
		for (const name of ['message_send', 'message_send_to_phone', 'label_add', 'note_add', 'file_upload', 'webhook_create'])
			expect([name, hints.get(name)!.destructiveHint]).toEqual([name, false]);
	});
});

describe('confirmation: a person says yes before what cannot be undone', () => {
	const { sandbox, closeAfter } = sandboxForTests({ chats: 2, tokens: [TOKEN], seed: 53, paceMs: 5 });
	const session = async (args: string[], answers?: ElicitResult[]) => {
		const connected = await connect(sandbox(), args, {}, answers);
		closeAfter(() => connected.client.close());
		return connected;
	};
	const upload = async (client: Client) => {
		const result = (await client.callTool({
			name: 'file_upload',
			arguments: { file: { data: Buffer.from('confirm me').toString('base64'), filename: 'contract.txt' } },
		})) as CallToolResult;
		return (result.structuredContent as { uid: string }).uid;
	};
	const fileExists = async (uid: string) =>
		(await fetch(`${sandbox().url}/files/${uid}`, { headers: { authorization: `Bearer ${TOKEN}` } })).status === 200;

	it('asks through form elicitation, naming the target; declined or unticked, nothing changes', async () => {
		const { client, asked } = await session(
			[],
			[
				{ action: 'decline' },
				{ action: 'accept', content: { confirm: false } },
				{ action: 'cancel' },
				{ action: 'accept', content: { confirm: true } },
			],
		);
		const uid = await upload(client);
		expect(asked).toEqual([]); // an upload only adds: nobody is asked
		for (let attempt = 0; attempt < 3; attempt++) {
			const refused = (await client.callTool({ name: 'file_delete', arguments: { uid } })) as CallToolResult;
			expect(refused.isError).toBe(true);
			expect((refused.content[0] as { text: string }).text).toMatch(/did not confirm file_delete: nothing was changed/);
			expect(await fileExists(uid)).toBe(true);
		}
		const deleted = (await client.callTool({ name: 'file_delete', arguments: { uid } })) as CallToolResult;
		expect(deleted.isError).toBeFalsy();
		expect(await fileExists(uid)).toBe(false);
		expect(asked).toHaveLength(4);
		expect(asked[0]).toMatchObject({
			mode: 'form',
			requestedSchema: { properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
		});
		expect(asked[0]!.message).toContain(`File UID: ${uid}`);
		expect(asked[0]!.message).toMatch(/^An AI agent asks to delete a file .*This cannot be undone/);
	});

	it('asks for Replace All, Remove All and every webhook change, a receiver shown without its secret; not for what only adds', async () => {
		const { client, asked } = await session(['--toolsets', 'all'], []);
		const chat = ((await client.callTool({ name: 'chat_get_many', arguments: { limit: 1 } })) as CallToolResult).structuredContent as {
			items: Array<{ id: number }>;
		};
		const chatId = chat.items[0]!.id;
		await client.callTool({ name: 'label_add', arguments: { chat_id: chatId, labels: ['vip'] } });
		await client.callTool({ name: 'note_add', arguments: { chat_id: chatId, text: 'a note' } });
		expect(asked).toEqual([]);
		const labelsNow = async () =>
			(await (await fetch(`${sandbox().url}/chats/${chatId}/labels`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as unknown;
		const before = await labelsNow();
		expect(JSON.stringify(before)).toContain('vip');
		for (const [name, args] of [
			['label_replace', { chat_id: chatId, labels: ['gold'] }],
			['label_remove_all', { chat_id: chatId }],
			['webhook_create', { url: N8N_RECEIVER, event_type: 'message:received:new' }],
			['webhook_update', { id: 1, enabled: false }],
			['webhook_delete', { id: 1 }],
			['invitation_create', { email: 'new.admin@example.com', role: 'admin' }],
			['invitation_revoke', { user_id: 'u-1' }],
		] as const)
			expect(((await client.callTool({ name, arguments: args })) as CallToolResult).isError).toBe(true);
		expect(asked.map((request) => request.message.replace(/ \(.*\)/, ''))).toHaveLength(7);
		expect(asked[2]!.message).toContain('URL: http://127.0.0.1:9/webhook/…/chat-messaging?…');
		expect(asked.map((request) => request.message).join('\n')).not.toContain(N8N_SECRET);
		expect(asked[5]!.message).toContain('Role: admin');
		expect(await labelsNow()).toEqual(before);
	});

	it('asks over Streamable HTTP too: a client that initialized a session answers within the call', async () => {
		const { server, endpoint } = await startHttpServer(['--http', '0'], serverEnvironment(sandbox(), TOKEN));
		try {
			const asked: ElicitRequest['params'][] = [];
			const answers: ElicitResult[] = [{ action: 'decline' }, { action: 'accept', content: { confirm: true } }];
			const client = new Client({ name: 'mcp-agents-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
			client.setRequestHandler(ElicitRequestSchema, (request) => {
				asked.push(request.params);
				return answers.shift() ?? { action: 'decline' };
			});
			await client.connect(new StreamableHTTPClientTransport(endpoint));
			const uid = await upload(client);
			const refused = (await client.callTool({ name: 'file_delete', arguments: { uid } })) as CallToolResult;
			expect(refused.isError).toBe(true);
			expect(await fileExists(uid)).toBe(true);
			expect(((await client.callTool({ name: 'file_delete', arguments: { uid } })) as CallToolResult).isError).toBeFalsy();
			expect(await fileExists(uid)).toBe(false);
			expect(asked).toHaveLength(2);
			expect(asked[0]!.message).toContain(uid);
			await client.close();
		} finally {
			server.kill('SIGTERM');
		}
	});

	it('--no-confirm (or its variable) runs them without asking; a client without elicitation gets the tool as it is', async () => {
		const { client, asked } = await session(['--no-confirm'], []);
		const uid = await upload(client);
		expect(((await client.callTool({ name: 'file_delete', arguments: { uid } })) as CallToolResult).isError).toBeFalsy();
		expect(asked).toEqual([]);
		expect(await fileExists(uid)).toBe(false);

		const { client: plain } = await session([]);
		const other = await upload(plain);
		expect(((await plain.callTool({ name: 'file_delete', arguments: { uid: other } })) as CallToolResult).isError).toBeFalsy();
		expect(await fileExists(other)).toBe(false);
	});
});

describe('no secret to a model: every tool in a full run', () => {
	const { sandbox, closeAfter } = sandboxForTests({ chats: 3, tokens: [TOKEN], seed: 54, paceMs: 5 });
	let connected: Connected;
	const results: Array<{ tool: string; text: string }> = [];
	beforeAll(async () => {
		connected = await connect(sandbox(), ['--toolsets', 'all', '--no-confirm']);
		closeAfter(() => connected.client.close());
	});

	it("runs every tool; no result holds the token or a receiver's secret, and receivers show where they point", async () => {
		const { client } = connected;
		const call = async (name: string, args: Record<string, unknown> = {}) => {
			const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
			results.push({ tool: name, text: JSON.stringify(result) });
			return result;
		};
		const data = async <T = Record<string, any>>(name: string, args: Record<string, unknown> = {}): Promise<T> => {
			const result = await call(name, args);
			if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
			return result.structuredContent as T;
		};
		// Subscriptions pointing at receivers that keep their secrets in the address, as the n8n trigger and the Node-RED event node do.
		const n8nHook = await data('webhook_create', { url: N8N_RECEIVER, event_type: 'message:received:new' });
		const nodeRedHook = await data('webhook_create', { url: NODE_RED_RECEIVER, event_type: 'chat:created' });
		const chats = (await data<{ items: Array<Record<string, any>> }>('chat_get_many', { limit: 3, output: 'raw' })).items;
		const [first, second] = chats as [Record<string, any>, Record<string, any>];
		const teammates = await data<{ items: Array<Record<string, any>> }>('teammate_get_many', { output: 'raw' });
		const email = teammates.items[0]!.email as string;
		await data('chat_get', { chat_id: first.id });
		await data('chat_update', { chat_id: first.id, name: 'Renamed' });
		await data('chat_close', { chat_id: first.id });
		await data('chat_reopen', { chat_id: first.id });
		await data('chat_assign', { chat_id: first.id, responsible: email });
		await data('chat_unassign', { chat_id: first.id });
		await data('chat_mark_read', { chat_id: first.id });
		await data('chat_mark_unread', { chat_id: first.id });
		await data('chat_rename', { chat_id: first.id, name: 'Again' });
		await data('chat_set_ai_autoresponse', { chat_id: first.id, ai_autoresponse_enabled: false });
		await data('label_add', { chat_id: first.id, labels: ['a', 'b'] });
		await data('label_get', { chat_id: first.id });
		await data('label_remove', { chat_id: first.id, labels: ['a'] });
		await data('label_replace', { chat_id: first.id, labels: ['c'] });
		await data('label_remove_all', { chat_id: first.id });
		await data('note_add', { chat_id: first.id, text: 'a note' });
		const sent = await data('message_send_to_chat', { chat_id: first.id, text: 'hello' });
		await data('message_send_to_phone', { phone: String(second.phone), text: 'hello' });
		await data('message_send_to_chat_name', { chat_name: String(second.name), text: 'hello' });
		await data('message_send_to_jid', { jid: String(second.jid), text: 'hello' });
		await data('message_send', { sendTo: 'chat', chat_id: second.id, text: 'hello again' });
		await data('message_send_and_wait_for_reply', {
			sendTo: 'chat',
			chat_id: second.id,
			text: 'question?',
			replyTimeout: 1,
			pollInterval: 1,
		});
		await data('message_get', { message_uid: sent.message_uid });
		await data('message_get_status_history', { message_uid: sent.message_uid });
		await data('message_get_many', { chat_id: first.id });
		await data('message_get_conversation', { chat_id: first.id });
		await call('reaction_get', { uid: sent.message_uid });
		await call('reaction_set', { uid: sent.message_uid, reaction: '👍' });
		await call('reaction_remove', { uid: sent.message_uid });
		const file = await data('file_upload', { file: { data: Buffer.from('bytes').toString('base64'), filename: 'a.txt' } });
		await data('file_upload_from_url', { download_url: 'https://files.example.com/report.pdf' });
		await data('file_get_many');
		await data('file_get', { uid: file.uid });
		await call('file_download', { uid: file.uid });
		await data('file_delete', { uid: file.uid });
		await data('account_get_many');
		await data('workspace_get');
		const invited = await data('invitation_create', { email: 'someone.new@example.com', role: 'agent' });
		await data('invitation_revoke', { user_id: invited.user_id });
		const hooks = await data<{ items: Array<{ url: string }> }>('webhook_get_many');
		await data('webhook_get', { id: n8nHook.id });
		await data('webhook_update', { id: nodeRedHook.id, url: `${NODE_RED_RECEIVER}?again=${NODE_RED_SECRET}` });
		await data('webhook_delete', { id: n8nHook.id });
		// Errors too: a subscription that does not exist.
		await call('webhook_get', { id: 987654 });

		expect([...new Set(results.map((result) => result.tool))].sort()).toEqual(CATALOGUE.map(toolName).sort());
		const leaks = results.filter(({ text }) => [TOKEN, N8N_SECRET, NODE_RED_SECRET].some((secret) => text.includes(secret)));
		expect(leaks.map((leak) => leak.tool)).toEqual([]);
		// Masked, not dropped: an agent still sees which receiver a subscription points at.
		expect(hooks.items.map((hook) => hook.url).sort()).toEqual([
			'http://127.0.0.1:9/chat-messaging/events/n1/…',
			'http://127.0.0.1:9/webhook/…/chat-messaging?…',
		]);
		// The service still holds the real addresses: only what the agent reads is masked.
		const stored = await (await fetch(`${sandbox().url}/webhooks`, { headers: { authorization: `Bearer ${TOKEN}` } })).json();
		expect(JSON.stringify(stored)).toContain(NODE_RED_SECRET);
		expect(connected.stderr()).not.toContain(TOKEN);
	});
});
