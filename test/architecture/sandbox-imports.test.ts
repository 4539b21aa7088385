/**
 * The sandbox never imports the core (it is written from the spec alone, so the two check each other): the
 * lint rule holds it, as it holds the packages' entries. ESLint runs here (in its own process: its config is
 * ES modules) on lines that break the rule, so the rule cannot go quiet, and on the sandbox's sources.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const ESLINT = join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js');

/** The no-restricted-imports messages ESLint gives `code` as the file `filePath`. */
function restricted(code: string, filePath: string): string[] {
	// The type-aware rules read a file of the root program from disk, not these lines: the probe turns them off (the
	// import rule needs no types), so ESLint parses what it is given.
	const untyped = [
		'--parser-options=project:false',
		'--rule',
		'@typescript-eslint/no-floating-promises: off',
		'--rule',
		'@typescript-eslint/no-misused-promises: off',
	];
	const run = spawnSync(process.execPath, [ESLINT, '--format', 'json', ...untyped, '--stdin', '--stdin-filename', filePath], {
		cwd: ROOT,
		input: code,
		encoding: 'utf8',
	});
	const results = JSON.parse(run.stdout) as Array<{ messages: Array<{ ruleId: string | null; message: string }> }>;
	return results.flatMap((result) =>
		result.messages.filter((message) => message.ruleId === 'no-restricted-imports').map((message) => message.message),
	);
}

test('an import of the core, by its package or by path, fails lint in the sandbox; elsewhere the entry is fine', () => {
	const inSandbox = 'packages/sandbox/src/server.ts';
	for (const code of [
		"import { RESOURCES } from '@chat-messaging/core';\nexport const n = RESOURCES.length;\n",
		"import { RESOURCES } from '../../core/src';\nexport const n = RESOURCES.length;\n",
		"import { createClient } from '@chat-messaging/client';\nexport const c = createClient;\n",
	]) {
		expect(restricted(code, inSandbox)).toEqual([expect.stringContaining('never imports the core')]);
	}
	expect(
		restricted("import { RESOURCES } from '@chat-messaging/core';\nexport const n = RESOURCES.length;\n", 'packages/client/src/other.ts'),
	).toEqual([]);
}, 60_000);

test("the sandbox's sources import nothing of the core", () => {
	const run = spawnSync(process.execPath, [ESLINT, '--format', 'json', 'packages/sandbox/src', 'packages/sandbox/scripts'], {
		cwd: ROOT,
		encoding: 'utf8',
	});
	const results = JSON.parse(run.stdout) as Array<{ messages: Array<{ ruleId: string | null }> }>;
	expect(results.length).toBeGreaterThan(10);
	expect(results.flatMap((result) => result.messages.filter((message) => message.ruleId === 'no-restricted-imports'))).toEqual([]);
}, 60_000);
