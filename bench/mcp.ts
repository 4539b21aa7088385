/**
 * The MCP server as an agent's host runs it: the built package's command spawned over stdio, driven by the official
 * SDK's Client. Lists walk the tool's cursor; sends are tool calls issued at once (an agent runtime running tool calls in
 * parallel), each its own request through the server's one executor.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { builtPackage } from '../test/support/packages';

/** Records per list call: the tool's maximum, so 5,000 chats take 5 calls with a cursor. */
export const MCP_LIST_LIMIT = 1000;
/** Long enough for 1,000 paced sends in flight at once (about 36 s at the allowance). */
const CALL_TIMEOUT_MS = 600_000;

/** The built package's command, or MCP_SERVER_CLI (another build's dist/cli.js, to measure it before a change). */
const cli = () => process.env.MCP_SERVER_CLI || join(builtPackage('mcp-server').dir, 'dist', 'cli.js');

/** Resident and peak memory of a process (Linux /proc), in MB. */
export function memoryOf(pid: number): { rssMb: number; peakMb: number } {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
	return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

export class McpStdioServer {
	private constructor(
		readonly client: Client,
		private readonly transport: StdioClientTransport,
	) {}

	/** Spawns the built server and connects; `ms` is the cold start, from spawn to the tool list received. */
	static async start(baseUrl: string, token: string): Promise<{ server: McpStdioServer; ms: number; tools: number }> {
		const started = performance.now();
		const transport = new StdioClientTransport({
			command: process.execPath,
			// Every tool, as the figures recorded before scopes were measured (the single sends are off by default).
			args: [cli(), '--toolsets', 'all'],
			env: { PATH: process.env.PATH ?? '', CHAT_MESSAGING_BASE_URL: baseUrl, CHAT_MESSAGING_TOKEN: token },
			stderr: 'ignore',
		});
		const client = new Client({ name: 'chat-messaging-bench', version: '1.0.0' });
		await client.connect(transport);
		const { tools } = await client.listTools();
		return { server: new McpStdioServer(client, transport), ms: performance.now() - started, tools: tools.length };
	}

	/**
	 * One small call first, as a host's first tool call would be: the benchmarks measure a running server (its
	 * start is measured on its own, mcpColdStart), not the compilation of its first call.
	 */
	async warmUp(): Promise<void> {
		await this.call('chat_get_many', { limit: 1 });
	}

	get pid(): number {
		return this.transport.pid!;
	}

	async call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
		const result = (await this.client.callTool({ name, arguments: args }, undefined, {
			timeout: CALL_TIMEOUT_MS,
		})) as CallToolResult;
		if (result.isError) throw new Error(`MCP ${name} failed: ${JSON.stringify(result.content).slice(0, 300)}`);
		return result.structuredContent as Record<string, unknown>;
	}

	/** Every chat, walking chat_get_many's cursor. */
	async listAllChats(): Promise<number[]> {
		const ids: number[] = [];
		let cursor: string | undefined;
		do {
			const page = (await this.call('chat_get_many', { limit: MCP_LIST_LIMIT, ...(cursor ? { cursor } : {}) })) as {
				items: Array<{ id: number }>;
				nextCursor?: string;
			};
			for (const chat of page.items) ids.push(chat.id);
			cursor = page.nextCursor;
		} while (cursor);
		return ids;
	}

	/** Sends into chats, all calls at once; the number answered with a message uid. */
	async sendAll(sends: Array<{ chatId: number; text: string }>): Promise<number> {
		const results = await Promise.all(sends.map((send) => this.call('message_send_to_chat', { chat_id: send.chatId, text: send.text })));
		return results.filter((sent) => typeof sent.message_uid === 'string').length;
	}

	async stop(): Promise<void> {
		await this.client.close();
	}
}

/** Cold start of the MCP server (spawn to tools listed) and its memory once idle; nothing is called on the service. */
export async function mcpColdStart(): Promise<{ ms: number; rssMb: number; tools: number }> {
	// A loopback address nothing listens on: starting and listing tools send no request.
	const { server, ms, tools } = await McpStdioServer.start('http://127.0.0.1:9', 'cold-start-token');
	try {
		return { ms, rssMb: memoryOf(server.pid).rssMb, tools };
	} finally {
		await server.stop();
	}
}

/** `node -e ''`'s resident memory, to read the server's against. */
export function bareNodeRssMb(): Promise<number> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 500)'], { stdio: 'ignore' });
		setTimeout(() => {
			try {
				resolve(memoryOf(child.pid!).rssMb);
			} catch (error) {
				reject(error as Error);
			} finally {
				child.kill();
			}
		}, 300);
	});
}
