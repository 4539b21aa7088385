/**
 * Builds this package into dist/:
 *   dist/index.mjs    the adapter as an ES module (the Chat SDK is ES modules only), @chat-messaging/core compiled in;
 *                     `chat` stays an import: the bot's own copy, a peer dependency
 *   dist/index.d.ts   its typings: the sources' declarations, the core's among them, under dist/types/
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

import { bundleForNode } from '../../../scripts/bundle.mjs';

const here = join(__dirname, '..');
const root = join(here, '..', '..');
const dist = join(here, 'dist');
const types = join(dist, 'types');
const pkg = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')) as { name: string; version: string; peerDependencies: object };

function filesUnder(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : [join(dir, name)]));
}

/** The declarations of the sources and of the workspace packages they import, those imports made relative. */
function declarations(): void {
	const config = join(dist, 'tsconfig.types.json');
	writeFileSync(
		config,
		JSON.stringify({
			extends: join(root, 'tsconfig.base.json'),
			compilerOptions: {
				declaration: true,
				emitDeclarationOnly: true,
				noEmit: false,
				rootDir: join(root, 'packages'),
				outDir: types,
				types: ['node'],
			},
			files: [join(here, 'src', 'index.ts')],
		}),
	);
	execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', config], { stdio: 'inherit' });
	rmSync(config);
	for (const file of filesUnder(types)) {
		const text = readFileSync(file, 'utf8').replace(/(['"])@chat-messaging\/(core|client)\1/g, (_match, quote: string, name: string) => {
			const target = relative(dirname(file), join(types, name, 'src', 'index'));
			return `${quote}${target.startsWith('.') ? target : `./${target}`}${quote}`;
		});
		writeFileSync(file, text);
	}
	writeFileSync(join(dist, 'index.d.ts'), "export * from './types/chat-adapter/src/index';\n");
}

async function main(): Promise<void> {
	rmSync(dist, { recursive: true, force: true });
	await bundleForNode({
		entry: join(here, 'src', 'index.ts'),
		outfile: join(dist, 'index.mjs'),
		format: 'esm',
		external: Object.keys(pkg.peerDependencies).flatMap((name) => [name, `${name}/*`]),
	});
	declarations();
	console.log(`built ${pkg.name}@${pkg.version}`);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
