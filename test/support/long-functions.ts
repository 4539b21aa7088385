/**
 * Lists the functions longer than a limit (default 150 lines) under the folders given, longest first:
 *   npx tsx test/support/long-functions.ts test/e2e [--max 150]
 * Counts every function-like node (declarations, expressions, arrows, methods) from its first to its last line, so a
 * function nested in a long one is listed as well as its parent. Exits non-zero when any is found.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface LongFunction {
	file: string;
	name: string;
	line: number;
	lines: number;
}

function sourceFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((entry) => {
		const full = join(dir, entry);
		if (entry === 'node_modules' || entry === 'dist') return [];
		if (statSync(full).isDirectory()) return sourceFiles(full);
		return /\.(ts|mts|cts)$/.test(entry) && !entry.endsWith('.d.ts') ? [full] : [];
	});
}

function nameOf(node: ts.Node): string {
	const named = node as ts.Node & { name?: ts.Node };
	if (named.name && ts.isIdentifier(named.name)) return named.name.text;
	const parent = node.parent;
	if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
	if (ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
	if (ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText().slice(0, 40)})`;
	return '(anonymous)';
}

export function longFunctions(roots: string[], max: number): LongFunction[] {
	const found: LongFunction[] = [];
	for (const file of roots.flatMap(sourceFiles)) {
		const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
		const visit = (node: ts.Node): void => {
			if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
				const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
				const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
				const lines = last - first + 1;
				if (lines > max) found.push({ file: relative(process.cwd(), file), name: nameOf(node), line: first + 1, lines });
			}
			ts.forEachChild(node, visit);
		};
		visit(source);
	}
	return found.sort((a, b) => b.lines - a.lines);
}

if (require.main === module) {
	const args = process.argv.slice(2);
	const maxAt = args.indexOf('--max');
	const max = maxAt >= 0 ? Number(args.splice(maxAt, 2)[1]) : 150;
	const found = longFunctions(args.length ? args : ['test/e2e'], max);
	for (const f of found) console.log(`${String(f.lines).padStart(5)} lines  ${f.file}:${f.line}  ${f.name}`);
	console.log(`${found.length} function(s) over ${max} lines`);
	process.exitCode = found.length ? 1 : 0;
}
