/**
 * Builds this package into dist/: index.js (the client, with @chat-messaging/core compiled in: no runtime
 * dependency) and index.d.ts, its typings generated from the catalogue's descriptors (scripts/types.ts).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { bundleForNode } from '../../../scripts/bundle.mjs';

import { clientTypes } from './types';

const here = join(__dirname, '..');
const dist = join(here, 'dist');
const pkg = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')) as { name: string; version: string };

async function main(): Promise<void> {
	rmSync(dist, { recursive: true, force: true });
	await bundleForNode({ entry: join(here, 'src', 'index.ts'), outfile: join(dist, 'index.js') });
	writeFileSync(join(dist, 'index.d.ts'), clientTypes());
	console.log(`built ${pkg.name}@${pkg.version}`);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
