/**
 * `npm run check:contract`: compares what saved workflows and flows depend on with contract/*.json and
 * fails on anything that would break them (docs/ui-contract.md). `--update` records the current
 * contract, after a deliberate change (a new node version) or to take in additions.
 */
import { compareContracts, currentContract, readContract, writeContract } from './contract';

const current = currentContract();
if (process.argv.includes('--update')) {
	writeContract(current);
	console.log('contract/n8n.json and contract/node-red.json rewritten from the current nodes');
} else {
	const { breaking, additions } = compareContracts(readContract(), current);
	for (const addition of additions) console.log(`added: ${addition}`);
	for (const problem of breaking) console.error(`BREAKING: ${problem}`);
	if (breaking.length) {
		console.error(
			`\n${breaking.length} breaking change(s). Keep the old names, values and defaults, or ship the change as a new node ` +
				'version (docs/ui-contract.md) and record it with `npm run check:contract -- --update`.',
		);
		process.exitCode = 1;
	} else {
		console.log(`UI contract kept${additions.length ? ` (${additions.length} additions: record them with --update)` : ''}`);
	}
}
