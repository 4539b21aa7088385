/**
 * `@chat-messaging/mcp-server`: the Chat Messaging Service as MCP tools, over stdio (the default, for
 * desktop clients that start the server themselves) or Streamable HTTP (`--http <port>`, loopback unless
 * `--host` says otherwise). The service's base URL and token come from the environment only
 * (CHAT_MESSAGING_BASE_URL, CHAT_MESSAGING_TOKEN): arguments show in process lists and client logs.
 * Everything the server says goes to stderr; stdout belongs to the stdio protocol.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { join } from 'node:path';

import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

import { Executor, normalizeBaseUrl, pacingKey, redactText } from '@chat-messaging/core';
import { createServer } from './server';
import { fetchTransport, realTiming } from '@chat-messaging/client';

export { callTool, createServer, SERVER_NAME, type CallContext } from './server';
export { catalogueTool, catalogueTools, toolName, LIST_LIMIT, type CatalogueTool } from './tools';

export const ENV = { baseUrl: 'CHAT_MESSAGING_BASE_URL', token: 'CHAT_MESSAGING_TOKEN' } as const;

/** The path the Streamable HTTP endpoint answers on. */
export const HTTP_PATH = '/mcp';

export const USAGE = `Usage: chat-messaging-mcp-server [--http <port>] [--host <address>]

Serves the Chat Messaging Service API as MCP tools.
  (no option)        stdio, for a desktop client that starts the server itself
  --http <port>      Streamable HTTP on http://<host>:<port>${HTTP_PATH} (0: any free port)
  --host <address>   address to listen on with --http (default 127.0.0.1, loopback only)

Environment (never arguments: they show in process lists):
  ${ENV.baseUrl}   the service's base URL, e.g. https://api.example.com
  ${ENV.token}      the bearer token`;

export function packageVersion(): string {
	try {
		return (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
	} catch {
		return '0.0.0';
	}
}

/** A usage error: printed with the usage, exit code 2. */
export class UsageError extends Error {}

export interface CliOptions {
	http?: { port: number; host: string };
	help?: boolean;
	version?: boolean;
}

export function parseArguments(argv: readonly string[]): CliOptions {
	const options: CliOptions = {};
	let host: string | undefined;
	let port: number | undefined;
	for (let index = 0; index < argv.length; index++) {
		const argument = argv[index] ?? '';
		const [flag, inline] = argument.startsWith('--') && argument.includes('=') ? argument.split(/=(.*)/s, 2) : [argument, undefined];
		const value = () => {
			const given = inline ?? argv[++index];
			if (given === undefined || given === '') throw new UsageError(`${flag} needs a value`);
			return given;
		};
		switch (flag) {
			case '--http': {
				const text = value();
				port = Number(text);
				if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`--http: a port from 0 to 65535, got "${text}"`);
				break;
			}
			case '--host':
				host = value();
				break;
			case '--help':
			case '-h':
				options.help = true;
				break;
			case '--version':
				options.version = true;
				break;
			default:
				// Never echo the argument: it may be the token a user tried to pass.
				if (/token|base-?url|url/i.test(flag))
					throw new UsageError(`The base URL and token come from the environment (${ENV.baseUrl}, ${ENV.token}), not from arguments`);
				throw new UsageError('Unknown argument');
		}
	}
	if (host !== undefined && port === undefined) throw new UsageError('--host only goes with --http <port>');
	if (port !== undefined) options.http = { port, host: host ?? '127.0.0.1' };
	return options;
}

export interface Configuration {
	baseUrl: string;
	token: string;
}

/** The service's address and token from the environment; an error names the variable, never its value. */
export function configurationFromEnvironment(env: NodeJS.ProcessEnv = process.env): Configuration {
	const token = (env[ENV.token] ?? '').trim();
	const rawBaseUrl = (env[ENV.baseUrl] ?? '').trim();
	if (!rawBaseUrl) throw new UsageError(`${ENV.baseUrl} is not set: the service's base URL, e.g. https://api.example.com`);
	if (!token) throw new UsageError(`${ENV.token} is not set: the bearer token of the service`);
	let baseUrl: string;
	try {
		baseUrl = normalizeBaseUrl(rawBaseUrl);
	} catch (error) {
		throw new UsageError(`${ENV.baseUrl}: ${redactText((error as Error).message, [token])}`);
	}
	return { baseUrl, token };
}

/** The executor every tool call runs on: one per process, its pace shared per base URL and token. */
export function createExecutor(configuration: Configuration): Executor {
	return new Executor({
		baseUrl: configuration.baseUrl,
		token: configuration.token,
		transport: fetchTransport,
		timing: realTiming,
		pacingKey: pacingKey(configuration.baseUrl, configuration.token),
		// The list's window of pages is the executor's default, the nodes' 8: measured against 16 with `bench/run.ts
		// --only=list`, a 5,000-chat list in parts of 1,000 took the nodes' time either way (pacing, not the window,
		// bounds the rate), so the server keeps no number of its own.
	});
}

const log = (line: string) => process.stderr.write(`[chat-messaging-mcp] ${line}\n`);

export async function serveStdio(executor: Executor): Promise<void> {
	const server = createServer({ executor, version: packageVersion() });
	await server.connect(new StdioServerTransport());
	log(`serving ${executor.baseUrl} over stdio`);
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);
const isLoopback = (host: string) => LOOPBACK_NAMES.has(host) || /^127\./.test(host);

function hostnameOf(hostHeader: string | undefined): string | undefined {
	if (!hostHeader) return undefined;
	try {
		return new URL(`http://${hostHeader}`).hostname;
	} catch {
		return undefined;
	}
}

function refuse(res: ServerResponse, status: number, message: string): void {
	res
		.writeHead(status, { 'Content-Type': 'application/json' })
		.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/**
 * Streamable HTTP, stateless: each POST gets its own MCP server on the one executor (so the pace and
 * the memory of sends are shared). Bound to loopback, requests must name a loopback host and come from
 * no foreign origin: a web page the user visits cannot reach the server through DNS rebinding.
 */
export async function serveHttp(executor: Executor, port: number, host: string): Promise<HttpServer> {
	const version = packageVersion();
	const loopbackOnly = isLoopback(host);
	const handle = async (req: IncomingMessage, res: ServerResponse) => {
		const url = new URL(req.url ?? '/', 'http://localhost');
		if (url.pathname !== HTTP_PATH) return refuse(res, 404, `Not found: the MCP endpoint is ${HTTP_PATH}`);
		if (loopbackOnly) {
			const hostname = hostnameOf(req.headers.host);
			if (!hostname || !isLoopback(hostname)) return refuse(res, 403, 'Forbidden: Host is not a loopback address');
			const origin = req.headers.origin;
			if (origin && !isLoopback(hostnameOf(origin.replace(/^[a-z]+:\/\//i, '')) ?? ''))
				return refuse(res, 403, 'Forbidden: Origin is not a loopback address');
		}
		if (req.method !== 'POST') {
			res.setHeader('Allow', 'POST');
			return refuse(res, 405, 'Method not allowed: this server is stateless; POST JSON-RPC messages');
		}
		const server = createServer({ executor, version });
		// An event stream per call, not one JSON answer: a long wait sends progress notifications before its result.
		const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
		res.on('close', () => {
			void transport.close();
			void server.close();
		});
		await server.connect(transport);
		await transport.handleRequest(req, res);
	};
	const http = createHttpServer((req, res) => {
		handle(req, res).catch((error: unknown) => {
			log(`request failed: ${(error as Error).message}`);
			if (!res.headersSent) refuse(res, 500, 'Internal server error');
			else res.end();
		});
	});
	await new Promise<void>((resolve, reject) => {
		http.once('error', reject);
		http.listen(port, host, () => resolve());
	});
	const address = http.address();
	const shown = typeof address === 'object' && address ? address : { address: host, port };
	const where = isIP(shown.address) === 6 ? `[${shown.address}]` : shown.address;
	log(`serving ${executor.baseUrl} over Streamable HTTP at http://${where}:${shown.port}${HTTP_PATH}`);
	return http;
}

/** The command: parses the arguments, reads the environment, serves until stdin closes or a signal. */
export async function main(argv: readonly string[]): Promise<void> {
	let options: CliOptions;
	let configuration: Configuration;
	try {
		options = parseArguments(argv);
		if (options.help) return void process.stdout.write(`${USAGE}\n`);
		if (options.version) return void process.stdout.write(`${packageVersion()}\n`);
		configuration = configurationFromEnvironment();
	} catch (error) {
		if (!(error instanceof UsageError)) throw error;
		process.stderr.write(`${error.message}\n\n${USAGE}\n`);
		process.exitCode = 2;
		return;
	}
	const executor = createExecutor(configuration);
	if (options.http) {
		const http = await serveHttp(executor, options.http.port, options.http.host);
		const stop = () => http.close(() => process.exit(0));
		process.once('SIGINT', stop);
		process.once('SIGTERM', stop);
	} else {
		await serveStdio(executor);
	}
}
