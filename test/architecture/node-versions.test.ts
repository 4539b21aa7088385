/**
 * The n8n action node's versions stay apart, as n8n keeps its own versioned nodes (Airtable v1 / v2):
 * version 1 is frozen in v1/, version 2 lives in v2/, and only what both genuinely use sits in shared/.
 * The node file beside them picks the version. A module beside the version folders, a version reaching
 * into the other, shared code reaching into a version, or a shared export only one version uses would
 * each let a change made for one version move the other, which saved version 1 workflows must never see.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { REPO_ROOT } from '../support/packages';

const VERSIONS = ['v1', 'v2'] as const;
const SHARED = 'shared';

function sourceFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return sourceFiles(path);
		return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
	});
}

function resolveImport(file: string, target: string): string | undefined {
	const base = resolve(dirname(file), target);
	return [`${base}.ts`, join(base, 'index.ts'), base].find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

/** Relative imports and re-exports of a module: the file each reaches and the names it takes ('*' when not named). */
function importsOf(file: string): Array<{ target: string; names: string[] }> {
	const text = readFileSync(file, 'utf8');
	return [...text.matchAll(/(?:import|export)\s+(?:type\s+)?([^'";]*?)\s*from\s*['"](\.{1,2}\/[^'"]+)['"]/g)].flatMap((match) => {
		const target = resolveImport(file, match[2]);
		if (!target) return [];
		const braces = /^\{([^}]*)\}$/.exec(match[1].trim());
		const names = braces
			? braces[1]
					.split(',')
					.map(
						(part) =>
							part
								.trim()
								.replace(/^type\s+/, '')
								.split(/\s+as\s+/)[0],
					)
					.filter(Boolean)
			: ['*'];
		return [{ target, names }];
	});
}

function exportsOf(file: string): string[] {
	const text = readFileSync(file, 'utf8');
	return [...text.matchAll(/export\s+(?:async\s+)?(?:function|const|let|class|type|interface|enum)\s+([A-Za-z_$][\w$]*)/g)].map(
		(match) => match[1],
	);
}

/** Where a module of the node stands: the node file, a version folder, shared/, or loose beside them. */
function placeOf(dir: string, file: string, entry: string): string {
	const path = relative(dir, file);
	if (path === entry) return 'entry';
	const top = path.split(sep)[0];
	return [...VERSIONS, SHARED].includes(top) && path.includes(sep) ? top : 'loose';
}

/** Every way the node in `dir` (its node file `entry`) mixes its versions, one sentence each. */
function versionProblems(dir: string, entry: string): string[] {
	const files = sourceFiles(dir);
	const place = (file: string) => placeOf(dir, file, entry);
	const name = (file: string) => relative(dir, file).split(sep).join('/');
	const problems: string[] = [];
	for (const file of files.filter((candidate) => place(candidate) === 'loose'))
		problems.push(`${name(file)} sits beside the version folders: it belongs in ${VERSIONS.join('/, ')}/ or ${SHARED}/`);
	const users = new Map<string, Set<string>>();
	for (const file of files) {
		for (const { target, names } of importsOf(file)) {
			if (!target.startsWith(dir + sep)) continue;
			const [from, to] = [place(file), place(target)];
			if ((VERSIONS as readonly string[]).includes(to) && from !== to && from !== 'entry')
				problems.push(`${name(file)} imports ${name(target)}: only ${to}/ and the node file may`);
			for (const imported of names) {
				const key = `${target}#${imported}`;
				users.set(key, (users.get(key) ?? new Set()).add(from));
			}
		}
	}
	for (const file of files.filter((candidate) => place(candidate) === SHARED)) {
		const text = readFileSync(file, 'utf8');
		for (const exported of exportsOf(file)) {
			const by = new Set([...(users.get(`${file}#${exported}`) ?? []), ...(users.get(`${file}#*`) ?? [])]);
			// A step the shared module's own steps call (named past its declaration) serves both versions through them.
			if ((text.match(new RegExp(`\\b${exported}\\b`, 'g')) ?? []).length > 1) by.add(SHARED);
			const versions = VERSIONS.filter((version) => by.has(version));
			if (versions.length === 1 && !by.has(SHARED))
				problems.push(`${name(file)} exports ${exported}, which only ${versions[0]}/ uses: it belongs in ${versions[0]}/`);
		}
	}
	return problems;
}

describe('the versions of the n8n action node', () => {
	it('are found mixed when they are (the check itself works)', () => {
		const dir = join(REPO_ROOT, 'test', 'architecture', 'fixtures', 'versions');
		expect(versionProblems(dir, 'Node.node.ts').sort()).toEqual(
			[
				'steps.ts sits beside the version folders: it belongs in v1/, v2/ or shared/',
				'v2/V2.ts imports v1/V1.ts: only v1/ and the node file may',
				'shared/common.ts imports v2/V2.ts: only v2/ and the node file may',
				'shared/common.ts exports onlyVersionOneUses, which only v1/ uses: it belongs in v1/',
			].sort(),
		);
	});

	it('stay apart: version 1 in v1/, version 2 in v2/, and shared/ only what both use', () => {
		const dir = join(REPO_ROOT, 'packages', 'n8n', 'nodes', 'ChatMessaging');
		expect(versionProblems(dir, 'ChatMessaging.node.ts')).toEqual([]);
	});
});
