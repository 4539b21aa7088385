/**
 * Builds this package into dist/, as Node-RED loads it (package.json's `node-red.nodes`):
 *   dist/index.js                    the runtime: config, action and event nodes and their admin routes, with
 *                                    @chat-messaging/core compiled in (axios stays a dependency)
 *   dist/index.html                  the editor, generated from the catalogue (src/generate.ts)
 *   dist/locales/en-US/index.{json,html}   its texts and the nodes' help (each node's help.ts under src/nodes)
 *   dist/icons/                      the palette icons
 * The example flows in examples/ ship as they are.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { bundleForNode } from '../../../scripts/bundle.mjs';

import { OPERATIONS } from '@chat-messaging/core';
import { editorHelp, editorHtml, editorMessages } from '../src/generate';

const here = join(__dirname, '..');
const dist = join(here, 'dist');
const pkg = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')) as { name: string; version: string; dependencies: object };

async function main(): Promise<void> {
	rmSync(dist, { recursive: true, force: true });
	await bundleForNode({ entry: join(here, 'src', 'index.ts'), outfile: join(dist, 'index.js'), external: Object.keys(pkg.dependencies) });
	writeFileSync(join(dist, 'index.html'), editorHtml());
	// Node-RED reads a node file's texts and help from locales/<language>/<file name>.{json,html} beside it.
	const locale = join(dist, 'locales', 'en-US');
	mkdirSync(locale, { recursive: true });
	writeFileSync(join(locale, 'index.json'), `${JSON.stringify(editorMessages(), null, 2)}\n`);
	writeFileSync(join(locale, 'index.html'), editorHelp());
	cpSync(join(here, 'icons'), join(dist, 'icons'), { recursive: true });
	const examples = readdirSync(join(here, 'examples')).filter((name) => name.endsWith('.json'));
	console.log(`built ${pkg.name}@${pkg.version}: ${OPERATIONS.length} operations in the editor, ${examples.length} examples`);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
