/**
 * The fetch of client ID metadata documents: documents served here on loopback only, over TLS with a certificate
 * made for the test. The address rule is proved twice: a loopback URL is refused although a server answers there,
 * and the resolver seam says a name resolves to private or metadata addresses without any of them being reached.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { isPublicAddress, safeFetchText, UnsafeFetchError } from '../src/oauth/safeFetch';
import { selfSigned } from './selfSigned';

const dir = mkdtempSync(join(tmpdir(), 'cimd-'));
let server: Server;
let port: number;
let cert: Buffer;
let served = 0;
const DOCUMENT = JSON.stringify({ client_id: 'https://client.example/meta.json', redirect_uris: ['https://client.example/cb'] });

beforeAll(async () => {
	const made = selfSigned(dir, 'client.example');
	cert = made.cert;
	server = createServer(made, (req, res) => {
		served++;
		if (req.url === '/slow.json') return void setTimeout(() => res.end(DOCUMENT), 2000).unref();
		if (req.url === '/large.json') return void res.end(' '.repeat(64 * 1024));
		if (req.url === '/redirect.json') return void res.writeHead(302, { location: '/meta.json' }).end();
		res.writeHead(200, { 'content-type': 'application/json' }).end(DOCUMENT);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	port = (server.address() as { port: number }).port;
});

afterAll(async () => {
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
	rmSync(dir, { recursive: true, force: true });
});

/** The seam as a test uses it: client.example is this loopback server, which only these fetches may reach. */
const toLoopback = {
	resolve: async () => [{ address: '127.0.0.1', family: 4 }],
	allowAddress: (address: string) => address === '127.0.0.1',
	ca: '',
};
const seam = () => ({ ...toLoopback, ca: cert });

const refusal = (promise: Promise<unknown>) =>
	promise.then(
		() => 'fetched',
		(error: unknown) => (error instanceof UnsafeFetchError ? error.message : `not refused as unsafe: ${String(error)}`),
	);

test('the rule: private, loopback, link-local, shared, metadata and IPv4-carrying IPv6 addresses are not public', () => {
	for (const address of [
		'127.0.0.1',
		'10.1.2.3',
		'172.20.0.1',
		'192.168.1.1',
		'169.254.169.254',
		'100.64.0.1',
		'0.0.0.0',
		'::1',
		'fe80::1',
		'fd00::1',
		'::ffff:10.0.0.1',
		'::ffff:127.0.0.1',
		'::ffff:7f00:1',
		'::',
		// IPv4-compatible (::/96), 6to4 (2002::/16) and Teredo (2001::/32) addresses carry an IPv4 address.
		'::7f00:1',
		'::a00:1',
		'2002:7f00:1::1',
		'2002:5db8:d822::1',
		'2001:0:4136:e378:8000:63bf:3fff:fdd2',
	])
		expect([address, isPublicAddress(address)]).toEqual([address, false]);
	for (const address of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:93.184.216.34', '2001:4860:4860::8888'])
		expect([address, isPublicAddress(address)]).toEqual([address, true]);
});

test('a document on this loopback server is fetched when the seam allows loopback (the test’s own server)', async () => {
	expect(JSON.parse(await safeFetchText(`https://client.example:${port}/meta.json`, seam()))).toEqual(JSON.parse(DOCUMENT));
});

test('a loopback URL is refused, though a server answers there, and nothing is requested', async () => {
	const before = served;
	expect(await refusal(safeFetchText(`https://127.0.0.1:${port}/meta.json`, { ca: cert }))).toBe('127.0.0.1 is not a public address');
	expect(await refusal(safeFetchText(`https://localhost:${port}/meta.json`, { ca: cert }))).toMatch(
		/localhost resolves to (127\.0\.0\.1|::1), not a public address/,
	);
	expect(served).toBe(before);
});

test('a name that resolves to a private or metadata address is refused before any connection', async () => {
	for (const address of ['10.0.0.5', '169.254.169.254', '192.168.0.10', 'fd12::1']) {
		const resolve = async () => [{ address, family: address.includes(':') ? 6 : 4 }];
		expect(await refusal(safeFetchText('https://client.example/meta.json', { resolve }))).toBe(
			`client.example resolves to ${address}, not a public address`,
		);
	}
});

test('http, a user in the URL, a redirect, too large and too slow are refused', async () => {
	expect(await refusal(safeFetchText(`http://client.example:${port}/meta.json`, seam()))).toBe('only https URLs are fetched');
	expect(await refusal(safeFetchText(`https://user:pw@client.example:${port}/meta.json`, seam()))).toBe(
		'a URL with a user or password is not fetched',
	);
	expect(await refusal(safeFetchText(`https://client.example:${port}/redirect.json`, seam()))).toBe(
		'answered 302 (redirects are not followed)',
	);
	expect(await refusal(safeFetchText(`https://client.example:${port}/large.json`, seam()))).toBe('larger than 10240 bytes');
	expect(await refusal(safeFetchText(`https://client.example:${port}/slow.json`, { ...seam(), timeoutMs: 300 }))).toBe(
		'no complete answer within 300 ms',
	);
});
