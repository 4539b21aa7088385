#!/usr/bin/env node
// Runs Node-RED's own flow-library scorecard, `node-red-dev validate`, on the Node-RED package exactly as it is
// published: the tarball `npm run build` packed (dist/packages.json names it), unpacked into a temporary folder
// with its production dependencies installed (the D03 check reads them).
//
// node-red-dev fetches two things over the network: the npm registry (P06/P07: node-red's dist-tags and engines;
// D02/D03: the dependency tree and latest versions), which CI reaches, and the flow library's catalogue
// (https://catalogue.nodered.org/catalogue.json, for P08 "similar name" and N01 "unique node types"), which CI
// cannot reach. Its HTTP client honours HTTPS_PROXY and sends https URLs to an http proxy as plain requests, so it
// runs behind a loopback proxy that passes every request through to its real host, except the catalogue when
// that host is unreachable: then the proxy answers with the snapshot in CHAT_MESSAGING_NR_CATALOGUE (a saved
// catalogue.json) or, without one, an empty catalogue, and this script says that P08 and N01 were not checked
// against the real library.
//
// node-red-dev reports findings as warnings and exits 0; the scorecard it writes (--output) is what counts:
// every check must pass. Prints one line per check and "node-red-dev validate: N passed, N failed".
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const CATALOGUE = 'https://catalogue.nodered.org/catalogue.json';

// CHAT_MESSAGING_NR_TARBALL=<file> validates that tarball instead (for example a deliberately broken one).
const tarball =
	process.env.CHAT_MESSAGING_NR_TARBALL ??
	join(
		root,
		JSON.parse(readFileSync(join(root, 'dist', 'packages.json'), 'utf8')).packages.find(
			(/** @type {{folder: string}} */ pkg) => pkg.folder === 'packages/node-red',
		)?.tarball ?? '(dist/packages.json lists no packed packages/node-red: run `npm run build`)',
	);

const work = mkdtempSync(join(tmpdir(), 'node-red-validate-'));
const packageDir = join(work, 'package');
let catalogueOffline = false;

/** The loopback proxy: real hosts pass through; an unreachable catalogue is answered from the snapshot. */
const proxy = createServer(async (request, response) => {
	const url = request.url ?? '';
	try {
		const upstream = await fetch(url, { method: request.method, signal: AbortSignal.timeout(15_000) });
		response.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/octet-stream' });
		response.end(Buffer.from(await upstream.arrayBuffer()));
	} catch (error) {
		if (url.startsWith(CATALOGUE)) {
			catalogueOffline = true;
			const snapshot = process.env.CHAT_MESSAGING_NR_CATALOGUE;
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end(snapshot ? readFileSync(snapshot) : JSON.stringify({ name: 'offline', updated_at: '', modules: [] }));
			return;
		}
		response.writeHead(502, { 'content-type': 'text/plain' });
		response.end(`proxy: ${url} unreachable: ${error instanceof Error ? error.message : String(error)}`);
	}
});

// Clients that tunnel (CONNECT, as npm-remote-ls does for D02) get a plain TCP tunnel to the real host.
proxy.on('connect', (request, client, head) => {
	const [host, port] = (request.url ?? '').split(':');
	const upstream = connect(Number(port) || 443, host, () => {
		client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
		upstream.write(head);
		upstream.pipe(client);
		client.pipe(upstream);
	});
	upstream.on('error', () => client.destroy());
	client.on('error', () => upstream.destroy());
});

try {
	execFileSync('tar', ['-xzf', tarball, '-C', work]);
	// What a user's install brings: the package's production dependencies, no scripts, quietly. npm resolves
	// devDependencies even when it omits them, and ours name the workspace's unpublished core: drop them here
	// (the scorecard ignores devDependencies), as a consumer's install never reads them.
	const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
	delete manifest.devDependencies;
	// node-red-dev 0.1.6 records P05 as passed even without the keyword (it only warns): checked here instead.
	const keyword = Array.isArray(manifest.keywords) && manifest.keywords.includes('node-red');
	writeFileSync(join(packageDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
	execFileSync('npm', ['install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error'], {
		cwd: packageDir,
		stdio: ['ignore', 'ignore', 'inherit'],
	});
	await new Promise((resolve) => proxy.listen(0, '127.0.0.1', () => resolve(undefined)));
	const proxyUrl = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (proxy.address()).port}`;
	const scorecardFile = join(work, 'scorecard.json');
	const bin = join(root, 'node_modules', 'node-red-dev', 'bin', 'run');
	const code = await new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [bin, 'validate', '--path', packageDir, '--output', scorecardFile], {
			env: { ...process.env, HTTPS_PROXY: proxyUrl, https_proxy: proxyUrl, NO_PROXY: '', no_proxy: '' },
			stdio: ['ignore', 'inherit', 'inherit'],
		});
		child.on('error', reject);
		child.on('exit', resolve);
	});
	if (code !== 0) throw new Error(`node-red-dev validate exited ${code}`);
	/** @type {Record<string, {test: boolean} & Record<string, unknown>>} */
	const scorecard = JSON.parse(readFileSync(scorecardFile, 'utf8'));
	// The scorecard also names the package; the checks are the entries with an id such as P01 or N02.
	const results = Object.entries(scorecard)
		.filter(([id]) => /^[A-Z]\d\d$/.test(id))
		.sort(([a], [b]) => a.localeCompare(b));
	for (const [id, result] of results) {
		const { test, ...detail } = result;
		console.log(`  ${test ? 'pass' : 'FAIL'} ${id}${Object.keys(detail).length ? ` ${JSON.stringify(detail)}` : ''}`);
	}
	if (catalogueOffline)
		console.log(
			`  note: ${CATALOGUE} was unreachable; P08 and N01 were checked against ${process.env.CHAT_MESSAGING_NR_CATALOGUE ?? 'an empty catalogue'}, not the live flow library`,
		);
	if (!keyword) console.log('  FAIL P05 (checked here) package.json keywords lack "node-red"');
	const failed = results.filter(([, result]) => !result.test).length + (keyword ? 0 : 1);
	console.log(`node-red-dev validate: ${results.length - failed} passed, ${failed} failed`);
	process.exitCode = failed === 0 && results.length > 0 ? 0 : 1;
} finally {
	proxy.close();
	rmSync(work, { recursive: true, force: true });
}
