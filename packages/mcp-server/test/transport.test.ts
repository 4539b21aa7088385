/**
 * The Streamable HTTP endpoint as an attacker meets it: the built server spawned with --http against the
 * sandbox, and raw HTTP requests (node:http) to its loopback listener with forged Host, Origin and
 * Authorization headers — what a web page's DNS rebinding or another host on the network would send. Each
 * request asks to list chats (a tools/call), so an answer of 200 means the service was read.
 */
import { request } from 'node:http';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import type { RunningSandbox } from '@chat-messaging/sandbox';
import { sandboxForTests, serverEnvironment, startHttpServer, type StartedHttp } from './support';

const TOKEN = 'mcp-transport-token-5d81e0';
const CLIENT_SECRET = 'mcp-client-secret-0b7f4c2e9a';
const REBIND = '127.0.0.1.rebind.attacker.example';

/** Starts the built server; resolves with its port once it serves, rejects with its output when it exits. */
const startServer = (sandbox: RunningSandbox, args: string[], env: Record<string, string> = {}): Promise<StartedHttp> =>
	startHttpServer(args, serverEnvironment(sandbox, TOKEN, env));

/** The server's exit code and what it said, when it refuses to start. */
function startRefused(
	sandbox: RunningSandbox,
	args: string[],
	env: Record<string, string> = {},
): Promise<{ code: number; stderr: string }> {
	return startServer(sandbox, args, env).then(
		(started) => {
			started.server.kill('SIGTERM');
			return { code: 0, stderr: started.stderr() };
		},
		(error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
	);
}

const LIST_CHATS = JSON.stringify({
	jsonrpc: '2.0',
	id: 1,
	method: 'tools/call',
	params: { name: 'chat_get_many', arguments: { limit: 1 } },
});

/** One raw POST to the loopback listener with the headers given (Host included, as a forged request sends it). */
function post(port: number, headers: Record<string, string>, address = '127.0.0.1'): Promise<{ status: number; body: string }> {
	return new Promise((resolve, reject) => {
		const req = request(
			{
				host: address,
				port,
				path: '/mcp',
				method: 'POST',
				headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
			},
			(res) => {
				let body = '';
				res.on('data', (chunk: Buffer) => (body += chunk.toString()));
				res.on('end', () => resolve({ status: res.statusCode!, body }));
			},
		);
		req.on('error', reject);
		req.end(LIST_CHATS);
	});
}

/** Every request's status, by what it forged: one comparison shows them all. */
async function statuses(port: number, requests: Record<string, Record<string, string>>, address?: string): Promise<Record<string, number>> {
	const result: Record<string, number> = {};
	for (const [what, headers] of Object.entries(requests)) result[what] = (await post(port, headers, address)).status;
	return result;
}

describe('Streamable HTTP transport: who may use it', () => {
	const { sandbox, closeAfter } = sandboxForTests({ chats: 3, tokens: [TOKEN], seed: 41, paceMs: 5 });
	const start = async (args: string[], env: Record<string, string> = {}) => {
		const started = await startServer(sandbox(), args, env);
		closeAfter(() => started.server.kill('SIGTERM'));
		return started;
	};

	it('on loopback, answers only requests naming a loopback host and origin, compared after parsing', async () => {
		const { port } = await start(['--http', '0']);
		expect(
			await statuses(port, {
				'Host 127.0.0.1:port': { host: `127.0.0.1:${port}` },
				'Host localhost:port, Origin http://localhost:port': { host: `localhost:${port}`, origin: `http://localhost:${port}` },
				'Host [::1]:port, Origin http://[::1]:port': { host: `[::1]:${port}`, origin: `http://[::1]:${port}` },
				'Host 127.8.9.10:port, Origin https://127.0.0.1': { host: `127.8.9.10:${port}`, origin: 'https://127.0.0.1' },
				'Host and Origin 127.0.0.1.rebind.attacker.example': { host: REBIND, origin: `http://${REBIND}` },
				'Host 127.0.0.1.rebind.attacker.example:port': { host: `${REBIND}:${port}` },
				'Host 127.0.0.1:port, Origin http://127.0.0.1.rebind.attacker.example:port': {
					host: `127.0.0.1:${port}`,
					origin: `http://${REBIND}:${port}`,
				},
				'Host localhost.attacker.example': { host: 'localhost.attacker.example' },
				'Host attacker.example': { host: 'attacker.example' },
				'Host 127.0.0.1:port, Origin null': { host: `127.0.0.1:${port}`, origin: 'null' },
				'Host 127.0.0.1:port, Origin https://attacker.example': { host: `127.0.0.1:${port}`, origin: 'https://attacker.example' },
			}),
		).toEqual({
			'Host 127.0.0.1:port': 200,
			'Host localhost:port, Origin http://localhost:port': 200,
			'Host [::1]:port, Origin http://[::1]:port': 200,
			'Host 127.8.9.10:port, Origin https://127.0.0.1': 200,
			'Host and Origin 127.0.0.1.rebind.attacker.example': 403,
			'Host 127.0.0.1.rebind.attacker.example:port': 403,
			'Host 127.0.0.1:port, Origin http://127.0.0.1.rebind.attacker.example:port': 403,
			'Host localhost.attacker.example': 403,
			'Host attacker.example': 403,
			'Host 127.0.0.1:port, Origin null': 403,
			'Host 127.0.0.1:port, Origin https://attacker.example': 403,
		});
		// What a 200 was: the list of chats, read from the service.
		expect((await post(port, { host: `127.0.0.1:${port}` })).body).toContain('"items"');
	});

	it.each([
		['::ffff:127.0.0.1', '127.0.0.1'],
		['0:0:0:0:0:0:0:1', '::1'],
	])('checks Host and Origin whatever loopback spelling it listens on (%s)', async (bind, address) => {
		const { port } = await start(['--http', '0', '--host', bind]);
		expect(
			await statuses(
				port,
				{
					'Host localhost:port': { host: `localhost:${port}` },
					'Host and Origin 127.0.0.1.rebind.attacker.example': { host: REBIND, origin: `http://${REBIND}` },
					'Host attacker.example': { host: 'attacker.example' },
				},
				address,
			),
		).toEqual({ 'Host localhost:port': 200, 'Host and Origin 127.0.0.1.rebind.attacker.example': 403, 'Host attacker.example': 403 });
	});

	it('refuses to listen beyond loopback without a client secret and lists of hosts and origins, naming what is missing', async () => {
		const bare = await startRefused(sandbox(), ['--http', '0', '--host', '0.0.0.0']);
		expect(bare.code).toBe(2);
		expect(bare.stderr).toContain('CHAT_MESSAGING_MCP_AUTH_TOKEN');
		expect(bare.stderr).toContain('--allowed-hosts');
		expect(bare.stderr).toContain('--allowed-origins');

		const noOrigins = await startRefused(sandbox(), ['--http', '0', '--host', '0.0.0.0', '--allowed-hosts', 'mcp.internal.example'], {
			CHAT_MESSAGING_MCP_AUTH_TOKEN: CLIENT_SECRET,
		});
		expect(noOrigins.code).toBe(2);
		expect(noOrigins.stderr).not.toContain('CHAT_MESSAGING_MCP_AUTH_TOKEN (');
		expect(noOrigins.stderr).not.toContain('--allowed-hosts (');
		expect(noOrigins.stderr).toContain('--allowed-origins');
		expect(noOrigins.stderr).not.toContain(CLIENT_SECRET);
	});

	it('beyond loopback, answers only the allowed hosts and origins, with the client secret, compared in full', async () => {
		const { port, stderr } = await start(
			[
				'--http',
				'0',
				'--host',
				'0.0.0.0',
				'--allowed-hosts',
				'mcp.internal.example',
				'--allowed-origins',
				'https://console.internal.example',
			],
			{ CHAT_MESSAGING_MCP_AUTH_TOKEN: CLIENT_SECRET },
		);
		const allowed = { host: 'mcp.internal.example' };
		const bearer = { authorization: `Bearer ${CLIENT_SECRET}` };
		expect(
			await statuses(port, {
				'allowed Host, no secret': allowed,
				'allowed Host, wrong secret': { ...allowed, authorization: 'Bearer mcp-client-secret-0b7f4c2e9b' },
				'allowed Host, the secret as Basic': { ...allowed, authorization: `Basic ${CLIENT_SECRET}` },
				'allowed Host, the secret': { ...allowed, ...bearer },
				'allowed Host and Origin, the secret': { ...allowed, origin: 'https://console.internal.example', ...bearer },
				'Host attacker.example, the secret': { host: 'attacker.example', ...bearer },
				'Host mcp.internal.example.attacker.example, the secret': { host: 'mcp.internal.example.attacker.example', ...bearer },
				'allowed Host, Origin https://attacker.example, the secret': { ...allowed, origin: 'https://attacker.example', ...bearer },
				'Host 127.0.0.1:port, no secret': { host: `127.0.0.1:${port}` },
			}),
		).toEqual({
			'allowed Host, no secret': 401,
			'allowed Host, wrong secret': 401,
			'allowed Host, the secret as Basic': 401,
			'allowed Host, the secret': 200,
			'allowed Host and Origin, the secret': 200,
			'Host attacker.example, the secret': 403,
			'Host mcp.internal.example.attacker.example, the secret': 403,
			'allowed Host, Origin https://attacker.example, the secret': 403,
			'Host 127.0.0.1:port, no secret': 401,
		});
		expect(stderr()).not.toContain(CLIENT_SECRET);
		expect(stderr()).not.toContain(TOKEN);

		// The official client, with the secret as a header, works as on loopback.
		const client = new Client({ name: 'mcp-transport-test', version: '1.0.0' });
		await client.connect(
			new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
				requestInit: { headers: { authorization: `Bearer ${CLIENT_SECRET}` } },
			}),
		);
		expect((await client.listTools()).tools.length).toBeGreaterThan(10);
		await client.close();
	});

	it('logs the service address as its origin only, never a path or query where a secret may be', async () => {
		const secretPath = 'pasted-secret-3a9c1f';
		const { server, stderr } = await startServer(sandbox(), ['--http', '0'], {
			CHAT_MESSAGING_BASE_URL: `${sandbox().url}/?key=${secretPath}`,
		});
		closeAfter(() => server.kill('SIGTERM'));
		const line = stderr();
		expect(line).not.toContain(secretPath);
		expect(line).toContain(`serving ${new URL(sandbox().url).origin} over Streamable HTTP`);
	});
});
