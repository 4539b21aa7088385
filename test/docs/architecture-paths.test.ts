/**
 * docs/architecture.md names the files a reader opens next: every backticked path in it names a file or folder that
 * exists. A path from the repository's root must exist as written; a shorter one (`catalogue/catalogue.ts`, named
 * inside the section about its package) must end some path of the repository.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const ROOTS = ['packages/', 'test/', 'docs/', 'contract/', 'bench/', 'scripts/', 'examples/'];

/** Every file and folder of the repository (built output and installed modules left out), from the root. */
function pathsIn(dir: string, prefix = ''): string[] {
	return readdirSync(dir).flatMap((name) => {
		if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return [];
		const path = `${prefix}${name}`;
		return statSync(join(dir, name)).isDirectory() ? [`${path}/`, ...pathsIn(join(dir, name), `${path}/`)] : [path];
	});
}

/** The backticked tokens of the text that look like paths: a file with an extension, or a folder ending in /. */
function backtickedPaths(text: string): string[] {
	return (
		[...text.matchAll(/`([^`\s]+)`/g)]
			.map((match) => match[1])
			.filter((token) => /^[\w.@/-]+$/.test(token) && token.includes('/') && /(\.(ts|mjs|js|json|md)|\/)$/.test(token))
			// A URL's path (`/openapi.json`) and built output are not files of the repository.
			.filter((token) => !token.startsWith('/') && !token.startsWith('dist/') && !token.includes('/dist/'))
	);
}

const paths = pathsIn(ROOT);
const named = backtickedPaths(readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8'));
const exists = (token: string): boolean =>
	ROOTS.some((root) => token.startsWith(root)) ? paths.includes(token) : paths.some((path) => path === token || path.endsWith(`/${token}`));

test('the check reads the paths docs/architecture.md names, and knows a missing one', () => {
	expect(named.length).toBeGreaterThan(20);
	expect(exists('packages/core/src/runtime/executor.ts')).toBe(true);
	expect(exists('runtime/operations/registry.ts')).toBe(true);
	expect(exists('packages/core/src/runtime/events.ts')).toBe(false);
	expect(exists('catalogue/toolResults.ts')).toBe(false);
});

test('every backticked path in docs/architecture.md exists', () => {
	expect(named.filter((token) => !exists(token))).toEqual([]);
});
