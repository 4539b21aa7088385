/**
 * Folders that import each other. Every folder of a package's sources is read as rooms: each file in it is a room,
 * and each subfolder is one room taken whole. A room that imports another which (through any others) imports it
 * back is a loop at that level: neither can be read before the other. File-level cycles are the narrower case
 * `test/architecture/import-cycles.test.ts` holds; this one holds the layout a newcomer reads top-down.
 *
 *   npx tsx scripts/rooms.ts            every loop, at every level of every package; exits 1 when there is one
 *   npx tsx scripts/rooms.ts --report   the same, exit 0 (to see where a change stands)
 *
 * Type-only imports count: a type shared both ways is a dependency both ways to the reader.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const REPO_ROOT = resolve(__dirname, '..');
const PACKAGES = join(REPO_ROOT, 'packages');
/** What is not the package's shipped source: its tests, build tools, examples and outputs. */
const NOT_SOURCES = new Set(['test', 'scripts', 'examples', 'dist', 'node_modules']);
const SOURCE = /\.(ts|mts|cts)$/;

function sourceFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return NOT_SOURCES.has(name) ? [] : sourceFiles(path);
		return SOURCE.test(name) && !/\.d\.[mc]?ts$/.test(name) ? [path] : [];
	});
}

const SPECIFIERS = [
	/(?:^|[\s;}])(?:import|export)\s[^'";]*?\sfrom\s*['"](\.{1,2}\/[^'"]+|\.{1,2})['"]/g,
	/(?:^|[\s;])import\s*['"](\.{1,2}\/[^'"]+)['"]/g,
	/\b(?:import|require)\(\s*['"](\.{1,2}\/[^'"]+|\.{1,2})['"]\s*\)/g,
];

function resolveImport(from: string, specifier: string): string | undefined {
	const base = resolve(dirname(from), specifier);
	const stem = base.replace(/\.(m|c)?js$/, '');
	const candidates = [base, `${stem}.ts`, `${stem}.mts`, `${stem}.cts`, join(base, 'index.ts'), join(base, 'index.mts')];
	return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

/** The files a module imports or re-exports by a relative path, resolved. */
function importsOf(file: string): string[] {
	const text = readFileSync(file, 'utf8');
	const found = new Set<string>();
	for (const pattern of SPECIFIERS)
		for (const match of text.matchAll(pattern)) {
			const target = resolveImport(file, match[1] as string);
			if (target) found.add(target);
		}
	return [...found];
}

interface Loop {
	/** The folder whose rooms loop, relative to the repository. */
	folder: string;
	/** The rooms in the loop: `name.ts` for a file, `name/` for a subfolder. */
	rooms: string[];
	/** One import for each pair of rooms that import each other's way round the loop: `from → to`. */
	imports: string[];
}

/** The room of `file` among the children of `folder`: its own name, or its first subfolder's with a slash. */
function roomOf(folder: string, file: string): string | undefined {
	const rest = relative(folder, file);
	if (rest.startsWith('..')) return undefined;
	const [first, ...more] = rest.split(sep);
	return more.length ? `${first}/` : first;
}

/** Strongly connected groups of more than one room (Tarjan). */
function stronglyConnected(rooms: string[], edges: Map<string, Set<string>>): string[][] {
	let index = 0;
	const indexOf = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const groups: string[][] = [];
	const visit = (room: string): void => {
		indexOf.set(room, index);
		low.set(room, index++);
		stack.push(room);
		onStack.add(room);
		for (const next of edges.get(room) ?? []) {
			if (!indexOf.has(next)) {
				visit(next);
				low.set(room, Math.min(low.get(room) ?? 0, low.get(next) ?? 0));
			} else if (onStack.has(next)) low.set(room, Math.min(low.get(room) ?? 0, indexOf.get(next) ?? 0));
		}
		if (low.get(room) === indexOf.get(room)) {
			const group: string[] = [];
			let member: string | undefined;
			do {
				member = stack.pop();
				if (member === undefined) break;
				onStack.delete(member);
				group.push(member);
			} while (member !== room);
			if (group.length > 1) groups.push(group.sort());
		}
	};
	for (const room of rooms) if (!indexOf.has(room)) visit(room);
	return groups;
}

/** Every loop of rooms under `root` (a package's folder), at every folder level. */
export function roomLoops(root: string, files: string[] = sourceFiles(root)): Loop[] {
	const graph = files.map((file) => ({ file, targets: importsOf(file) }));
	const folders = new Set<string>([root]);
	for (const file of files) for (let dir = dirname(file); dir.startsWith(root) && dir !== root; dir = dirname(dir)) folders.add(dir);
	const loops: Loop[] = [];
	for (const folder of [...folders].sort()) {
		const edges = new Map<string, Set<string>>();
		const example = new Map<string, string>();
		for (const { file, targets } of graph) {
			const from = roomOf(folder, file);
			if (from === undefined) continue;
			for (const target of targets) {
				const to = roomOf(folder, target);
				if (to === undefined || to === from) continue;
				const out = edges.get(from) ?? new Set<string>();
				edges.set(from, out.add(to));
				const key = `${from}\0${to}`;
				if (!example.has(key)) example.set(key, `${relative(folder, file)} → ${relative(folder, target)}`);
			}
		}
		for (const rooms of stronglyConnected([...edges.keys()].sort(), edges)) {
			const imports = [...example.entries()]
				.filter(([key]) => {
					const [from, to] = key.split('\0') as [string, string];
					return rooms.includes(from) && rooms.includes(to);
				})
				.map(([, line]) => line)
				.sort();
			loops.push({ folder: relative(REPO_ROOT, folder) || '.', rooms, imports });
		}
	}
	return loops;
}

function main(): void {
	const report = process.argv.includes('--report');
	const packages = readdirSync(PACKAGES).filter((name) => statSync(join(PACKAGES, name)).isDirectory());
	let total = 0;
	for (const name of packages.sort()) {
		const loops = roomLoops(join(PACKAGES, name));
		total += loops.length;
		console.log(`${name}: ${loops.length} loop${loops.length === 1 ? '' : 's'}`);
		for (const loop of loops) {
			console.log(`  ${loop.folder}/: ${loop.rooms.join(' ↔ ')}`);
			for (const line of loop.imports) console.log(`      ${line}`);
		}
	}
	console.log(`rooms: ${total} loop${total === 1 ? '' : 's'} in ${packages.length} packages`);
	if (total && !report) process.exit(1);
}

if (require.main === module) main();
