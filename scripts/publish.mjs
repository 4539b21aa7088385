#!/usr/bin/env node
// Publishes every publishable package, as the tarball `npm run build` packed it (dist/packages.json lists them,
// so a new workspace is published without editing this script), skipping versions the registry already holds.
// Extra arguments go to `npm publish` (the release workflow adds --provenance); the registry is npm's
// configuration (`npm_config_registry`, .npmrc) unless --registry=<url> is given.
//   node scripts/publish.mjs [--registry=<url>] [npm publish flags...]
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const registry = args.find((arg) => arg.startsWith('--registry='));
const { packages } = JSON.parse(readFileSync(join(root, 'dist', 'packages.json'), 'utf8'));

/**
 * Whether the registry already holds this exact version (npm view answers E404 for an unknown package).
 * @param {string} name
 * @param {string} version
 */
function published(name, version) {
	try {
		const out = execFileSync('npm', ['view', `${name}@${version}`, 'version', '--json', ...(registry ? [registry] : [])], {
			cwd: root,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'ignore'],
		});
		return out.trim() !== '';
	} catch {
		return false;
	}
}

let count = 0;
for (const pkg of packages.filter((/** @type {{private: boolean}} */ candidate) => !candidate.private)) {
	if (!pkg.tarball) throw new Error(`${pkg.name} is publishable but the build packed no tarball`);
	if (published(pkg.name, pkg.version)) {
		console.log(`${pkg.name}@${pkg.version}: already published, skipped`);
		continue;
	}
	execFileSync('npm', ['publish', join(root, pkg.tarball), '--access', 'public', ...args], { cwd: root, stdio: 'inherit' });
	console.log(`${pkg.name}@${pkg.version}: published`);
	count++;
}
console.log(`published ${count} package(s)`);
