/**
 * `npm run test:chat-kit`: the Chat SDK kit's adapter contracts (vitest, vitest.config.mts) against the chat adapter,
 * ending with the "chat-kit: N passed, N failed" line test/run-all.sh counts (vitest's own summary is not one).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const folder = mkdtempSync(path.join(os.tmpdir(), 'chat-kit-'));
const report = path.join(folder, 'report.json');
const run = spawnSync('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`], {
	stdio: 'inherit',
});
let passed = 0;
let failed = 1;
try {
	const summary = JSON.parse(readFileSync(report, 'utf8')) as { numPassedTests: number; numFailedTests: number };
	passed = summary.numPassedTests;
	failed = summary.numFailedTests;
} catch {
	console.error('vitest wrote no report: counted as one failure');
}
rmSync(folder, { recursive: true, force: true });
console.log(`chat-kit: ${passed} passed, ${failed} failed`);
process.exit(run.status === 0 && failed === 0 ? 0 : 1);
