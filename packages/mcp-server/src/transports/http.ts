/**
 * Streamable HTTP serving (`--http <port>`): the checks every request passes (access.ts), its sessions
 * (sessions.ts), and the 2026-07-28 leg handed the requests that speak that revision (http-2026-07-28.ts).
 */
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';

import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';

import { realTiming } from '@chat-messaging/client';
import { redactText, type Executor } from '@chat-messaging/core';
import { scopeRefusalOf } from '../calls/pipeline';
import { taskOwnerOf } from '../calls/taskOwner';
import type { TaskStore } from '../calls/taskStore';
import type { AuthorizationServer } from '../oauth/authorizationServer';
import { isAuthorizationServerPath } from '../oauth/paths';
import { isChallenge, type Challenge, type GrantCallers } from '../oauth/resourceServer';
import { FileLinks } from '../resources/fileLinks';
import { server2025 } from '../revisions/2025-11-25';
import { callerParts, packageVersion, sharedParts, type Caller, type ServeOptions, type ServerParts } from '../revisions/common';
import { revisionOf } from '../revisions/revisionOf';
import { ENV, HTTP_PATH, UsageError } from '../settings';
import { bearerMatches, missingForAddress, refusal, type AccessRules, type HostAndPort } from './access';
import type { http2026 } from './http-2026-07-28';
import { MAX_BODY_BYTES, NOT_JSON, readBody, refuse, TOO_LARGE } from './httpMessages';
import { log, shownBaseUrl } from '../log';
import { Sessions } from './sessions';

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

type Http2026 = ReturnType<typeof http2026>;

export interface HttpServeOptions extends ServeOptions {
	port: number;
	host: string;
	allowedHosts?: readonly HostAndPort[];
	allowedOrigins?: readonly string[];
	/** The service's base URL (the log names its origin); left out: the executor's. */
	baseUrl?: string;
	/** The secret every request must carry as `Authorization: Bearer …`; required beyond loopback. */
	authToken?: string;
	/** Secrets the log must never show (the service's token). */
	secrets?: readonly string[];
	/**
	 * OAuth (a public URL): the authorization server's endpoints beside /mcp, and every request to /mcp needs an
	 * access token (or the static secret, when there is one).
	 */
	oauth?: { server: AuthorizationServer; callers: GrantCallers };
	/** Where tasks are kept: shared by replicas when the grants are (a Redis store). Left out: the process's memory. */
	tasks?: TaskStore;
}

/** A request's caller, and with OAuth how a call its grant's scope leaves out is answered (403 insufficient_scope). */
interface RequestCaller extends Caller {
	challengeFor?: (parts: ServerParts, body: unknown) => Challenge | undefined;
}

/**
 * Streamable HTTP: a client that initializes gets a session (its own MCP server, which can ask it to confirm
 * within a call); a POST without one is answered on its own, statelessly. Every server runs on the one executor
 * (so the pace and the memory of sends are shared). Every request, on every address, must name a loopback or allowed host and
 * come from no foreign origin (a web page the user visits cannot reach the server through DNS rebinding), and
 * carry the client secret when there is one. Beyond loopback the server does not start without a secret and
 * explicit lists of hosts and origins.
 */
export async function serveHttp(executor: Executor | undefined, options: HttpServeOptions): Promise<HttpServer> {
	const { port, host, authToken, oauth } = options;
	const missing = missingForAddress(
		host,
		{ authToken: authToken ?? (oauth ? 'oauth' : undefined), allowedHosts: options.allowedHosts, allowedOrigins: options.allowedOrigins },
		{ authToken: `${ENV.authToken} or ${ENV.publicUrl}`, allowedHosts: '--allowed-hosts', allowedOrigins: '--allowed-origins' },
	);
	if (missing.length)
		throw new UsageError(
			`Listening on ${host}, which is not loopback, needs: ${missing.join('; ')}. Without them any page or host that reaches the port would act with the service's token`,
		);
	if (!executor && !oauth) throw new UsageError(`${ENV.token} is not set: the bearer token of the service`);
	if (authToken && !executor) throw new UsageError(`${ENV.authToken} needs ${ENV.token}: the workspace its callers act on`);
	const rules: AccessRules = {
		allowedHosts: options.allowedHosts ?? [],
		allowedOrigins: options.allowedOrigins ?? [],
		// With OAuth the secret is one way in among two, checked with the access token (callerOf).
		...(authToken && !oauth ? { authToken } : {}),
	};
	const secrets = [...(options.secrets ?? []), ...(authToken ? [authToken] : [])];
	// One store of file links and one of tasks for the process: a link handed out, a task started in one request or
	// session is read, polled and cancelled in another (each its caller's).
	const shared = sharedParts({
		version: packageVersion(),
		links: options.links ?? new FileLinks({ timing: executor?.timing ?? realTiming }),
		...(options.tools ? { tools: options.tools } : {}),
		...(options.tasks ? { tasks: options.tasks } : {}),
		confirm: options.confirm,
		outputSchemas: options.outputSchemas,
	});
	// Who a request comes from: with the static secret (or none), the process's workspace and tools, what it starts and
	// reads its Authorization's; with OAuth, the grant's workspace and the tools of its scope, what it starts and reads the
	// grant's (the same across its refreshed tokens).
	const staticCaller = (authorization: string | undefined): RequestCaller => {
		if (!executor) throw new Error(`${ENV.token} is not set`);
		return { executor, tools: shared.tools, owner: taskOwnerOf(authorization) };
	};
	const callerOf = async (authorization: string | undefined): Promise<RequestCaller | Challenge> => {
		if (!oauth || (authToken && bearerMatches(authorization, authToken))) return staticCaller(authorization);
		const grant = await oauth.callers.callerOf(authorization);
		if (isChallenge(grant)) return grant;
		return {
			executor: grant.executor,
			tools: grant.tools,
			owner: `grant:${grant.grantId}`,
			// The pipeline's refusal for the grant's scope, before the request reaches a server: as 403 insufficient_scope.
			challengeFor: (parts, body) => oauth.callers.challengeFor(scopeRefusalOf(parts, body)),
		};
	};
	const challenge = (res: ServerResponse, answer: Challenge) =>
		refuse(res, answer.status, answer.message, { 'WWW-Authenticate': answer.header });
	// The 2026-07-28 leg, loaded with the v2 SDK when the first request that may speak it comes (revisions/revisionOf.ts).
	let loaded2026: Promise<Http2026> | undefined;
	const served2026 = async (req: IncomingMessage, res: ServerResponse, body: unknown, caller: Caller): Promise<boolean> => {
		if (!(Array.isArray(body) ? body : [body]).some((message) => revisionOf(message) === '2026-07-28')) return false;
		loaded2026 ??= import('./http-2026-07-28').then(({ http2026 }) =>
			http2026(shared, MAX_BODY_BYTES, (error) => log(`2026-07-28 request refused or failed: ${redactText(error.message, secrets)}`)),
		);
		return (await loaded2026)(req, res, body, caller);
	};
	const closeFailed = (error: Error) => log(`closing a session failed: ${redactText(error.message, secrets)}`);
	const sessions = new Sessions(closeFailed);
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
		if (oauth && isAuthorizationServerPath(url.pathname)) return void oauth.server.app(req, res);
		if (url.pathname !== HTTP_PATH) return refuse(res, 404, `Not found: the MCP endpoint is ${HTTP_PATH}`);
		const caller = await callerOf(req.headers.authorization);
		if ('status' in caller) return challenge(res, caller);
		const parts = callerParts(shared, caller);
		const sessionId = req.headers['mcp-session-id'];
		if (typeof sessionId === 'string') {
			const session = sessions.get(sessionId);
			// A session is its caller's: another grant (or secret) naming its id is told it does not exist.
			if (!session || session.owner !== caller.owner) return refuse(res, 404, 'Session not found: initialize a new session');
			session.touch();
			if (req.method !== 'POST') return void (await session.transport.handleRequest(req, res));
			const body = await readBody(req);
			if (body === TOO_LARGE) return refuse(res, 413, `Payload too large: at most ${MAX_BODY_BYTES} bytes`);
			if (body === NOT_JSON) return refuse(res, 400, 'Parse error: the body is not JSON');
			// The session's server was made with the scope of its first token; a refreshed token may have narrowed it.
			const outside = caller.challengeFor?.(parts, body);
			if (outside) return challenge(res, outside);
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
		const outside = caller.challengeFor?.(parts, body);
		if (outside) return challenge(res, outside);
		if (await served2026(req, res, body, caller)) return;
		const server = server2025(parts);
		if (isInitializeRequest(body)) {
			// A session, so the server can ask the client (elicitation) within a call and hear its answer.
			const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
				sessionIdGenerator: () => randomUUID(),
				onsessioninitialized: (id) => {
					sessions.open(id, transport, server, caller.owner);
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
			transport.close().catch(closeFailed);
			server.close().catch(closeFailed);
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
		`serving ${shownBaseUrl(options.baseUrl ?? executor?.baseUrl ?? '')} over Streamable HTTP at http://${where}:${shown.port}${HTTP_PATH}${describeAccess(options)}`,
	);
	return http;
}

/** What the start line says about who may call: the secret's variable, OAuth's issuer; never a secret. */
function describeAccess(options: HttpServeOptions): string {
	// Without OAuth, the line the static secret always had.
	if (!options.oauth) return options.authToken ? ` (clients send the secret of ${ENV.authToken})` : '';
	return ` (clients use OAuth, issuer ${options.oauth.server.issuer}${options.authToken ? ` or the secret of ${ENV.authToken}` : ''})`;
}
