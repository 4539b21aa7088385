/**
 * The end-to-end scripts read as cases: no function in test/e2e runs over 150 lines, so a failing check points at a
 * case a reader can take in at once, not at line 600 of one long script. The counter itself is checked on a
 * function it must find, so the rule cannot go quiet.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { longFunctions } from '../support/long-functions';

const E2E = join(__dirname, '..', 'e2e');

test('no function in test/e2e is over 150 lines', () => {
	expect(longFunctions([E2E], 150).map((f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`)).toEqual([]);
});

test('the counter finds a long function, an arrow nested in it and nothing short', () => {
	const dir = mkdtempSync(join(tmpdir(), 'long-functions-'));
	try {
		const body = Array.from({ length: 160 }, (_, i) => `\tconst v${i} = ${i};`).join('\n');
		writeFileSync(
			join(dir, 'case.ts'),
			`export function long(): void {\n\tconst inner = () => {\n${body}\n\t};\n\tinner();\n}\nexport const short = () => 1;\n`,
		);
		expect(longFunctions([dir], 150).map((f) => f.name)).toEqual(['long', 'inner']);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
