/**
 * Who may use the Streamable HTTP endpoint. A web page the user visits can make the browser send requests to
 * any address, its own host name rebound to 127.0.0.1 (DNS rebinding): such a request names the page's host
 * in Host and Origin, so both are checked on every request, on every address the server listens on. Host
 * names are compared after parsing, never by prefix (`127.0.0.1.rebind.attacker.example` is a name, not an
 * address). Beyond loopback, a bearer secret is what keeps others out.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { BlockList, isIP } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Whether a host name is loopback: exactly `localhost`, or an IPv4 literal in 127.0.0.0/8 or the IPv6 literal
 * ::1 (any spelling of it, brackets optional). A DNS name can never be one of these, whatever it resolves to.
 */
export function isLoopbackName(hostname: string): boolean {
	const name = hostname.toLowerCase();
	if (name === 'localhost') return true;
	const literal = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
	const version = isIP(literal);
	if (version === 4) return LOOPBACK.check(literal, 'ipv4');
	if (version === 6) return LOOPBACK.check(literal, 'ipv6');
	return false;
}

export interface HostAndPort {
	/** Lower case; an IPv6 literal in brackets. */
	hostname: string;
	port?: number;
}

/** A Host header (or an allow-list entry): `name`, `name:port`, `[v6]` or `[v6]:port`; undefined for anything else. */
export function parseHost(value: string | undefined): HostAndPort | undefined {
	const match = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::(\d{1,5}))?$/i.exec((value ?? '').trim());
	if (!match) return undefined;
	const hostname = (match[1] ?? '').toLowerCase();
	if (hostname.startsWith('[') && isIP(hostname.slice(1, -1)) !== 6) return undefined;
	const port = match[2] === undefined ? undefined : Number(match[2]);
	if (port !== undefined && port > 65535) return undefined;
	return { hostname, ...(port !== undefined ? { port } : {}) };
}

/** A browser origin (`https://app.example.com`), normalised; undefined when the text is not one (`null`, a path, another scheme). */
export function parseOrigin(value: string | undefined): string | undefined {
	let url: URL;
	try {
		url = new URL((value ?? '').trim());
	} catch {
		return undefined;
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
	if (url.username || url.password || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) return undefined;
	return url.origin;
}

export interface AccessRules {
	/** Host names requests may name besides loopback (`name` any port, `name:port` that port). */
	allowedHosts: readonly HostAndPort[];
	/** Browser origins allowed besides loopback ones, normalised by `parseOrigin`. */
	allowedOrigins: readonly string[];
	/** The secret clients send as `Authorization: Bearer …`; unset on loopback without one. */
	authToken?: string;
}

export interface Refusal {
	status: 401 | 403;
	message: string;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Compared in constant time (of equal-length digests), so the answer's timing tells nothing about the secret. */
export function bearerMatches(header: string | undefined, secret: string): boolean {
	const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
	return timingSafeEqual(digest(match?.[1] ?? ''), digest(secret)) && match !== null;
}

/** Why a request is refused, or undefined when it may go on. Host first, then Origin, then the secret. */
export function refusal(headers: { host?: string; origin?: string; authorization?: string }, rules: AccessRules): Refusal | undefined {
	const host = parseHost(headers.host);
	const hostAllowed =
		host !== undefined &&
		(isLoopbackName(host.hostname) ||
			rules.allowedHosts.some((entry) => entry.hostname === host.hostname && (entry.port === undefined || entry.port === host.port)));
	if (!hostAllowed) return { status: 403, message: 'Forbidden: the Host header names neither loopback nor an allowed host' };
	if (headers.origin !== undefined) {
		const origin = parseOrigin(headers.origin);
		const originAllowed = origin !== undefined && (isLoopbackName(new URL(origin).hostname) || rules.allowedOrigins.includes(origin));
		if (!originAllowed) return { status: 403, message: 'Forbidden: the Origin is neither loopback nor an allowed origin' };
	}
	if (rules.authToken !== undefined && !bearerMatches(headers.authorization, rules.authToken))
		return { status: 401, message: 'Unauthorized: send the server\'s secret as "Authorization: Bearer …"' };
	return undefined;
}

/**
 * What listening on an address needs that is missing: beyond loopback, a client secret and explicit lists of
 * the Host names and Origins to accept. Empty when nothing is.
 */
export function missingForAddress(
	address: string,
	given: { authToken?: string; allowedHosts?: readonly unknown[]; allowedOrigins?: readonly unknown[] },
	names: { authToken: string; allowedHosts: string; allowedOrigins: string },
): string[] {
	if (isLoopbackName(address)) return [];
	return [
		...(given.authToken ? [] : [`${names.authToken} (the secret clients must send as "Authorization: Bearer …")`]),
		...(given.allowedHosts?.length ? [] : [`${names.allowedHosts} (the Host names clients use to reach this server)`]),
		...(given.allowedOrigins ? [] : [`${names.allowedOrigins} (the browser origins to accept, or "none")`]),
	];
}
