/**
 * Cold load of each package's modules, each time in a fresh `node` process (median of 7): the n8n package's nodes and
 * credential after n8n-workflow (which n8n has loaded already; timed apart), the Node-RED package's entry, the sandbox
 * package's entry; the MCP server from spawn to its tools listed, and its memory. Then each packed tarball's size (as `npm run build` packed it; dist/packages.json). Needs a build
 * (npm run bench builds first).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { builtPackage, REPO_ROOT, type PackageFolder } from '../test/support/packages';
import { median, printTable, record, type Row } from './lib';
import { bareNodeRssMb, mcpColdStart } from './mcp';

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
	return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: REPO_ROOT, encoding: 'utf8' })) as number[];
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
	const n8n = (path: string) => join(builtPackage('n8n').dir, 'dist', path);
	const [nodeRedEntry] = builtPackage('node-red').entryPaths;
	const [sandboxEntry] = builtPackage('sandbox').entryPaths;
	const [n8nWorkflow, n8nNodes] = medians([
		[require.resolve('n8n-workflow')],
		[
			n8n('nodes/ChatMessaging/ChatMessaging.node.js'),
			n8n('nodes/ChatMessagingTrigger/ChatMessagingTrigger.node.js'),
			n8n('nodes/ChatMessagingPollTrigger/ChatMessagingPollTrigger.node.js'),
			n8n('credentials/ChatMessagingApi.credentials.js'),
		],
	]);
	const [nodeRed] = medians([[nodeRedEntry!]]);
	const [axios, nodeRedAfterAxios] = medians([[require.resolve('axios')], [nodeRedEntry!]]);
	const [sandbox] = medians([[sandboxEntry!]]);
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
	// The MCP server is a process of its own: its cold start is what a desktop client waits for, spawn to tools listed.
	const mcpRuns: Array<{ ms: number; rssMb: number; tools: number }> = [];
	for (let run = 0; run < RUNS; run++) mcpRuns.push(await mcpColdStart());
	const mcpMs = median(mcpRuns.map((run) => run.ms));
	const mcpRss = median(mcpRuns.map((run) => run.rssMb));
	const nodeRss = await bareNodeRssMb();
	loadRows.push({
		label: 'MCP server: spawn to tools listed',
		cells: {
			ms: mcpMs,
			note: `${mcpRuns[0]!.tools} tools over stdio; ${mcpRss.toFixed(0)} MB resident once idle (a bare node process: ${nodeRss.toFixed(0)} MB)`,
		},
	});
	record('load.mcpServerColdStartMs', mcpMs);
	record('load.mcpServerIdleRssMb', mcpRss);
	printTable('Cold load (require in a fresh node process)', loadRows);
	record('load.n8nNodesMs', n8nNodes!);
	record('load.nodeRedEntryMs', nodeRed!);
	record('load.sandboxEntryMs', sandbox!);

	const packages: Array<[string, PackageFolder]> = [
		['n8n package', 'n8n'],
		['Node-RED package', 'node-red'],
		['sandbox package', 'sandbox'],
		['client package', 'client'],
		['MCP server package', 'mcp-server'],
	];
	const packRows: Row[] = packages.map(([label, folder]) => {
		const pack = packed(builtPackage(folder).dir);
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
