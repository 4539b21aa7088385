#!/usr/bin/env node
// Builds this package into dist/, as n8n loads it (package.json's `n8n` field):
//   dist/core.js                       @chat-messaging/core, compiled in once: every node file requires this
//                                      one module, so the nodes of one n8n process share its pacer
//   dist/nodes/<Node>/<Node>.node.js   each node, bundled with its own helpers (n8n-workflow and @n8n/ai-node-sdk
//                                      stay peers: n8n resolves them from its own installation)
//   dist/credentials/*.credentials.js  the credential
//   dist/icons/                        the icons, one copy, which nodes and credential name by a path up to it
// and beside them every other file of nodes/ and credentials/ (codex *.node.json).
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { bundleForNode } from '../../../scripts/bundle.mjs';

const here = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(here, 'dist');
const CORE = '@chat-messaging/core';
const CORE_SOURCE = join(here, '..', 'core', 'src', 'index.ts');

/** @param {string} dir @returns {string[]} every file under dir, relative to the package */
const walk = (dir) =>
	readdirSync(join(here, dir), { withFileTypes: true }).flatMap((entry) =>
		entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
	);

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
await bundleForNode({ entry: CORE_SOURCE, outfile: join(dist, 'core.js') });

const pkg = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));
/** @type {string[]} */
const entries = [...pkg.n8n.nodes, ...pkg.n8n.credentials].map((file) => file.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
for (const entry of entries) {
	const outfile = join(dist, entry.replace(/\.ts$/, '.js'));
	const coreFromHere = relative(dirname(outfile), join(dist, 'core.js')).replace(/^(?!\.)/, './');
	await bundleForNode({
		entry: join(here, entry),
		outfile,
		external: ['n8n-workflow', '@n8n/ai-node-sdk'],
		plugins: [
			{
				name: 'shared-core',
				setup(builder) {
					builder.onResolve({ filter: new RegExp(`^${CORE}$`) }, () => ({ path: coreFromHere, external: true }));
				},
			},
		],
	});
}

for (const file of [...walk('nodes'), ...walk('credentials'), ...walk('icons')].filter((name) => !name.endsWith('.ts'))) {
	mkdirSync(dirname(join(dist, file)), { recursive: true });
	cpSync(join(here, file), join(dist, file), { dereference: true });
}
console.log(`built ${pkg.name}@${pkg.version}: ${entries.length} entry files and dist/core.js`);
