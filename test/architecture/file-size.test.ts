/**
 * No hand-written source file in packages/ over 300 lines: a file that long does more than one job, and the next
 * change lands in the middle of it. Tests are left out, and two files that are long by nature: the OpenAPI
 * generator (one document, written out) and the sandbox's seed data.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from '../support/packages';

const MAX_LINES = 300;
const EXCEPTIONS = new Set(['packages/openapi/src/openapi.ts', 'packages/sandbox/src/seed.ts']);

function sourcesIn(dir: string): string[] {
	let entries: string[];
	try {
		entries = readdirSync(dir);
	} catch {
		return [];
	}
	return entries.flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return sourcesIn(path);
		return /\.(ts|js|mjs)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
	});
}

const packages = readdirSync(join(REPO_ROOT, 'packages'));
const roots = [
	...packages.map((name) => join(REPO_ROOT, 'packages', name, 'src')),
	join(REPO_ROOT, 'packages', 'n8n', 'nodes'),
	join(REPO_ROOT, 'packages', 'n8n', 'credentials'),
];
const sources = roots.flatMap(sourcesIn).map((path) => relative(REPO_ROOT, path).split('\\').join('/'));
const lines = (path: string): number => readFileSync(join(REPO_ROOT, path), 'utf8').split('\n').length - 1;

test('the check sees every package, and the exceptions still exist (so neither can go quiet)', () => {
	expect(sources.length).toBeGreaterThan(100);
	for (const name of ['core', 'n8n', 'node-red', 'mcp-server', 'chat-adapter'])
		expect(sources.some((path) => path.startsWith(`packages/${name}/`))).toBe(true);
	for (const exception of EXCEPTIONS) expect(sources).toContain(exception);
});

test(`no hand-written source file in packages/ is over ${MAX_LINES} lines`, () => {
	const long = sources
		.filter((path) => !EXCEPTIONS.has(path))
		.map((path) => ({ path, lines: lines(path) }))
		.filter((file) => file.lines > MAX_LINES);
	expect(long).toEqual([]);
});
