#!/usr/bin/env node
// Runs n8n's community-package scanner (@n8n/scan-community-package) locally, the way its CLI
// scans a published package, without the registry: builds and packs this package, then lints
//   1. the source package: package.json + nodes/ + credentials/ (the scanner's SOURCE_FILE_PATTERNS),
//   2. the packed tarball: every .js it ships (the core compiled in included) and its package.json.
// Prints files checked, errors and warnings per leg, and exits 1 on any error.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ESLint } from 'eslint';
import glob from 'fast-glob';
import { analyzePackage, buildScanConfig, SOURCE_FILE_PATTERNS } from '@n8n/scan-community-package/scanner/scanner.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const repository = join(root, '..', '..');
const TARBALL_PATTERNS = ['**/*.js', 'package.json'];

/** @param {string} command @param {string[]} args @param {string} cwd */
function run(command, args, cwd) {
	return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

/**
 * Per-file counts with the scanner's own configuration (analyzePackage reports only pass/fail).
 * @param {string} dir @param {string[]} patterns
 */
async function count(dir, patterns) {
	const files = glob.sync(patterns, { cwd: dir, absolute: true, ignore: ['node_modules/**', '**/package-lock.json'] });
	const eslint = new ESLint({ cwd: dir, allowInlineConfig: false, overrideConfigFile: true, overrideConfig: await buildScanConfig() });
	const results = files.length ? await eslint.lintFiles(files) : [];
	return {
		files: files.map((file) => relative(dir, file)),
		errors: results.reduce((sum, result) => sum + result.errorCount, 0),
		warnings: results.reduce((sum, result) => sum + result.warningCount, 0),
		warningLines: results.flatMap((result) =>
			result.messages.filter((m) => m.severity === 1).map((m) => `${relative(dir, result.filePath)}:${m.line} ${m.ruleId}: ${m.message}`),
		),
	};
}

/** @param {string} label @param {string} dir @param {string[]} patterns */
async function scan(label, dir, patterns) {
	const verdict = await analyzePackage(dir, patterns);
	const counts = await count(dir, patterns);
	console.log(
		`${verdict.passed ? 'PASS' : 'FAIL'} ${label}: ${counts.files.length} files checked, ${counts.errors} errors, ${counts.warnings} warnings`,
	);
	for (const line of counts.warningLines) console.log(`  warning ${line}`);
	if (!verdict.passed) console.log(verdict.details ?? verdict.message);
	return verdict.passed && counts.errors === 0;
}

const work = mkdtempSync(join(tmpdir(), 'scan-n8n-'));
try {
	console.log('building (npm run build) ...');
	run('npm', ['run', '--silent', 'build'], repository);

	const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], root));
	const tarball = join(work, packed[0].filename);
	const extracted = join(work, 'package');
	mkdirSync(extracted);
	run('tar', ['-xzf', tarball, '-C', extracted, '--strip-components=1'], work);
	console.log(`packed ${packed[0].name}@${packed[0].version}: ${packed[0].entryCount} files, ${packed[0].size} bytes`);

	const sourceOk = await scan('source package (package.json, nodes/, credentials/)', root, SOURCE_FILE_PATTERNS);
	const tarballOk = await scan(`tarball ${packed[0].filename} (*.js, package.json)`, extracted, TARBALL_PATTERNS);
	const shipped = readdirSync(join(extracted, 'dist'));
	console.log(`tarball dist/ holds: ${shipped.join(', ')}`);
	if (!sourceOk || !tarballOk) {
		console.log('n8n community-package scan: FAILED');
		process.exitCode = 1;
	} else {
		console.log('n8n community-package scan: passed');
	}
} finally {
	rmSync(work, { recursive: true, force: true });
}
