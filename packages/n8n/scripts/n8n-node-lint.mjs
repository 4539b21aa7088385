#!/usr/bin/env node
// n8n's own verification lint for this package: what `n8n-node lint` (@n8n/node-cli) runs, with the
// package's eslint.config.mjs, which must stay the CLI's default as its strict mode demands (community-nodes
// and n8n-nodes-base rules, typescript-eslint, import-x). `n8n-node lint` lints the whole folder of a node
// package; this one also holds its tests and build scripts, which are not node code, so the files linted are
// those a node package consists of: package.json, nodes/ and credentials/. Any finding, warning or error,
// fails. Run by `npm run lint` after the build (import-x resolves the core through its built types).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ESLint } from 'eslint';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const FILES = ['package.json', 'nodes/**/*.ts', 'credentials/**/*.ts'];

const require = createRequire(import.meta.url);
// The CLI's default config, as it compares it in strict mode (its package exports only ./eslint, in dist/configs/).
const template = join(dirname(require.resolve('@n8n/node-cli/eslint')), '..', 'template/templates/shared/default/eslint.config.mjs');
/** @param {string} file */
const normalised = (file) => readFileSync(file, 'utf8').replace(/\s+/g, ' ').trim();
if (normalised(join(root, 'eslint.config.mjs')) !== normalised(template)) {
	console.log(`n8n-node lint: FAILED: packages/n8n/eslint.config.mjs is not @n8n/node-cli's default (${template})`);
	process.exit(1);
}

const eslint = new ESLint({ cwd: root, errorOnUnmatchedPattern: true });
const results = await eslint.lintFiles(FILES);
const errors = results.reduce((sum, result) => sum + result.errorCount, 0);
const warnings = results.reduce((sum, result) => sum + result.warningCount, 0);
const formatter = await eslint.loadFormatter('stylish');
const report = await formatter.format(results);
if (report) console.log(report);
console.log(`n8n-node lint (@n8n/node-cli's eslint.config.mjs): ${results.length} files, ${errors} errors, ${warnings} warnings`);
if (errors || warnings) process.exitCode = 1;
