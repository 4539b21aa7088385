/**
 * `@chat-messaging/mcp-server`: the Chat Messaging Service as MCP tools, over stdio (the default, for
 * desktop clients that start the server themselves) or Streamable HTTP (`--http <port>`, loopback unless
 * `--host` says otherwise). The service's base URL and token come from the environment only
 * (CHAT_MESSAGING_BASE_URL, CHAT_MESSAGING_TOKEN): arguments show in process lists and client logs.
 * Everything the server says goes to stderr; stdout belongs to the stdio protocol.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { join } from 'node:path';

import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';

import { Executor, FileLinks, INLINE_DOWNLOAD_LIMIT_BYTES, normalizeBaseUrl, pacingKey, redactText, TOOLSETS } from '@chat-messaging/core';
import { createServer } from './server';
import { ToolTasks } from './tasks';
import { speaksModern } from './era';
import type { modernLeg } from './modernHttp';
import { serveBothEras } from './stdio';
import { STDIO_OWNER, taskOwnerOf } from './taskOwner';
import { fetchTransport, realTiming } from '@chat-messaging/client';
import { missingForAddress, parseHost, parseOrigin, refusal, type AccessRules, type HostAndPort } from './access';
import { ALL_TOOLSETS, DEFAULT_TOOLSET, listOf, ScopeError, selectTools, type ToolScope } from './scopes';
import { catalogueTools, type CatalogueTool } from './tools';

export { callTool, createServer, SERVER_NAME, type CallContext } from './server';
export { ToolTasks } from './tasks';
export { confirmationMessage, CONFIRM_FIELD } from './confirm';
export { annotationsOf, catalogueTool, catalogueTools, toolName, LIST_LIMIT, type CatalogueTool } from './tools';
export { selectTools, type ToolScope } from './scopes';
export { isLoopbackName, refusal } from './access';

export const ENV = {
	baseUrl: 'CHAT_MESSAGING_BASE_URL',
	token: 'CHAT_MESSAGING_TOKEN',
	/** The bearer secret HTTP clients must send; required to listen anywhere but loopback. */
	authToken: 'CHAT_MESSAGING_MCP_AUTH_TOKEN',
	allowedHosts: 'CHAT_MESSAGING_MCP_ALLOWED_HOSTS',
	allowedOrigins: 'CHAT_MESSAGING_MCP_ALLOWED_ORIGINS',
	readOnly: 'CHAT_MESSAGING_MCP_READ_ONLY',
	toolsets: 'CHAT_MESSAGING_MCP_TOOLSETS',
	tools: 'CHAT_MESSAGING_MCP_TOOLS',
	excludeTools: 'CHAT_MESSAGING_MCP_EXCLUDE_TOOLS',
	noConfirm: 'CHAT_MESSAGING_MCP_NO_CONFIRM',
	inlineFileLimit: 'CHAT_MESSAGING_MCP_INLINE_FILE_LIMIT',
	noOutputSchemas: 'CHAT_MESSAGING_MCP_NO_OUTPUT_SCHEMAS',
} as const;

/** The path the Streamable HTTP endpoint answers on. */
export const HTTP_PATH = '/mcp';

export const USAGE = `Usage: chat-messaging-mcp-server [options]

Serves the Chat Messaging Service API as MCP tools.
  (no option)                stdio, for a desktop client that starts the server itself
  --http <port>              Streamable HTTP on http://<host>:<port>${HTTP_PATH} (0: any free port)
  --host <address>           address to listen on with --http (default 127.0.0.1, loopback only); any other
                             address needs ${ENV.authToken}, --allowed-hosts and --allowed-origins
  --allowed-hosts <list>     Host names (name or name:port) requests may name besides loopback
  --allowed-origins <list>   browser Origins (https://app.example.com) allowed besides loopback; "none" for none
  --read-only                only the tools that read
  --toolsets <list>          ${[DEFAULT_TOOLSET, ALL_TOOLSETS, ...TOOLSETS].join(', ')} (default: ${DEFAULT_TOOLSET},
                             every toolset without the administrative tools: webhooks, invitations)
  --tools <list>             tools by name (alone: only these; with --toolsets: added)
  --exclude-tools <list>     tools by name to leave out
  --no-confirm               run deletes, Replace All, Remove All and administrative changes without asking the user
  --no-output-schemas        tools/list without each tool's outputSchema (about 40% fewer tokens in a model's context;
                             results keep their structuredContent)
  --inline-file-limit <bytes> downloads up to this size come inline in the result; larger ones as a resource_link
                             read through resources/read for 15 minutes (default ${INLINE_DOWNLOAD_LIMIT_BYTES}, 1 MB)

Environment (never arguments for secrets: they show in process lists):
  ${ENV.baseUrl}          the service's base URL, e.g. https://api.example.com
  ${ENV.token}             the bearer token
  ${ENV.authToken}    the secret HTTP clients send as "Authorization: Bearer …"
  ${ENV.allowedHosts}, ${ENV.allowedOrigins}, ${ENV.readOnly} (true),
  ${ENV.toolsets}, ${ENV.tools}, ${ENV.excludeTools}, ${ENV.noConfirm} (true),
  ${ENV.noOutputSchemas} (true), ${ENV.inlineFileLimit}:
  the options above, for clients that pass environment rather than arguments (an option given wins)`;

export function packageVersion(): string {
	try {
		return (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
	} catch {
		return '0.0.0';
	}
}

/** A usage error: printed with the usage, exit code 2. */
export class UsageError extends Error {}

export interface HttpOptions {
	port: number;
	host: string;
	/** `--allowed-hosts`: names (or name:port) besides loopback. */
	allowedHosts: HostAndPort[];
	/** `--allowed-origins`: origins besides loopback; undefined when not given at all ("none" gives []). */
	allowedOrigins?: string[];
}

export interface CliOptions {
	http?: HttpOptions;
	scope: ToolScope;
	/** False with --no-confirm. */
	confirm: boolean;
	/** --inline-file-limit: the largest download returned inline, in bytes. */
	inlineFileLimit: number;
	/** False with --no-output-schemas. */
	outputSchemas: boolean;
	help?: boolean;
	version?: boolean;
}

const truthy = (text: string | undefined) => /^(1|true|yes|on)$/i.test((text ?? '').trim());

function hostsOf(option: string, text: string): HostAndPort[] {
	return listOf(text).map((entry) => {
		const parsed = parseHost(entry);
		if (!parsed) throw new UsageError(`${option}: "${entry}" is not a host name (name or name:port)`);
		return parsed;
	});
}

function originsOf(option: string, text: string): string[] {
	const entries = listOf(text);
	if (entries.length === 1 && entries[0]?.toLowerCase() === 'none') return [];
	return entries.map((entry) => {
		const parsed = parseOrigin(entry);
		if (!parsed) throw new UsageError(`${option}: "${entry}" is not an origin (scheme://host[:port], e.g. https://app.example.com)`);
		return parsed;
	});
}

/**
 * The command's options: each from its argument, else from its environment variable (desktop clients pass
 * environment, not arguments), else its default.
 */
export function parseArguments(argv: readonly string[], env: NodeJS.ProcessEnv = {}): CliOptions {
	const options: CliOptions = { scope: {}, confirm: true, inlineFileLimit: INLINE_DOWNLOAD_LIMIT_BYTES, outputSchemas: true };
	const given: Partial<Record<string, string | true>> = {};
	for (let index = 0; index < argv.length; index++) {
		const argument = argv[index] ?? '';
		const [flag, inline] = argument.startsWith('--') && argument.includes('=') ? argument.split(/=(.*)/s, 2) : [argument, undefined];
		const value = () => {
			const text = inline ?? argv[++index];
			if (text === undefined || text === '') throw new UsageError(`${flag} needs a value`);
			return text;
		};
		switch (flag) {
			case '--http':
			case '--host':
			case '--allowed-hosts':
			case '--allowed-origins':
			case '--toolsets':
			case '--tools':
			case '--exclude-tools':
			case '--inline-file-limit':
				given[flag] = value();
				break;
			case '--read-only':
			case '--no-confirm':
			case '--no-output-schemas':
				given[flag] = true;
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
				if (/token|base-?url|url|secret/i.test(flag))
					throw new UsageError(
						`The base URL and tokens come from the environment (${ENV.baseUrl}, ${ENV.token}, ${ENV.authToken}), not from arguments`,
					);
				throw new UsageError('Unknown argument');
		}
	}
	const text = (flag: string, variable: string): string | undefined => {
		const value = given[flag];
		if (typeof value === 'string') return value;
		const fromEnv = (env[variable] ?? '').trim();
		return fromEnv || undefined;
	};
	const flagOn = (flag: string, variable: string) => given[flag] === true || truthy(env[variable]);

	const toolsets = text('--toolsets', ENV.toolsets);
	const tools = text('--tools', ENV.tools);
	const excludeTools = text('--exclude-tools', ENV.excludeTools);
	options.scope = {
		...(flagOn('--read-only', ENV.readOnly) ? { readOnly: true } : {}),
		...(toolsets ? { toolsets: listOf(toolsets) } : {}),
		...(tools ? { tools: listOf(tools) } : {}),
		...(excludeTools ? { excludeTools: listOf(excludeTools) } : {}),
	};
	options.confirm = !flagOn('--no-confirm', ENV.noConfirm);
	options.outputSchemas = !flagOn('--no-output-schemas', ENV.noOutputSchemas);
	const inlineLimit = text('--inline-file-limit', ENV.inlineFileLimit);
	if (inlineLimit !== undefined) {
		if (!/^\d+$/.test(inlineLimit) || !Number.isSafeInteger(Number(inlineLimit)))
			throw new UsageError(`--inline-file-limit: a number of bytes, 0 or more, got "${inlineLimit}"`);
		options.inlineFileLimit = Number(inlineLimit);
	}

	const portText = given['--http'];
	const host = given['--host'];
	for (const flag of ['--host', '--allowed-hosts', '--allowed-origins'])
		if (given[flag] !== undefined && portText === undefined) throw new UsageError(`${flag} only goes with --http <port>`);
	if (typeof portText === 'string') {
		const port = Number(portText);
		if (!/^\d+$/.test(portText) || port > 65535) throw new UsageError(`--http: a port from 0 to 65535, got "${portText}"`);
		const hosts = text('--allowed-hosts', ENV.allowedHosts);
		const origins = text('--allowed-origins', ENV.allowedOrigins);
		options.http = {
			port,
			host: typeof host === 'string' ? host : '127.0.0.1',
			allowedHosts: hosts ? hostsOf('--allowed-hosts', hosts) : [],
			...(origins ? { allowedOrigins: originsOf('--allowed-origins', origins) } : {}),
		};
	}
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

/** The service's address as logs show it: its origin only, never a path or query where a secret may have been pasted. */
export function shownBaseUrl(baseUrl: string): string {
	try {
		return new URL(baseUrl).origin;
	} catch {
		return '(the configured base URL)';
	}
}

export interface ServeOptions {
	/** The tools of the session (a scope's `selectTools`). */
	tools?: readonly CatalogueTool[];
	/** Whether to ask the user before irreversible and administrative calls (see `ServerOptions.confirm`). */
	confirm?: boolean;
	/** The process's file links (see `ServerOptions.links`): every session and request of the process shares them. */
	links?: FileLinks;
	/** Whether tools/list shows each tool's outputSchema (false: --no-output-schemas). */
	outputSchemas?: boolean;
}

/** stdio, either revision: the client's first message chooses (see stdio.ts). One task store for the connection. */
export async function serveStdio(executor: Executor, serve: ServeOptions = {}): Promise<void> {
	const options = { executor, version: packageVersion(), tasks: new ToolTasks(), taskOwner: STDIO_OWNER, ...serve };
	log(`serving ${shownBaseUrl(executor.baseUrl)} over stdio`);
	await serveBothEras(
		() => createServer(options),
		async (input, output) => (await import('./modernStdio')).serveModernStdio(options, input, output),
	);
}

function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
	res
		.writeHead(status, { 'Content-Type': 'application/json', ...headers })
		.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** The largest JSON-RPC body read (the MCP SDK's own bound): an upload's bytes travel base64 in it. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
const TOO_LARGE = Symbol('too large');
const NOT_JSON = Symbol('not JSON');

async function readBody(req: IncomingMessage): Promise<unknown> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of req as AsyncIterable<Buffer>) {
		size += chunk.length;
		if (size > MAX_BODY_BYTES) return TOO_LARGE;
		chunks.push(chunk);
	}
	try {
		return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
	} catch {
		return NOT_JSON;
	}
}

/**
 * A request whose response stream the client closes before its answer is cancelled, as if the client had sent
 * notifications/cancelled: nothing could carry the answer any more (the server keeps no events to resume from), so
 * a wait stops instead of polling the service until its time-out.
 */
function cancelWhenClosed(res: ServerResponse, body: unknown, transport: StreamableHTTPServerTransport): void {
	const requestIds = (Array.isArray(body) ? body : [body]).filter((message) => isJSONRPCRequest(message)).map((message) => message.id);
	if (!requestIds.length) return;
	res.once('close', () => {
		if (res.writableFinished) return;
		for (const requestId of requestIds)
			transport.onmessage?.({
				jsonrpc: '2.0',
				method: 'notifications/cancelled',
				params: { requestId, reason: 'The client closed the response stream' },
			});
	});
}

/** How long a session may go unused before it is closed, and how many are kept at most (the oldest closed first). */
export const SESSION_IDLE_MS = 30 * 60 * 1000;
export const MAX_SESSIONS = 64;

interface Session {
	transport: StreamableHTTPServerTransport;
	touch: () => void;
}

/** Sessions of clients that initialized one, each closed after SESSION_IDLE_MS unused or when the client ends it. */
class Sessions {
	private readonly open_ = new Map<string, Session & { timer: NodeJS.Timeout; server: { close: () => Promise<void> } }>();

	get(id: string): Session | undefined {
		return this.open_.get(id);
	}

	open(id: string, transport: StreamableHTTPServerTransport, server: { close: () => Promise<void> }): void {
		if (this.open_.size >= MAX_SESSIONS) {
			const oldest = this.open_.keys().next().value;
			if (oldest !== undefined) this.close(oldest);
		}
		const session = {
			transport,
			server,
			timer: setTimeout(() => this.close(id), SESSION_IDLE_MS).unref(),
			touch: () => {
				session.timer.refresh();
				// Most recently used last, so the oldest is the first to go.
				this.open_.delete(id);
				this.open_.set(id, session);
			},
		};
		this.open_.set(id, session);
	}

	delete(id: string): void {
		const session = this.open_.get(id);
		if (session) clearTimeout(session.timer);
		this.open_.delete(id);
	}

	private close(id: string): void {
		const session = this.open_.get(id);
		this.delete(id);
		if (session) void session.transport.close().then(() => session.server.close());
	}
}

type ModernLeg = ReturnType<typeof modernLeg>;

export interface HttpServeOptions extends ServeOptions {
	port: number;
	host: string;
	allowedHosts?: readonly HostAndPort[];
	allowedOrigins?: readonly string[];
	/** The secret every request must carry as `Authorization: Bearer …`; required beyond loopback. */
	authToken?: string;
	/** Secrets the log must never show (the service's token). */
	secrets?: readonly string[];
}

/**
 * Streamable HTTP: a client that initializes gets a session (its own MCP server, which can ask it to confirm
 * within a call); a POST without one is answered on its own, statelessly. Every server runs on the one executor
 * (so the pace and the memory of sends are shared). Every request, on every address, must name a loopback or allowed host and
 * come from no foreign origin (a web page the user visits cannot reach the server through DNS rebinding), and
 * carry the client secret when there is one. Beyond loopback the server does not start without a secret and
 * explicit lists of hosts and origins.
 */
export async function serveHttp(executor: Executor, options: HttpServeOptions): Promise<HttpServer> {
	const { port, host, authToken } = options;
	const missing = missingForAddress(
		host,
		{ authToken, allowedHosts: options.allowedHosts, allowedOrigins: options.allowedOrigins },
		{ authToken: ENV.authToken, allowedHosts: '--allowed-hosts', allowedOrigins: '--allowed-origins' },
	);
	if (missing.length)
		throw new UsageError(
			`Listening on ${host}, which is not loopback, needs: ${missing.join('; ')}. Without them any page or host that reaches the port would act with the service's token`,
		);
	const rules: AccessRules = {
		allowedHosts: options.allowedHosts ?? [],
		allowedOrigins: options.allowedOrigins ?? [],
		...(authToken ? { authToken } : {}),
	};
	const version = packageVersion();
	const secrets = [...(options.secrets ?? []), ...(authToken ? [authToken] : [])];
	// One store of file links for the process: a link handed out in one request or session is read in another.
	const links = options.links ?? new FileLinks({ timing: executor.timing });
	// And one store of tasks: a task started in one request is polled, read and cancelled in the next.
	const tasks = new ToolTasks();
	const common = {
		executor,
		version,
		links,
		tasks,
		...(options.tools ? { tools: options.tools } : {}),
		confirm: options.confirm,
		outputSchemas: options.outputSchemas,
	};
	const newServer = (req: IncomingMessage) => createServer({ ...common, taskOwner: taskOwnerOf(req.headers.authorization) });
	// The 2026-07-28 leg, loaded with the v2 SDK when the first request that may be modern comes (era.ts).
	let modernLoaded: Promise<ModernLeg> | undefined;
	const modern = async (req: IncomingMessage, res: ServerResponse, body: unknown): Promise<boolean> => {
		if (!(Array.isArray(body) ? body : [body]).some(speaksModern)) return false;
		modernLoaded ??= import('./modernHttp').then(({ modernLeg }) =>
			modernLeg(common, MAX_BODY_BYTES, (error) => log(`2026-07-28 request refused or failed: ${redactText(error.message, secrets)}`)),
		);
		return (await modernLoaded)(req, res, body);
	};
	const sessions = new Sessions();
	const handle = async (req: IncomingMessage, res: ServerResponse) => {
		const refused = refusal({ host: req.headers.host, origin: req.headers.origin, authorization: req.headers.authorization }, rules);
		if (refused)
			return refuse(
				res,
				refused.status,
				refused.message,
				refused.status === 401 ? { 'WWW-Authenticate': 'Bearer realm="chat-messaging-mcp"' } : {},
			);
		const url = new URL(req.url ?? '/', 'http://localhost');
		if (url.pathname !== HTTP_PATH) return refuse(res, 404, `Not found: the MCP endpoint is ${HTTP_PATH}`);
		const sessionId = req.headers['mcp-session-id'];
		if (typeof sessionId === 'string') {
			const session = sessions.get(sessionId);
			if (!session) return refuse(res, 404, 'Session not found: initialize a new session');
			session.touch();
			if (req.method !== 'POST') return void (await session.transport.handleRequest(req, res));
			const body = await readBody(req);
			if (body === TOO_LARGE) return refuse(res, 413, `Payload too large: at most ${MAX_BODY_BYTES} bytes`);
			if (body === NOT_JSON) return refuse(res, 400, 'Parse error: the body is not JSON');
			cancelWhenClosed(res, body, session.transport);
			return void (await session.transport.handleRequest(req, res, body));
		}
		if (req.method !== 'POST') {
			res.setHeader('Allow', 'POST');
			return refuse(res, 405, 'Method not allowed without a session: POST JSON-RPC messages');
		}
		const body = await readBody(req);
		if (body === TOO_LARGE) return refuse(res, 413, `Payload too large: at most ${MAX_BODY_BYTES} bytes`);
		if (body === NOT_JSON) return refuse(res, 400, 'Parse error: the body is not JSON');
		if (await modern(req, res, body)) return;
		const server = newServer(req);
		if (isInitializeRequest(body)) {
			// A session, so the server can ask the client (elicitation) within a call and hear its answer.
			const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
				sessionIdGenerator: () => randomUUID(),
				onsessioninitialized: (id) => {
					sessions.open(id, transport, server);
				},
			});
			transport.onclose = () => {
				if (transport.sessionId) sessions.delete(transport.sessionId);
			};
			await server.connect(transport);
			return void (await transport.handleRequest(req, res, body));
		}
		// Without a session (a client that never initialized one): answered on its own, as a stateless server does.
		// An event stream per call, not one JSON answer: a long wait sends progress notifications before its result.
		const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
		res.on('close', () => {
			void transport.close();
			void server.close();
		});
		await server.connect(transport);
		await transport.handleRequest(req, res, body);
	};
	const http = createHttpServer((req, res) => {
		handle(req, res).catch((error: unknown) => {
			log(`request failed: ${redactText((error as Error).message, secrets)}`);
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
	log(
		`serving ${shownBaseUrl(executor.baseUrl)} over Streamable HTTP at http://${where}:${shown.port}${HTTP_PATH}${authToken ? ' (clients send the secret of ' + ENV.authToken + ')' : ''}`,
	);
	return http;
}

/** The command: parses the arguments, reads the environment, serves until stdin closes or a signal. */
export async function main(argv: readonly string[]): Promise<void> {
	let options: CliOptions;
	let configuration: Configuration;
	let tools: CatalogueTool[];
	try {
		options = parseArguments(argv, process.env);
		if (options.help) return void process.stdout.write(`${USAGE}\n`);
		if (options.version) return void process.stdout.write(`${packageVersion()}\n`);
		configuration = configurationFromEnvironment();
		try {
			tools = selectTools(catalogueTools(), options.scope);
		} catch (error) {
			if (error instanceof ScopeError) throw new UsageError(error.message);
			throw error;
		}
		if (!tools.length) throw new UsageError('The options leave no tool: check --toolsets, --tools, --exclude-tools and --read-only');
	} catch (error) {
		if (!(error instanceof UsageError)) throw error;
		process.stderr.write(`${error.message}\n\n${USAGE}\n`);
		process.exitCode = 2;
		return;
	}
	const executor = createExecutor(configuration);
	const links = new FileLinks({ timing: executor.timing, inlineLimitBytes: options.inlineFileLimit });
	const serve: ServeOptions = { tools, confirm: options.confirm, links, outputSchemas: options.outputSchemas };
	if (options.http) {
		const authToken = (process.env[ENV.authToken] ?? '').trim();
		let http: HttpServer;
		try {
			http = await serveHttp(executor, {
				...serve,
				...options.http,
				...(authToken ? { authToken } : {}),
				secrets: [configuration.token],
			});
		} catch (error) {
			if (!(error instanceof UsageError)) throw error;
			process.stderr.write(`${error.message}\n`);
			process.exitCode = 2;
			return;
		}
		const stop = () => {
			http.close(() => process.exit(0));
			// Open event streams (a session's GET) would keep the server from closing.
			http.closeAllConnections();
		};
		process.once('SIGINT', stop);
		process.once('SIGTERM', stop);
	} else {
		await serveStdio(executor, serve);
	}
}
