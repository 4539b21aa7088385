/**
 * Builds this package into dist/:
 *   dist/index.js   the server, with @chat-messaging/core compiled in (the MCP SDK and zod stay dependencies)
 *   dist/cli.js     the `chat-messaging-mcp-server` command (what `npx @chat-messaging/mcp-server` runs)
 */
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { bundleForNode } from '../../../scripts/bundle.mjs';

import { catalogueTools } from '../src/tools';

const here = join(__dirname, '..');
const dist = join(here, 'dist');
const pkg = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')) as {
	name: string;
	version: string;
	dependencies: object;
	peerDependencies?: object;
};

async function main(): Promise<void> {
	rmSync(dist, { recursive: true, force: true });
	await bundleForNode({
		entry: join(here, 'src', 'index.ts'),
		outfile: join(dist, 'index.js'),
		// The SDK's subpaths (@modelcontextprotocol/sdk/server/stdio.js) are its own: every import of a dependency stays one;
		// so does the optional peer (redis), loaded only for a redis:// store.
		external: [...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies ?? {})].flatMap((name) => [name, `${name}/*`]),
	});
	const cli = join(dist, 'cli.js');
	writeFileSync(
		cli,
		`#!/usr/bin/env node\n'use strict';\nrequire('./index.js').main(process.argv.slice(2)).catch((error) => {\n\tprocess.stderr.write(\`\${error && error.message ? error.message : error}\\n\`);\n\tprocess.exit(1);\n});\n`,
	);
	chmodSync(cli, 0o755);
	console.log(`built ${pkg.name}@${pkg.version}: ${catalogueTools().length} tools`);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
