#!/usr/bin/env node
// Builds every package from its own folder, in dependency order, packs the publishable ones, and writes
// dist/packages.json: for every package its name, version, folder, built entry and packed tarball, so
// tests, benchmarks and CI find the packages without knowing how each is laid out.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The workspaces in the order they build (a package after what it compiles in or ships). */
const order = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).workspaces;
const packs = join(root, 'dist', 'packs');

/** @param {string} dir */
function entryOf(dir, /** @type {Record<string, any>} */ pkg) {
	if (pkg.n8n) return [...pkg.n8n.nodes, ...pkg.n8n.credentials].map((file) => join(dir, file));
	if (pkg['node-red']) return Object.values(pkg['node-red'].nodes).map((file) => join(dir, String(file)));
	return [join(dir, pkg.main)];
}

const started = Date.now();
rmSync(join(root, 'dist'), { recursive: true, force: true });
mkdirSync(packs, { recursive: true });
for (const dir of order) {
	const t0 = Date.now();
	execFileSync('npm', ['run', '--silent', 'build'], { cwd: join(root, dir), stdio: 'inherit' });
	console.log(`  ${dir}: ${Date.now() - t0} ms`);
}

const packages = order.map((/** @type {string} */ dir) => {
	const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
	/** @type {Record<string, unknown>} */
	const record = { name: pkg.name, version: pkg.version, private: pkg.private === true, folder: dir, entry: entryOf(dir, pkg) };
	if (!pkg.private) {
		const [packed] = JSON.parse(
			execFileSync('npm', ['pack', '--json', '--pack-destination', packs], {
				cwd: join(root, dir),
				encoding: 'utf8',
				stdio: ['ignore', 'pipe', 'inherit'],
			}),
		);
		record.tarball = relative(root, join(packs, packed.filename));
		record.files = packed.files.map((/** @type {{path: string}} */ file) => file.path);
	}
	return record;
});
writeFileSync(join(root, 'dist', 'packages.json'), `${JSON.stringify({ packages }, null, 2)}\n`);
console.log(
	`built ${order.length} packages, packed ${packages.filter((/** @type {Record<string, unknown>} */ p) => p.tarball).length} into dist/packs (${Date.now() - started} ms); dist/packages.json lists them`,
);
