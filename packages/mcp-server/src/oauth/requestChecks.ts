/**
 * The checks of what an authorization or token request names (its resource, its scope, its PKCE verifier), each
 * refusing with the OAuth error a client reads: the provider runs them before it uses anything up.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

import { InvalidScopeError, InvalidTargetError } from '@modelcontextprotocol/sdk/server/auth/errors.js';

import { toolScopeOf } from './scopes';

/** A resource as compared: without a fragment and one trailing slash (as the SDK's bearer check compares it). */
const comparable = (resource: string) => resource.replace(/#.*$/, '').replace(/\/$/, '');

/** A resource a request names (none: any), refused with invalid_target unless it is `expected`; `ours` is this server's. */
export function checkResource(named: string | undefined, expected: string, ours: string): void {
	if (named !== undefined && comparable(named) !== comparable(expected))
		throw new InvalidTargetError(`This server issues tokens for ${ours} only`);
}

/** A scope's words, refused with invalid_scope naming any this server does not know. */
export function checkScopeWords(scope: string): void {
	try {
		toolScopeOf(scope);
	} catch (error) {
		throw new InvalidScopeError((error as Error).message);
	}
}

/** PKCE S256 (RFC 7636 §4.6): the verifier's SHA-256, base64url, is the challenge. */
export function verifierMatches(verifier: string, challenge: string): boolean {
	const computed = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
	const expected = Buffer.from(challenge);
	return computed.length === expected.length && timingSafeEqual(computed, expected);
}
