/**
 * The authorization server's decisions, behind the MCP SDK's OAuth handlers (which parse the requests, check the
 * client, its redirect URI and PKCE's S256 verifier, and write the answers): what an authorization request
 * becomes (a consent page), what a code and a refresh token are exchanged for, what revocation removes, and
 * whether an access token is good. Tokens are random and opaque; only their hashes are stored. A code or a
 * refresh token is used once: seen again, the grant behind it is revoked, since someone holds a copy.
 */
import { randomBytes, randomUUID } from 'node:crypto';

import type { Response } from 'express';

import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { InvalidGrantError, InvalidScopeError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

import type { SecretBox } from '../store/secretBox';
import { tokenHash } from '../store/secretBox';
import type { GrantStore } from '../store/store';
import type { CatalogueTool } from '../tools';
import { log } from '../log';
import type { Clients } from './clients';
import { renderConsent } from './consentPage';
import type { CodeRecord, ConsentRecord, GrantRecord, TokenRecord, UsedRecord } from './records';
import { TTL } from './records';
import { checkResource, checkScopeWords, verifierMatches } from './requestChecks';
import { normalScope, scopeWithin } from './scopes';

const newToken = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

export interface ProviderOptions {
	store: GrantStore;
	secrets: SecretBox;
	clients: Clients;
	/** This server's MCP endpoint, the one resource its tokens are for. */
	resource: string;
	/** The issuer, sent back as `iss` with every authorization response (RFC 9207). */
	issuer: string;
	/** The catalogue's tools, to read scopes against. */
	allTools: readonly CatalogueTool[];
	/** Where the consent page posts. */
	consentPath: string;
	/** Whether the consent cookie is marked Secure (an https public URL). */
	secureCookie: boolean;
}

/** The grant an access token stands for, as the resource server uses it. */
export interface VerifiedGrant {
	grantId: string;
	clientId: string;
	scope: string;
	grant: GrantRecord;
}

export const CONSENT_COOKIE = (secure: boolean) => (secure ? '__Host-chat-messaging-consent' : 'chat-messaging-consent');

export class GrantProvider implements OAuthServerProvider {
	constructor(private readonly options: ProviderOptions) {}

	get clientsStore(): Clients {
		return this.options.clients;
	}

	/**
	 * An authorization request the SDK has checked (client, redirect URI, S256 challenge): kept as a consent in
	 * progress, and the consent page shown, bound to this browser by a cookie and to the form by a CSRF value.
	 */
	async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
		checkResource(params.resource?.href, this.options.resource, this.options.resource);
		// Words this server does not know are left out: the person chooses the access on the page anyway.
		const requested = normalScope((params.scopes ?? []).join(' '));
		const consentId = randomUUID();
		const csrf = randomBytes(32).toString('base64url');
		const browser = randomBytes(32).toString('base64url');
		const record: ConsentRecord = {
			clientId: client.client_id,
			redirectUri: params.redirectUri,
			codeChallenge: params.codeChallenge,
			...(params.state !== undefined ? { state: params.state } : {}),
			resource: this.options.resource,
			requestedScope: requested,
			csrfHash: tokenHash(csrf),
			browserHash: tokenHash(browser),
		};
		await this.options.store.put('consent', consentId, record, TTL.consent);
		res.cookie(CONSENT_COOKIE(this.options.secureCookie), browser, {
			httpOnly: true,
			sameSite: 'strict',
			secure: this.options.secureCookie,
			path: '/',
			maxAge: TTL.consent * 1000,
		});
		renderConsent(res, 200, { client, consent: record, consentId, csrf, action: this.options.consentPath });
	}

	/** The consent in progress, when the form's CSRF value and the browser's cookie both match it. */
	async consentFor(consentId: string, csrf: string, browser: string): Promise<ConsentRecord | undefined> {
		const record = await this.options.store.get<ConsentRecord>('consent', consentId);
		if (!record || record.csrfHash !== tokenHash(csrf) || record.browserHash !== tokenHash(browser)) return undefined;
		return record;
	}

	/**
	 * The person said no, or yes with a checked workspace token: the consent ends, the answer goes to the redirect URI.
	 * Undefined when the consent has already ended: of two submissions of one form, however close, one gets a code.
	 * Taken only now, after the workspace token's check, so that a token the service refused leaves the form to retry.
	 */
	async finishConsent(consentId: string, outcome: { scope: string; workspaceToken: string } | 'denied'): Promise<string | undefined> {
		const record = await this.options.store.take<ConsentRecord>('consent', consentId);
		if (!record) return undefined;
		const target = new URL(record.redirectUri);
		if (outcome === 'denied') {
			target.searchParams.set('error', 'access_denied');
			target.searchParams.set('error_description', 'The person declined to connect a workspace');
		} else {
			const code = newToken('cmc_');
			const codeRecord: CodeRecord = {
				clientId: record.clientId,
				redirectUri: record.redirectUri,
				codeChallenge: record.codeChallenge,
				resource: record.resource,
				scope: normalScope(outcome.scope),
				sealedWorkspaceToken: this.options.secrets.seal(outcome.workspaceToken, 'workspace'),
			};
			await this.options.store.put('code', tokenHash(code), codeRecord, TTL.code);
			target.searchParams.set('code', code);
		}
		if (record.state !== undefined) target.searchParams.set('state', record.state);
		target.searchParams.set('iss', this.options.issuer);
		return target.href;
	}

	/**
	 * The PKCE verifier is checked here, in the exchange, not by the SDK's token handler before it: a wrong verifier
	 * must use the code up (so that it cannot be guessed at), which a check that runs before the exchange cannot do.
	 */
	readonly skipLocalPkceValidation = true;

	/** Part of the SDK's provider interface; its token handler does not ask for it while skipLocalPkceValidation is set. */
	async challengeForAuthorizationCode(client: OAuthClientInformationFull, authorizationCode: string): Promise<string> {
		return (await this.codeOf(client, tokenHash(authorizationCode))).codeChallenge;
	}

	async exchangeAuthorizationCode(
		client: OAuthClientInformationFull,
		authorizationCode: string,
		codeVerifier?: string,
		redirectUri?: string,
		resource?: URL,
	): Promise<OAuthTokens> {
		const hash = tokenHash(authorizationCode);
		// The request is checked before the code is used up: a wrong redirect_uri or resource (or another client's
		// code) says nothing of whether the sender holds the verifier, and the client may correct its request and try
		// again. RFC 6749 lets a server either keep or void the code here; keeping it spares an honest client a new
		// consent, and the code stays single-use all the same: only the exchange below takes it.
		const found = await this.codeOf(client, hash);
		if (redirectUri !== undefined && redirectUri !== found.redirectUri)
			throw new InvalidGrantError('redirect_uri is not the one the code was issued for');
		checkResource(resource?.href, found.resource, this.options.resource);
		const record = await this.options.store.take<CodeRecord>('code', hash);
		if (!record) return this.refuseCode(hash);
		// Taken first, then the verifier: a wrong one has used the code up.
		if (!codeVerifier || !verifierMatches(codeVerifier, record.codeChallenge))
			throw new InvalidGrantError('code_verifier does not match the challenge: the code is used up, start connecting again');
		const grantId = randomUUID();
		const grant: GrantRecord = {
			clientId: record.clientId,
			scope: record.scope,
			resource: record.resource,
			sealedWorkspaceToken: record.sealedWorkspaceToken,
			createdAt: nowSeconds(),
		};
		await this.options.store.put('grant', grantId, grant, TTL.refresh);
		await this.options.store.put('usedCode', hash, { grantId } satisfies UsedRecord, TTL.code);
		return this.issueTokens(grantId, grant, record.scope);
	}

	async exchangeRefreshToken(
		client: OAuthClientInformationFull,
		refreshToken: string,
		scopes?: string[],
		resource?: URL,
	): Promise<OAuthTokens> {
		const hash = tokenHash(refreshToken);
		// Everything is checked on a read, before the token is used up: a refused refresh (another client, another
		// resource, a scope it cannot have) leaves the token as it was, its expiry included, so that the client's next
		// try with it is not taken for a stolen copy's reuse.
		const found = await this.options.store.get<TokenRecord>('refresh', hash);
		if (!found || found.clientId !== client.client_id) return this.refuseRefresh(hash);
		const grant = await this.options.store.get<GrantRecord>('grant', found.grantId);
		if (!grant) throw new InvalidGrantError('The grant was revoked');
		checkResource(resource?.href, found.resource, this.options.resource);
		const words = (scopes ?? []).join(' ').trim();
		// A word this server does not know is refused by name, not dropped: dropped, it would narrow the token silently.
		checkScopeWords(words);
		const asked = words ? normalScope(words) : found.scope;
		if (!scopeWithin(asked, grant.scope, this.options.allTools))
			throw new InvalidScopeError(`A refreshed token may narrow the grant's scope (${grant.scope}), not widen it`);
		// The exchange goes ahead: the token is used up, once, whichever of two concurrent requests takes it.
		const record = await this.options.store.take<TokenRecord>('refresh', hash);
		if (!record) return this.refuseRefresh(hash);
		await this.options.store.put('usedRefresh', hash, { grantId: record.grantId } satisfies UsedRecord, TTL.refresh);
		// The grant lives as long as its refresh tokens are used.
		await this.options.store.put('grant', record.grantId, grant, TTL.refresh);
		return this.issueTokens(record.grantId, grant, asked);
	}

	async verifyAccessToken(token: string): Promise<AuthInfo> {
		const verified = await this.verifiedGrant(token);
		if (!verified) throw new InvalidTokenError('The access token is not valid: unknown, expired or revoked');
		const { record } = verified;
		return {
			token,
			clientId: record.clientId,
			scopes: record.scope.split(' ').filter(Boolean),
			expiresAt: record.expiresAt ?? 0,
			resource: new URL(record.resource),
			extra: { grantId: record.grantId },
		};
	}

	/** The token's record and its grant: both must be there (revoking a grant ends every token of it at once). */
	async verifiedGrant(token: string): Promise<(VerifiedGrant & { record: TokenRecord }) | undefined> {
		const record = await this.options.store.get<TokenRecord>('access', tokenHash(token));
		if (!record || (record.expiresAt ?? 0) <= nowSeconds()) return undefined;
		const grant = await this.options.store.get<GrantRecord>('grant', record.grantId);
		if (!grant) return undefined;
		return { grantId: record.grantId, clientId: record.clientId, scope: record.scope, grant, record };
	}

	/** RFC 7009: an access token ends alone; a refresh token ends its whole grant. Unknown tokens are no error. */
	async revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
		const hash = tokenHash(request.token);
		const kinds = request.token_type_hint === 'refresh_token' ? (['refresh', 'access'] as const) : (['access', 'refresh'] as const);
		for (const kind of kinds) {
			const record = await this.options.store.get<TokenRecord>(kind, hash);
			if (!record || record.clientId !== client.client_id) continue;
			await this.options.store.delete(kind, hash);
			if (kind === 'refresh') await this.options.store.delete('grant', record.grantId);
			return;
		}
	}

	/**
	 * The workspace token of a grant, unsealed for its executor. Undefined when it cannot be opened (sealed with a key
	 * taken out of CHAT_MESSAGING_MCP_SECRET_KEY, or changed): the grant is dropped, so that its client is told its token
	 * is no good and connects again, where keeping it would fail every request it makes.
	 */
	async workspaceTokenOf(grantId: string, grant: GrantRecord): Promise<string | undefined> {
		try {
			return this.options.secrets.open(grant.sealedWorkspaceToken, 'workspace');
		} catch (error) {
			await this.options.store.delete('grant', grantId);
			log(`a grant was dropped, its client will connect again: ${(error as Error).message}`);
			return undefined;
		}
	}

	/** The code, when it is the client's; else refused (see refuseCode). */
	private async codeOf(client: OAuthClientInformationFull, hash: string): Promise<CodeRecord> {
		const record = await this.options.store.get<CodeRecord>('code', hash);
		if (!record || record.clientId !== client.client_id) return this.refuseCode(hash);
		return record;
	}

	private async refuseCode(hash: string): Promise<never> {
		await this.refuseReuse('usedCode', hash);
		throw new InvalidGrantError('The code is not valid: unknown, expired, already used or issued to another client');
	}

	private async refuseRefresh(hash: string): Promise<never> {
		await this.refuseReuse('usedRefresh', hash);
		throw new InvalidGrantError('The refresh token is not valid: unknown, expired, revoked, already used or issued to another client');
	}

	/** A used code or refresh token presented again: its grant is revoked, whoever presents it. */
	private async refuseReuse(kind: 'usedCode' | 'usedRefresh', hash: string): Promise<void> {
		const used = await this.options.store.get<UsedRecord>(kind, hash);
		if (used) await this.options.store.delete('grant', used.grantId);
	}

	private async issueTokens(grantId: string, grant: GrantRecord, scope: string): Promise<OAuthTokens> {
		const accessToken = newToken('cma_');
		const refreshToken = newToken('cmr_');
		const base = { grantId, clientId: grant.clientId, scope, resource: grant.resource };
		await this.options.store.put(
			'access',
			tokenHash(accessToken),
			{ ...base, expiresAt: nowSeconds() + TTL.access } satisfies TokenRecord,
			TTL.access,
		);
		await this.options.store.put('refresh', tokenHash(refreshToken), base satisfies TokenRecord, TTL.refresh);
		return { access_token: accessToken, token_type: 'Bearer', expires_in: TTL.access, refresh_token: refreshToken, scope };
	}
}
