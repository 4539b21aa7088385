/**
 * The built-in authorization server, on the MCP SDK's OAuth handlers: RFC 8414 metadata (with client ID metadata
 * documents and the `iss` response parameter advertised), /authorize (the SDK checks the client, the exact
 * redirect URI and an S256 challenge, then the consent page), /consent (the page's answer), /token (code and
 * refresh grants, the SDK checking the PKCE verifier and the client), /register (RFC 7591) and /revoke (RFC
 * 7009); and RFC 9728 protected resource metadata for the MCP endpoint, the resource every token is for.
 */
import express, { type Express, type NextFunction, type Request, type Response } from 'express';

import { authorizationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import { clientRegistrationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import { revocationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/revoke.js';
import { tokenHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/token.js';
import type { OAuthMetadata, OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';

import { redactText } from '@chat-messaging/core';

import type { SecretBox } from '../store/secretBox';
import type { GrantStore } from '../store/store';
import { log } from '../log';
import type { CatalogueTool } from '../tools';
import { CLIENT_TTL_SECONDS, Clients, TOKEN_ENDPOINT_AUTH_METHODS } from './clients';
import { consentHandler, type WorkspaceTokenCheck } from './consent';
import { GrantProvider } from './provider';
import type { SafeFetchOptions } from './safeFetch';
import { OAUTH_PATHS } from './paths';
import { SCOPES_SUPPORTED } from './scopes';

export interface AuthorizationServerOptions {
	/** The server's public origin (https, or http on loopback), as clients reach it. */
	publicUrl: string;
	/** The MCP endpoint's path on it. */
	mcpPath: string;
	store: GrantStore;
	secrets: SecretBox;
	allTools: readonly CatalogueTool[];
	checkWorkspaceToken: WorkspaceTokenCheck;
	/** How client ID metadata documents are fetched (tests: what names resolve to, which addresses are allowed). */
	fetchOptions?: SafeFetchOptions;
}

export interface AuthorizationServer {
	app: Express;
	provider: GrantProvider;
	issuer: string;
	/** The MCP endpoint's URL: the resource (RFC 8707) every token is for. */
	resource: string;
	/** Where the protected resource metadata is, as the 401's challenge names it. */
	resourceMetadataUrl: string;
}

export function authorizationServer(options: AuthorizationServerOptions): AuthorizationServer {
	const issuer = new URL(options.publicUrl).origin;
	const resource = `${issuer}${options.mcpPath}`;
	const resourceMetadataUrl = `${issuer}${OAUTH_PATHS.protectedResourceMetadata}${options.mcpPath}`;
	const secureCookie = issuer.startsWith('https:');
	const clients = new Clients(options.store, options.secrets, options.fetchOptions);
	const provider = new GrantProvider({
		store: options.store,
		secrets: options.secrets,
		clients,
		resource,
		issuer,
		allTools: options.allTools,
		consentPath: OAUTH_PATHS.consent,
		secureCookie,
	});
	const at = (path: string) => `${issuer}${path}`;
	const metadata: OAuthMetadata = {
		issuer,
		authorization_endpoint: at(OAUTH_PATHS.authorize),
		token_endpoint: at(OAUTH_PATHS.token),
		registration_endpoint: at(OAUTH_PATHS.register),
		revocation_endpoint: at(OAUTH_PATHS.revoke),
		response_types_supported: ['code'],
		grant_types_supported: ['authorization_code', 'refresh_token'],
		code_challenge_methods_supported: ['S256'],
		token_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
		revocation_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
		scopes_supported: [...SCOPES_SUPPORTED],
		client_id_metadata_document_supported: true,
		authorization_response_iss_parameter_supported: true,
	};
	const resourceMetadata: OAuthProtectedResourceMetadata = {
		resource,
		authorization_servers: [issuer],
		scopes_supported: [...SCOPES_SUPPORTED],
		bearer_methods_supported: ['header'],
		resource_name: 'Chat Messaging',
	};
	const app = express();
	app.disable('x-powered-by');
	// Rate limits count per client address: behind a reverse proxy on the same host or a private network, the address
	// it forwards (X-Forwarded-For); a client elsewhere cannot pose as another by sending that header itself.
	app.set('trust proxy', 'loopback, linklocal, uniquelocal');
	// RFC 8414 path-aware lookup: the issuer has no path, so its metadata is at the root well-known name.
	app.use(OAUTH_PATHS.authorizationServerMetadata, metadataHandler(metadata));
	app.use(`${OAUTH_PATHS.protectedResourceMetadata}${options.mcpPath}`, metadataHandler(resourceMetadata));
	app.use(OAUTH_PATHS.protectedResourceMetadata, metadataHandler(resourceMetadata));
	app.use(OAUTH_PATHS.authorize, authorizationHandler({ provider }));
	app.use(OAUTH_PATHS.token, tokenHandler({ provider }));
	app.use(OAUTH_PATHS.register, clientRegistrationHandler({ clientsStore: clients, clientSecretExpirySeconds: CLIENT_TTL_SECONDS }));
	app.use(OAUTH_PATHS.revoke, revocationHandler({ provider }));
	app.post(
		OAUTH_PATHS.consent,
		express.urlencoded({ extended: false, limit: '16kb' }),
		consentHandler({ provider, clients, checkWorkspaceToken: options.checkWorkspaceToken, secureCookie, action: OAUTH_PATHS.consent }),
	);
	app.use(errorAnswer);
	return { app, provider, issuer, resource, resourceMetadataUrl };
}

/** The values a request carried (its parsed body's fields, its credentials): what a log line must not show. */
function carried(req: Request): string[] {
	const body: unknown = req.body;
	const fields = body && typeof body === 'object' ? Object.values(body as Record<string, unknown>).flat() : [];
	return [...fields, req.headers.authorization, req.headers.cookie].filter((value): value is string => typeof value === 'string');
}

/**
 * What an error no handler answered becomes (a body too large or not parseable, a failure in the consent's handler):
 * a short answer with its status, never Express's page with a stack. The log gets the kind of error and where, never
 * its message when a body was being read (a parser's message quotes the body, which may hold a token or a secret).
 */
function errorAnswer(error: unknown, req: Request, res: Response, _next: NextFunction): void {
	const { status: given, statusCode, type } = (error ?? {}) as { status?: unknown; statusCode?: unknown; type?: unknown };
	const code = typeof given === 'number' ? given : typeof statusCode === 'number' ? statusCode : 500;
	const status = code >= 400 && code < 600 ? code : 500;
	const name = typeof type === 'string' ? type : error instanceof Error ? error.name : 'an error';
	// A server failure's message, with whatever the request carried taken out; a refused request's, never.
	const detail = status >= 500 && error instanceof Error ? `${name}: ${redactText(error.message, carried(req))}` : name;
	log(`${req.method} ${req.path} answered ${status}: ${detail}`);
	const description =
		status === 413
			? 'The request body is too large'
			: status < 500
				? 'The request body could not be read: send it as the endpoint expects'
				: 'The server failed to answer this request';
	if (res.headersSent) return void res.end();
	res.setHeader('Cache-Control', 'no-store');
	if (req.path === OAUTH_PATHS.consent) return void res.status(status).type('text/plain').send(description);
	res.status(status).json({ error: status < 500 ? 'invalid_request' : 'server_error', error_description: description });
}
