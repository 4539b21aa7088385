/**
 * The runner of the n8n end-to-end scripts (test/e2e/n8n/checks.ts): test/run-all.sh counts its closing line, so a
 * failure it lost would pass CI. A failed setup check stops the run and every later check counts as failed; the
 * token never reaches what a failure prints.
 */
import { CheckRun } from '../e2e/n8n/checks';

let printed: string[];
let log: jest.SpyInstance;
beforeEach(() => {
	printed = [];
	log = jest.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line));
});
afterEach(() => log.mockRestore());

test('a passed and a failed check are counted, and the closing line says so', async () => {
	const run = new CheckRun();
	await run.check('first', async () => 'a note');
	await run.check('second', async () => {
		throw new Error('went wrong\non two lines');
	});
	await run.check('third', async () => undefined);
	expect(run.outcomes.map(({ name, ok }) => [name, ok])).toEqual([
		['first', true],
		['second', false],
		['third', true],
	]);
	expect(run.summary()).toBe('2 passed, 1 failed');
	expect(run.summary(true)).toBe('2 passed, 2 failed');
	expect(printed[0]).toMatch(/^ {2}✓ first \(\d+ ms\) — a note$/);
	expect(printed[1]).toMatch(/^ {2}✗ second \(\d+ ms\)\n {6}went wrong\n {6}on two lines$/);
});

test('a failed setup check stops the run: the checks after it do not run and count as failed', async () => {
	const run = new CheckRun();
	const ran: string[] = [];
	await run.check(
		'setup',
		async () => {
			throw new Error('no runtime');
		},
		true,
	);
	await run.check('later', async () => {
		ran.push('later');
		return undefined;
	});
	expect(ran).toEqual([]);
	expect(run.outcomes[1]).toEqual({ name: 'later', ok: false, ms: 0, detail: 'not run: "setup" failed' });
	expect(run.summary()).toBe('0 passed, 2 failed');
	expect(printed[1]).toBe('  - later: NOT RUN ("setup" failed)');
});

test('a failure is printed through the redaction it was given', async () => {
	const run = new CheckRun((text) => text.split('secret-token').join('<token>'));
	const { check } = run;
	await check('with the token', async () => {
		throw new Error('answered 401 for Bearer secret-token');
	});
	expect(printed.join('\n')).not.toContain('secret-token');
	expect(run.outcomes[0]!.detail).toBe('answered 401 for Bearer <token>');
});
