/**
 * The clients the authorization server knows, as the MCP SDK's handlers ask for them: registered ones (RFC 7591
 * dynamic registration, kept in the store, their secret sealed) and, when a client_id is an https URL, the client
 * ID metadata document at that URL (fetched safely, checked, kept in memory for a few minutes: every replica
 * fetches it on its own, as the document is the client's registration).
 */
import { randomUUID } from 'node:crypto';

import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { InvalidClientError, InvalidClientMetadataError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { OAuthClientMetadataSchema, type OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';

import type { SecretBox } from '../store/secretBox';
import type { GrantStore } from '../store/store';
import { log } from '../transports/log';
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
		const full: OAuthClientInformationFull = {
			...client,
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
