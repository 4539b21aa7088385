/**
 * The clients the authorization server knows, as the MCP SDK's handlers ask for them: registered ones (RFC 7591
 * dynamic registration, kept in the store, their secret sealed) and, when a client_id is an https URL, the client
 * ID metadata document at that URL (fetched safely, checked, kept in memory for a few minutes: every replica
 * fetches it on its own, as the document is the client's registration).
 */
import { randomUUID } from 'node:crypto';

import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { CustomOAuthError, InvalidClientError, InvalidClientMetadataError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { OAuthClientMetadataSchema, type OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';

import type { SecretBox } from '../store/secretBox';
import type { GrantStore } from '../store/store';
import { log } from '../log';
import { safeFetchText, type SafeFetchOptions } from './safeFetch';

/** How long a registered client is kept unused: each use (a consent, a token) renews it. */
export const CLIENT_TTL_SECONDS = 180 * 24 * 3600;
/** How long a fetched metadata document is used before it is fetched again. */
const DOCUMENT_CACHE_MS = 5 * 60 * 1000;
const DOCUMENT_CACHE_ENTRIES = 256;

/** A client_id that names a metadata document: an https URL with a path (the draft's rule). */
export function isDocumentClientId(clientId: string): boolean {
	try {
		const url = new URL(clientId);
		return url.protocol === 'https:' && url.pathname !== '/' && !url.hash;
	} catch {
		return false;
	}
}

/** How many redirect URIs a client may register, and how long each may be. */
export const REDIRECT_URI_LIMITS = { count: 10, length: 2000 } as const;
/** The hosts an http redirect URI may name (RFC 8252 §7.3: the browser hands the code to an app on this machine). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
/** How a client may authenticate at the token endpoint: as the metadata's token_endpoint_auth_methods_supported says. */
export const TOKEN_ENDPOINT_AUTH_METHODS = ['client_secret_post', 'none'] as const;

/** RFC 7591's error for a redirect URI the server does not accept. */
const invalidRedirectUri = (message: string) => new CustomOAuthError('invalid_redirect_uri', message);

/**
 * Where a code may be sent (RFC 8252, OAuth 2.1): https without a fragment or a user; http only to this machine
 * (loopback); or a native app's own scheme (RFC 8252 §7.1). The RFC asks for reverse-domain schemes
 * (`com.example.app:/cb`), but the MCP clients people use register short ones (Cursor `cursor://…`, VS Code
 * `vscode://…`) beside their https and loopback ones, and one refused URI refuses the whole registration; PKCE
 * binds the code to the app that asked all the same. Schemes a browser or the system handles itself (script, data,
 * files, mail, other web protocols) are never an app's callback. No wildcard: URIs match exactly.
 */
const NOT_AN_APP_SCHEME = new Set([
	'javascript:',
	'vbscript:',
	'data:',
	'blob:',
	'file:',
	'filesystem:',
	'about:',
	'view-source:',
	'ftp:',
	'ws:',
	'wss:',
	'mailto:',
	'tel:',
	'sms:',
	'urn:',
]);

export function checkRedirectUris(uris: readonly string[]): void {
	if (!uris.length) throw invalidRedirectUri('redirect_uris: at least one is needed');
	if (uris.length > REDIRECT_URI_LIMITS.count) throw invalidRedirectUri(`redirect_uris: at most ${REDIRECT_URI_LIMITS.count}`);
	for (const uri of uris) {
		if (uri.length > REDIRECT_URI_LIMITS.length)
			throw invalidRedirectUri(`redirect_uris: each at most ${REDIRECT_URI_LIMITS.length} characters (${uri.slice(0, 60)}… is longer)`);
		const refused = (why: string) => invalidRedirectUri(`redirect_uri ${uri} is refused: ${why}`);
		let url: URL;
		try {
			url = new URL(uri);
		} catch {
			throw refused('not a URL');
		}
		if (uri.includes('#')) throw refused('a redirect URI has no fragment');
		if (url.username || url.password) throw refused('a redirect URI has no user or password');
		if (uri.includes('*')) throw refused('a redirect URI is matched exactly: no wildcard');
		if (url.protocol === 'https:') continue;
		if (url.protocol === 'http:') {
			if (LOOPBACK_HOSTS.has(url.hostname)) continue;
			throw refused('http is for loopback only (127.0.0.1, [::1], localhost); use https');
		}
		if (NOT_AN_APP_SCHEME.has(url.protocol) || !/^[a-z][a-z0-9+.-]*:$/.test(url.protocol))
			throw refused("https, http on loopback, or a native app's own scheme (com.example.app:/callback, cursor://…)");
	}
}

/** A registration's metadata as this server accepts it, checked before anything is stored. */
function checkRegistration(client: { redirect_uris: readonly string[]; token_endpoint_auth_method?: string }): void {
	checkRedirectUris(client.redirect_uris);
	const method = client.token_endpoint_auth_method;
	if (method !== undefined && !(TOKEN_ENDPOINT_AUTH_METHODS as readonly string[]).includes(method))
		throw new InvalidClientMetadataError(
			`token_endpoint_auth_method ${method} is not supported: ${TOKEN_ENDPOINT_AUTH_METHODS.join(' or ')}`,
		);
}

type StoredClient = Omit<OAuthClientInformationFull, 'client_secret'> & { sealed_secret?: string };

export class Clients implements OAuthRegisteredClientsStore {
	private readonly documents = new Map<string, { client: OAuthClientInformationFull; until: number }>();

	constructor(
		private readonly store: GrantStore,
		private readonly secrets: SecretBox,
		private readonly fetchOptions: SafeFetchOptions = {},
	) {}

	async getClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
		if (isDocumentClientId(clientId)) return this.documentClient(clientId);
		const stored = await this.store.get<StoredClient>('client', clientId);
		if (!stored) return undefined;
		const { sealed_secret, ...client } = stored;
		return { ...client, ...(sealed_secret ? { client_secret: this.secrets.open(sealed_secret, 'client') } : {}) };
	}

	async registerClient(client: Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>): Promise<OAuthClientInformationFull> {
		checkRegistration(client);
		const full: OAuthClientInformationFull = {
			...client,
			// Left out, the method is RFC 7591's default, client_secret_basic, which this server does not take: the
			// client is told the one its secret is sent by.
			token_endpoint_auth_method: client.token_endpoint_auth_method ?? 'client_secret_post',
			client_id: randomUUID(),
			client_id_issued_at: Math.floor(Date.now() / 1000),
		};
		const { client_secret, ...rest } = full;
		const stored: StoredClient = { ...rest, ...(client_secret ? { sealed_secret: this.secrets.seal(client_secret, 'client') } : {}) };
		await this.store.put('client', full.client_id, stored, CLIENT_TTL_SECONDS);
		return full;
	}

	/**
	 * The client a metadata document describes: JSON client metadata whose client_id is the URL itself, with at
	 * least one redirect URI, and no shared secret (anyone can read the document, so the client is public).
	 */
	private async documentClient(url: string): Promise<OAuthClientInformationFull> {
		const cached = this.documents.get(url);
		if (cached && cached.until > Date.now()) return cached.client;
		let text: string;
		try {
			text = await safeFetchText(url, this.fetchOptions);
		} catch (error) {
			// Why goes to the log only: told to the client, it would map this server's network for anyone who names a
			// URL (what a name resolves to, what answers there).
			log(`the client ID metadata document ${url} was not fetched: ${(error as Error).message}`);
			throw new InvalidClientError(`The client metadata document at ${url} could not be fetched or is not valid`);
		}
		let body: unknown;
		try {
			body = JSON.parse(text);
		} catch {
			throw new InvalidClientMetadataError(`The client ID metadata document ${url} is not JSON`);
		}
		const parsed = OAuthClientMetadataSchema.safeParse(body);
		const document = body as { client_id?: unknown };
		if (!parsed.success) throw new InvalidClientMetadataError(`The client ID metadata document ${url}: ${parsed.error.message}`);
		checkRedirectUris(parsed.data.redirect_uris);
		if (document.client_id !== url)
			throw new InvalidClientMetadataError(`The client ID metadata document ${url} names another client_id: it must be its own URL`);
		const method = parsed.data.token_endpoint_auth_method ?? 'none';
		if (method !== 'none')
			throw new InvalidClientMetadataError(
				`The client ID metadata document ${url} asks for ${method}: a document's client is public (token_endpoint_auth_method none)`,
			);
		const client: OAuthClientInformationFull = { ...parsed.data, client_id: url, token_endpoint_auth_method: 'none' };
		const oldest = this.documents.keys().next().value;
		if (this.documents.size >= DOCUMENT_CACHE_ENTRIES && oldest !== undefined) this.documents.delete(oldest);
		this.documents.set(url, { client, until: Date.now() + DOCUMENT_CACHE_MS });
		return client;
	}
}
