/**
 * Cold load of each package's modules, each time in a fresh `node` process (median of 7): the n8n package's nodes and
 * credential after n8n-workflow (which n8n has loaded already; timed apart), the Node-RED package's entry, the sandbox
 * package's entry. Then each packed tarball's size (`npm pack --dry-run --json` of the root, dist/node-red and
 * dist/sandbox). Needs a build (npm run bench builds first).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { median, printTable, record, type Row } from './lib';

const ROOT = join(__dirname, '..');
const RUNS = 7;

/** Requires each group of modules in turn in a fresh process; returns ms per group. */
function loadTimes(groups: string[][]): number[] {
	const script = `
		const times = [];
		for (const group of ${JSON.stringify(groups)}) {
			const started = process.hrtime.bigint();
			for (const file of group) require(file);
			times.push(Number(process.hrtime.bigint() - started) / 1e6);
		}
		process.stdout.write(JSON.stringify(times));`;
	return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' })) as number[];
}

function medians(groups: string[][]): number[] {
	const runs = Array.from({ length: RUNS }, () => loadTimes(groups));
	return groups.map((_, index) => median(runs.map((run) => run[index]!)));
}

interface Packed {
	size: number;
	unpackedSize: number;
	entryCount: number;
	files: Array<{ path: string; size: number }>;
}

function packed(dir: string): Packed {
	const out = execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
	return (JSON.parse(out) as Packed[])[0]!;
}

export async function runColdLoad(): Promise<void> {
	console.log(`\n[load] cold load in fresh processes (median of ${RUNS}) and packed tarballs`);
	const dist = (path: string) => join(ROOT, 'dist', path);
	const [n8nWorkflow, n8nNodes] = medians([
		[require.resolve('n8n-workflow')],
		[
			dist('nodes/ChatMessaging/ChatMessaging.node.js'),
			dist('nodes/ChatMessagingTrigger/ChatMessagingTrigger.node.js'),
			dist('credentials/ChatMessagingApi.credentials.js'),
		],
	]);
	const [nodeRed] = medians([[dist('node-red/nodes-red/index.js')]]);
	const [axios, nodeRedAfterAxios] = medians([[require.resolve('axios')], [dist('node-red/nodes-red/index.js')]]);
	const [sandbox] = medians([[dist('sandbox/index.js')]]);
	const loadRows: Row[] = [
		{
			label: 'n8n package: nodes + credential',
			cells: { ms: n8nNodes!, note: `after n8n-workflow (${n8nWorkflow!.toFixed(0)} ms, loaded by n8n)` },
		},
		{
			label: 'Node-RED package entry',
			cells: { ms: nodeRed!, note: `of which axios ${axios!.toFixed(0)} ms (own code ${nodeRedAfterAxios!.toFixed(0)} ms)` },
		},
		{ label: 'sandbox package entry', cells: { ms: sandbox!, note: '' } },
	];
	printTable('Cold load (require in a fresh node process)', loadRows);
	record('load.n8nNodesMs', n8nNodes!);
	record('load.nodeRedEntryMs', nodeRed!);
	record('load.sandboxEntryMs', sandbox!);

	const packages: Array<[string, string]> = [
		['n8n package (root)', ROOT],
		['Node-RED package (dist/node-red)', dist('node-red')],
		['sandbox package (dist/sandbox)', dist('sandbox')],
	];
	const packRows: Row[] = packages.map(([label, dir]) => {
		const pack = packed(dir);
		const largest = [...pack.files].sort((a, b) => b.size - a.size)[0]!;
		return {
			label,
			cells: {
				'tarball kB': pack.size / 1000,
				'unpacked kB': pack.unpackedSize / 1000,
				files: pack.entryCount,
				'largest file': `${largest.path} (${(largest.size / 1000).toFixed(0)} kB)`,
			},
		};
	});
	printTable('Packed tarballs (npm pack --dry-run)', packRows);
	record('pack.n8nKb', packRows[0]!.cells['tarball kB'] as number);
	record('pack.nodeRedKb', packRows[1]!.cells['tarball kB'] as number);
	record('pack.sandboxKb', packRows[2]!.cells['tarball kB'] as number);
}
