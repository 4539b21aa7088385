/**
 * No package's sources import in a circle (type-only imports included): a module that reaches back into what
 * built it sees it half-built, and a cycle hides which part depends on which.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { REPO_ROOT } from '../support/packages';

const SOURCE = /\.(ts|mts)$/;

function sourceFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'dist' ? [] : sourceFiles(path);
		return SOURCE.test(name) && !name.endsWith('.d.ts') ? [path] : [];
	});
}

/** Relative imports and re-exports of a module, resolved to files. */
function importsOf(file: string): string[] {
	const text = readFileSync(file, 'utf8');
	const targets = [...text.matchAll(/(?:import|export)[^'";]*?from\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((match) => match[1]);
	return targets.flatMap((target) => {
		const base = resolve(dirname(file), target);
		const found = [`${base}.ts`, join(base, 'index.ts'), base].find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
		return found ? [found] : [];
	});
}

/** Every cycle found by a depth-first walk, each as the files around it. */
function cycles(files: string[]): string[][] {
	const graph = new Map(files.map((file) => [file, importsOf(file)]));
	const state = new Map<string, 'open' | 'done'>();
	const path: string[] = [];
	const found: string[][] = [];
	const visit = (file: string): void => {
		state.set(file, 'open');
		path.push(file);
		for (const next of graph.get(file) ?? []) {
			if (state.get(next) === 'open') found.push(path.slice(path.indexOf(next)).concat(next));
			else if (!state.has(next)) visit(next);
		}
		path.pop();
		state.set(file, 'done');
	};
	for (const file of files) if (!state.has(file)) visit(file);
	return found;
}

const packagesDir = join(REPO_ROOT, 'packages');
const packages = readdirSync(packagesDir).filter((name) => statSync(join(packagesDir, name)).isDirectory());

describe('import cycles', () => {
	it('finds a cycle when there is one (the walk itself works)', () => {
		const dir = join(REPO_ROOT, 'test', 'architecture', 'fixtures', 'cycle');
		expect(cycles(sourceFiles(dir)).map((cycle) => cycle.map((file) => relative(dir, file)))).toEqual([['a.ts', 'b.ts', 'a.ts']]);
	});

	it.each(packages)('packages/%s has none', (name) => {
		const files = sourceFiles(join(packagesDir, name)).filter((file) => !file.includes(`${join(packagesDir, name, 'test')}`));
		expect(cycles(files).map((cycle) => cycle.map((file) => relative(REPO_ROOT, file)).join(' → '))).toEqual([]);
	});
});
