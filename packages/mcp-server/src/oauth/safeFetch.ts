/**
 * The fetch of a client ID metadata document: a URL any client may name, fetched by this server, so fetched as an
 * untrusted URL. https only; no user or password in it; a public address only (never loopback, a private or
 * link-local network, or a cloud's metadata address), checked on the address the socket connects to (the lookup
 * below is the connection's own, so a name cannot resolve one way for the check and another for the connection);
 * no redirect followed; a size and a time limit. The resolver is a seam: a test says what a name resolves to
 * without leaving loopback.
 */
import { request } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { lookup as dnsLookup } from 'node:dns';

/** Where no fetched URL may lead: every range that is not the public internet. */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
	['0.0.0.0', 8],
	['10.0.0.0', 8],
	['100.64.0.0', 10],
	['127.0.0.0', 8],
	['169.254.0.0', 16],
	['172.16.0.0', 12],
	['192.0.0.0', 24],
	['192.0.2.0', 24],
	['192.88.99.0', 24],
	['192.168.0.0', 16],
	['198.18.0.0', 15],
	['198.51.100.0', 24],
	['203.0.113.0', 24],
	['224.0.0.0', 4],
	['240.0.0.0', 4],
] as const)
	NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
// Addresses that carry an IPv4 address (IPv4-compatible ::/96, which holds :: and ::1 too; 6to4; Teredo) are refused
// whole rather than judged by it: an embedded private or loopback address could be reached through them, and no
// public client needs them.
// (IPv4-mapped ::ffff:0:0/96 is judged as its IPv4 address: BlockList checks it against the IPv4 ranges.)
for (const [network, prefix] of [
	['::', 96],
	['64:ff9b::', 96],
	['100::', 64],
	['2001::', 32],
	['2002::', 16],
	['2001:db8::', 32],
	['fc00::', 7],
	['fe80::', 10],
	['ff00::', 8],
] as const)
	NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');

/** Whether an address is on the public internet (an IPv4-mapped IPv6 address is judged as its IPv4 address). */
export function isPublicAddress(address: string): boolean {
	const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
	if (mapped?.[1]) return isPublicAddress(mapped[1]);
	const version = isIP(address);
	if (version === 0) return false;
	return !NOT_PUBLIC.check(address, version === 4 ? 'ipv4' : 'ipv6');
}

export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

const systemResolver: Resolver = (hostname) =>
	new Promise((resolve, reject) => dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

export interface SafeFetchOptions {
	/** What a name resolves to (the system's resolver unless a test says otherwise). */
	resolve?: Resolver;
	/** Which addresses may be connected to: public ones unless a test serving on loopback says otherwise. */
	allowAddress?: (address: string) => boolean;
	/** Certificates to trust besides the system's (a test's own). */
	ca?: string | Buffer;
	timeoutMs?: number;
	maxBytes?: number;
}

/** A document refused, with why (for the server's log: the client is told only that the document was refused). */
export class UnsafeFetchError extends Error {}

export const DOCUMENT_LIMITS = { timeoutMs: 5000, maxBytes: 10 * 1024 } as const;

/** The document at `url` as text, or an UnsafeFetchError saying why not. */
export function safeFetchText(url: string, options: SafeFetchOptions = {}): Promise<string> {
	const timeoutMs = options.timeoutMs ?? DOCUMENT_LIMITS.timeoutMs;
	const maxBytes = options.maxBytes ?? DOCUMENT_LIMITS.maxBytes;
	const allowAddress = options.allowAddress ?? isPublicAddress;
	const resolve = options.resolve ?? systemResolver;
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		return Promise.reject(new UnsafeFetchError('not a URL'));
	}
	if (parsed.protocol !== 'https:') return Promise.reject(new UnsafeFetchError('only https URLs are fetched'));
	if (parsed.username || parsed.password) return Promise.reject(new UnsafeFetchError('a URL with a user or password is not fetched'));
	const literal = parsed.hostname.replace(/^\[|\]$/g, '');
	if (isIP(literal) && !allowAddress(literal)) return Promise.reject(new UnsafeFetchError(`${literal} is not a public address`));
	// Node asks for every address (`all`, to try each family in turn) or for one; either way every address is checked.
	const lookup = ((hostname: string, lookupOptions: { all?: boolean }, callback: (...args: unknown[]) => void) => {
		resolve(hostname).then(
			(addresses) => {
				const refused = addresses.find((entry) => !allowAddress(entry.address));
				const first = addresses[0];
				if (refused) return callback(new UnsafeFetchError(`${hostname} resolves to ${refused.address}, not a public address`));
				if (!first) return callback(new UnsafeFetchError(`${hostname} resolves to no address`));
				if (lookupOptions.all) return callback(null, addresses);
				callback(null, first.address, first.family);
			},
			(error: Error) => callback(new UnsafeFetchError(`${hostname} cannot be resolved: ${error.message}`)),
		);
	}) as unknown as LookupFunction;
	return new Promise((resolvePromise, reject) => {
		const req = request(
			parsed,
			{ method: 'GET', headers: { accept: 'application/json' }, lookup, ...(options.ca ? { ca: options.ca } : {}), timeout: timeoutMs },
			(res) => {
				if (res.statusCode !== 200) {
					res.resume();
					return reject(
						new UnsafeFetchError(
							`answered ${res.statusCode}${res.statusCode && res.statusCode < 400 ? ' (redirects are not followed)' : ''}`,
						),
					);
				}
				const declared = Number(res.headers['content-length'] ?? 0);
				if (declared > maxBytes) {
					req.destroy();
					return reject(new UnsafeFetchError(`larger than ${maxBytes} bytes`));
				}
				const chunks: Buffer[] = [];
				let size = 0;
				res.on('data', (chunk: Buffer) => {
					size += chunk.length;
					if (size > maxBytes) {
						req.destroy();
						reject(new UnsafeFetchError(`larger than ${maxBytes} bytes`));
					} else chunks.push(chunk);
				});
				res.on('end', () => resolvePromise(Buffer.concat(chunks).toString('utf8')));
				res.on('error', (error) => reject(error instanceof UnsafeFetchError ? error : new UnsafeFetchError(error.message)));
			},
		);
		// The whole exchange, not only an idle socket, is bounded: a server that trickles bytes is cut off too.
		const timer = setTimeout(() => {
			req.destroy();
			reject(new UnsafeFetchError(`no complete answer within ${timeoutMs} ms`));
		}, timeoutMs);
		req.on('close', () => clearTimeout(timer));
		req.on('timeout', () => {
			req.destroy();
			reject(new UnsafeFetchError(`no complete answer within ${timeoutMs} ms`));
		});
		req.on('error', (error) => reject(error instanceof UnsafeFetchError ? error : new UnsafeFetchError(error.message)));
		req.end();
	});
}
