/**
 * The OAuth server as the node24 tests start it (in process, on a SQLite file or a Redis server, in front of the
 * sandbox) and an OAuth client written as a browser and a client application would act, request by request, so
 * that each hostile case can change one step.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server as HttpServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { realTiming } from '@chat-messaging/client';

import { FileLinks } from '../../src/resources/fileLinks';
import { createExecutor } from '../../src/workspace';
import { startOAuth, type OAuthSetup } from '../../src/oauth/setup';
import { serveHttp } from '../../src/transports/http';
import type { SafeFetchOptions } from '../../src/oauth/safeFetch';
import { catalogueTools } from '../../src/tools';
import { selectTools, type ToolScope } from '../../src/scopes';

export async function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const probe = createNetServer();
		probe.once('error', reject);
		probe.listen(0, '127.0.0.1', () => {
			const { port } = probe.address() as { port: number };
			probe.close(() => resolve(port));
		});
	});
}

export interface RunningOAuthServer {
	url: string;
	http: HttpServer;
	oauth: OAuthSetup;
	stop: () => Promise<void>;
}

/** The server with OAuth on, at a public URL on loopback; a port taken before it is bound is chosen again. */
export async function startOAuthServer(options: {
	baseUrl: string;
	store?: string;
	secretKey?: string;
	authToken?: string;
	staticToken?: string;
	fetchOptions?: SafeFetchOptions;
	/** The public URL's host name (default 127.0.0.1; `localhost` gives a second origin for the same port range). */
	hostname?: string;
	/** Downloads above this many bytes become file links (the server's default: 1 MB). */
	inlineFileLimit?: number;
	/** The tools the server offers at all (its --toolsets, --read-only…); left out: every toolset. */
	offered?: ToolScope;
}): Promise<RunningOAuthServer> {
	const offered = selectTools(catalogueTools(), options.offered ?? { toolsets: ['all'] });
	const dir = mkdtempSync(join(tmpdir(), 'mcp-oauth-'));
	for (let attempt = 0; ; attempt++) {
		const port = await freePort();
		const url = `http://${options.hostname ?? '127.0.0.1'}:${port}`;
		const oauth = await startOAuth({
			publicUrl: url,
			mcpPath: '/mcp',
			storeLocation: options.store ?? join(dir, 'grants.sqlite'),
			secretKey: options.secretKey,
			names: { store: 'CHAT_MESSAGING_MCP_STORE', secretKey: 'CHAT_MESSAGING_MCP_SECRET_KEY' },
			offeredTools: offered,
			executorFor: (token) => createExecutor({ baseUrl: options.baseUrl, token }),
			onStoreError: () => undefined,
			...(options.fetchOptions ? { fetchOptions: options.fetchOptions } : {}),
		});
		try {
			const executor = options.staticToken ? createExecutor({ baseUrl: options.baseUrl, token: options.staticToken }) : undefined;
			const http = await serveHttp(executor, {
				port,
				host: '127.0.0.1',
				baseUrl: options.baseUrl,
				allowedHosts: [{ hostname: new URL(url).hostname, port }],
				allowedOrigins: [url],
				oauth,
				...(oauth.tasks ? { tasks: oauth.tasks } : {}),
				...(options.authToken ? { authToken: options.authToken } : {}),
				tools: offered,
				...(options.inlineFileLimit === undefined
					? {}
					: { links: new FileLinks({ timing: realTiming, inlineLimitBytes: options.inlineFileLimit }) }),
			});
			return {
				url,
				http,
				oauth,
				stop: async () => {
					http.closeAllConnections();
					await new Promise((resolve) => http.close(resolve));
					await oauth.store.close();
					rmSync(dir, { recursive: true, force: true });
				},
			};
		} catch (error) {
			await oauth.store.close();
			if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 3) throw error;
		}
	}
}

export const REDIRECT = 'http://127.0.0.1:9/callback';

/** What the server writes to stderr, kept (and still written) until `restore`: the tests look for secrets in it. */
export function captureStderr(): { logged: string[]; restore(): void } {
	const logged: string[] = [];
	const write = process.stderr.write.bind(process.stderr);
	process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
		logged.push(String(chunk));
		return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
	}) as typeof process.stderr.write;
	return { logged, restore: () => void (process.stderr.write = write) };
}

/** The consent page a newly registered client is shown, asking with PKCE for the default redirect URI. */
export async function newClientConsent(url: string): Promise<ConsentPage> {
	const { client_id } = await register(url);
	return openConsent(url, {
		response_type: 'code',
		client_id,
		redirect_uri: REDIRECT,
		code_challenge: pkce().challenge,
		code_challenge_method: 'S256',
	});
}

export function pkce(): { verifier: string; challenge: string } {
	const verifier = randomBytes(32).toString('base64url');
	return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export async function register(
	url: string,
	metadata: Record<string, unknown> = {},
): Promise<{ client_id: string; client_secret?: string }> {
	const response = await fetch(`${url}/register`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ client_name: 'Test Client', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', ...metadata }),
	});
	if (response.status !== 201) throw new Error(`register: ${response.status} ${await response.text()}`);
	return (await response.json()) as { client_id: string; client_secret?: string };
}

/** The consent page a browser is shown: its cookie and the form's hidden values. */
export interface ConsentPage {
	status: number;
	html: string;
	cookie: string;
	consent: string;
	csrf: string;
	location?: string;
	headers: Headers;
}

export async function openConsent(url: string, params: Record<string, string>): Promise<ConsentPage> {
	const response = await fetch(`${url}/authorize?${new URLSearchParams(params)}`, { redirect: 'manual' });
	const html = await response.text();
	const hidden = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
	return {
		status: response.status,
		html,
		cookie: (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '',
		consent: hidden('consent'),
		csrf: hidden('csrf'),
		...(response.headers.get('location') ? { location: response.headers.get('location')! } : {}),
		headers: response.headers,
	};
}

export async function answerConsent(
	url: string,
	page: Pick<ConsentPage, 'cookie' | 'consent' | 'csrf'>,
	form: Record<string, string | string[]>,
	origin = url,
): Promise<{ status: number; location: string | null; text: string }> {
	const body = new URLSearchParams();
	for (const [name, value] of Object.entries({ consent: page.consent, csrf: page.csrf, decision: 'approve', access: 'default', ...form }))
		for (const item of ([] as string[]).concat(value)) body.append(name, item);
	const response = await fetch(`${url}/consent`, {
		method: 'POST',
		redirect: 'manual',
		headers: { 'content-type': 'application/x-www-form-urlencoded', ...(page.cookie ? { cookie: page.cookie } : {}), origin },
		body,
	});
	return { status: response.status, location: response.headers.get('location'), text: await response.text() };
}

export async function tokenRequest(url: string, form: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }> {
	const response = await fetch(`${url}/token`, {
		method: 'POST',
		headers: { 'content-type': 'application/x-www-form-urlencoded' },
		body: new URLSearchParams(form),
	});
	return { status: response.status, body: await response.json(), headers: response.headers };
}

export interface Connected {
	clientId: string;
	verifier: string;
	code: string;
	accessToken: string;
	refreshToken: string;
	scope: string;
}

/**
 * The whole flow, as a client and the person at the consent page go through it: a client registered here, or the one
 * `clientId` names (a client ID metadata document's URL).
 */
export async function connect(
	url: string,
	workspaceToken: string,
	form: Record<string, string | string[]> = {},
	clientId?: string,
): Promise<Connected & { page: ConsentPage }> {
	clientId ??= (await register(url)).client_id;
	const { verifier, challenge } = pkce();
	const page = await openConsent(url, {
		response_type: 'code',
		client_id: clientId,
		redirect_uri: REDIRECT,
		code_challenge: challenge,
		code_challenge_method: 'S256',
		state: 'state-1',
		resource: `${url}/mcp`,
	});
	const answer = await answerConsent(url, page, { workspace_token: workspaceToken, ...form });
	if (answer.status !== 303 || !answer.location) throw new Error(`consent: ${answer.status} ${answer.text.slice(0, 300)}`);
	const code = new URL(answer.location).searchParams.get('code')!;
	const tokens = await tokenRequest(url, {
		grant_type: 'authorization_code',
		code,
		code_verifier: verifier,
		client_id: clientId,
		redirect_uri: REDIRECT,
		resource: `${url}/mcp`,
	});
	if (tokens.status !== 200) throw new Error(`token: ${tokens.status} ${JSON.stringify(tokens.body)}`);
	return {
		page,
		clientId,
		verifier,
		code,
		accessToken: tokens.body.access_token,
		refreshToken: tokens.body.refresh_token,
		scope: tokens.body.scope,
	};
}

/** A JSON-RPC POST to /mcp with a bearer token (2025-11-25, stateless). */
export async function mcpPost(
	url: string,
	token: string | undefined,
	message: Record<string, unknown>,
	headers: Record<string, string> = {},
) {
	const response = await fetch(`${url}/mcp`, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			accept: 'application/json, text/event-stream',
			...(token ? { authorization: `Bearer ${token}` } : {}),
			...headers,
		},
		body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }),
	});
	const text = await response.text();
	const data = /^data: (.*)$/m.exec(text)?.[1];
	return {
		status: response.status,
		headers: response.headers,
		text,
		json: data ? JSON.parse(data) : text.startsWith('{') ? JSON.parse(text) : undefined,
	};
}
