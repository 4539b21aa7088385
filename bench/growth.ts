/**
 * Growth at 0 ms without a limit: Return All over 1k / 5k / 20k chats, the executor (pacing off) and a bare
 * sequential loop, each in a fresh process (its time and peak memory), interleaved; then the sandbox's own cost per
 * page at 1k / 5k / 20k / 100k chats (bench/sandbox-growth.bench.ts). Linear is the goal: time and
 * memory per chat about constant, a page of a big workspace about the cost of a page of a small one.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { startSandbox } from '@chat-messaging/sandbox';
import { check, median, printTable, record, type Row } from './lib';

const SIZES = [1_000, 5_000, 20_000];
const SANDBOX_SIZES = [1_000, 5_000, 20_000, 100_000];
const ROUNDS = 3;
const TOKEN = 'growth-token';

interface ClientRun {
	ms: number;
	chats: number;
	peakRssMb: number;
	heapAfterMb: number;
}

/** Asynchronously: the sandbox answering it lives in this process's event loop. */
async function runClient(mode: 'executor' | 'loop', url: string): Promise<ClientRun> {
	const { stdout: out } = await promisify(execFile)(
		process.execPath,
		['--import', 'tsx', join(__dirname, 'growth-client.ts'), mode, url, TOKEN],
		{
			encoding: 'utf8',
			maxBuffer: 1 << 20,
		},
	);
	return JSON.parse(out) as ClientRun;
}

export async function runGrowth(): Promise<void> {
	console.log(`\n[growth] Return All at 0 ms, no limit, at ${SIZES.join(' / ')} chats (fresh process per run, ${ROUNDS} rounds)`);
	const rows: Row[] = [];
	let perChatAtSmallest = 0;
	for (const size of SIZES) {
		const sandbox = await startSandbox({ chats: size, tokens: [TOKEN], seed: 12 });
		try {
			const runs = { executor: [] as ClientRun[], loop: [] as ClientRun[] };
			for (let round = 0; round < ROUNDS; round++) {
				for (const mode of ['executor', 'loop'] as const) {
					const run = await runClient(mode, sandbox.url);
					check(run.chats === size, `growth: ${mode} listed ${run.chats} of ${size} chats`);
					runs[mode].push(run);
				}
			}
			const executorMs = median(runs.executor.map((r) => r.ms));
			const loopMs = median(runs.loop.map((r) => r.ms));
			const perChat = executorMs / size;
			if (!perChatAtSmallest) perChatAtSmallest = perChat;
			rows.push({
				label: `${size} chats`,
				cells: {
					'executor ms': executorMs,
					'loop ms': loopMs,
					'executor × loop': executorMs / loopMs,
					'µs per chat': perChat * 1000,
					'per chat × 1k': perChat / perChatAtSmallest,
					'peak RSS MB': median(runs.executor.map((r) => r.peakRssMb)),
					'heap after MB': median(runs.executor.map((r) => r.heapAfterMb)),
				},
			});
			record(`growth.${size}.executorVsLoop`, executorMs / loopMs);
			record(`growth.${size}.perChatVs1k`, perChat / perChatAtSmallest);
		} finally {
			await sandbox.stop();
		}
	}
	printTable('Growth: Return All at 0 ms, pacing off (client process: peak RSS, heap in use after the list)', rows);

	console.log(`\n[growth] the sandbox's cost per GET /chats page at ${SANDBOX_SIZES.join(' / ')} chats`);
	const out = execFileSync(process.execPath, ['--import', 'tsx', join(__dirname, 'sandbox-growth.bench.ts'), SANDBOX_SIZES.join(',')], {
		encoding: 'utf8',
		maxBuffer: 1 << 22,
	});
	const lines = out.trim().split('\n');
	console.log(lines.slice(0, -1).join('\n'));
	const { results } = JSON.parse(lines.at(-1)!) as { results: Array<{ chats: number; firstPageMs: number; middlePageMs: number }> };
	const base = results[0]!;
	for (const result of results) {
		record(`sandboxGrowth.${result.chats}.firstPageVs1k`, result.firstPageMs / base.firstPageMs);
		record(`sandboxGrowth.${result.chats}.middlePageVs1k`, result.middlePageMs / base.middlePageMs);
	}
}
