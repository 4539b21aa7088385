/**
 * Lints the generated OpenAPI document with Redocly's `recommended` rules (part of `npm run lint`):
 * any error fails; warnings are printed.
 */
import { createConfig, lintFromString, stringifyYaml } from '@redocly/openapi-core';

import { buildOpenApi } from '../src/openapi';

async function main(): Promise<void> {
	const config = await createConfig({ extends: ['recommended'] });
	const source = JSON.stringify(buildOpenApi('0.0.0'));
	const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
	void stringifyYaml;
	const errors = problems.filter((problem) => problem.severity === 'error');
	for (const problem of problems) {
		const where = problem.location.map((location) => location.pointer).join(', ');
		console.log(`${problem.severity.padEnd(7)} ${problem.ruleId}: ${problem.message} (${where})`);
	}
	console.log(`openapi.json (Redocly recommended): ${errors.length} errors, ${problems.length - errors.length} warnings`);
	if (errors.length) process.exitCode = 1;
}

void main();
