/** What the authorization server keeps in the store, record by record, and for how long. */

/** A consent in progress: the authorization request as the SDK checked it, waiting for the person's answer. */
export interface ConsentRecord {
	clientId: string;
	redirectUri: string;
	codeChallenge: string;
	state?: string;
	/** The resource the token will be for: always this server's. */
	resource: string;
	/** What the client asked for (shown; the person chooses). */
	requestedScope: string;
	/** Hashes of the form's CSRF value and of the browser's consent cookie: a POST needs both. */
	csrfHash: string;
	browserHash: string;
}

/** A code handed to the client's redirect URI, exchanged once for the grant's first tokens. */
export interface CodeRecord {
	clientId: string;
	redirectUri: string;
	codeChallenge: string;
	resource: string;
	scope: string;
	/** The workspace token, sealed: the grant is made when the code is exchanged. */
	sealedWorkspaceToken: string;
}

/** One person's consent to one client: the workspace it acts on and the access given. */
export interface GrantRecord {
	clientId: string;
	scope: string;
	resource: string;
	sealedWorkspaceToken: string;
	createdAt: number;
}

/** An access or refresh token, found by its hash. */
export interface TokenRecord {
	grantId: string;
	clientId: string;
	scope: string;
	resource: string;
	/** Seconds since the epoch (access tokens). */
	expiresAt?: number;
}

/** A code or refresh token already used: seen again, its grant is revoked (someone has a copy). */
export interface UsedRecord {
	grantId: string;
}

export const TTL = {
	consent: 15 * 60,
	code: 5 * 60,
	access: 60 * 60,
	refresh: 30 * 24 * 3600,
} as const;
