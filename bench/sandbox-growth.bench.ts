/**
 * How the sandbox scales with the size of a workspace: time per GET /chats page (the first page, a middle page, a
 * filtered page, and the first page right after a new inbound message reorders the list) and peak memory, at 1k, 5k,
 * 20k and 100k chats. Each size runs in its own process so its peak memory is its own. Medians of 15 requests.
 * Prints a table and one JSON line. Run: npm run bench:growth [-- sizes, e.g. 1000,5000]; npm run bench runs it as part of its growth scenario
 */
import { execFileSync } from 'child_process';
import { startSandbox } from '@chat-messaging/sandbox';

const SIZES = [1_000, 5_000, 20_000, 100_000];
const ROUNDS = 15;

interface SizeResult {
	chats: number;
	seedMs: number;
	firstPageMs: number;
	middlePageMs: number;
	filteredPageMs: number;
	afterWriteMs: number;
	peakRssMb: number;
	heapMb: number;
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

async function measureSize(chats: number): Promise<SizeResult> {
	const seedStart = performance.now();
	const sbx = await startSandbox({ chats, tokens: ['bench'], seed: 11, deliveredAfterMs: 0, readAfterMs: 0 });
	const seedMs = performance.now() - seedStart;
	const headers = { authorization: 'Bearer bench', 'content-type': 'application/json' };
	const get = async (path: string) => {
		const started = performance.now();
		const res = await fetch(`${sbx.url}${path}`, { headers });
		const body = (await res.json()) as { data: { chats: { id: number }[] } };
		if (res.status !== 200 || body.data.chats.length === 0) throw new Error(`GET ${path} → ${res.status}`);
		return { ms: performance.now() - started, chats: body.data.chats };
	};
	try {
		// Interleaved rounds after one warm-up of each, so garbage collection after seeding hits every variant alike.
		const paths = ['/chats', `/chats?page=${Math.max(1, Math.floor(chats / 50 / 2))}`, '/chats?read=false&closed=false&group=false'];
		for (const path of paths) await get(path);
		const samples = paths.map(() => [] as number[]);
		for (let i = 0; i < ROUNDS; i += 1) for (const [index, path] of paths.entries()) samples[index]!.push((await get(path)).ms);
		const [firstPageMs, middlePageMs, filteredPageMs] = samples.map(median) as [number, number, number];
		// A message into the chat at the end of the order moves it to the top: the next page must show it.
		const last = await get(`/chats?page=${Math.ceil(chats / 50)}`);
		const afterWrite: number[] = [];
		for (let i = 0; i < ROUNDS; i += 1) {
			const target = last.chats[i % last.chats.length]!;
			await fetch(`${sbx.url}/_sandbox/incoming`, {
				method: 'POST',
				headers,
				body: JSON.stringify({ chat_id: target.id, text: `bump ${i}` }),
			});
			const page = await get('/chats');
			if (page.chats[0]!.id !== target.id) throw new Error('the bumped chat is not first');
			afterWrite.push(page.ms);
		}
		const peakRssMb = process.resourceUsage().maxRSS / 1024;
		const heapMb = process.memoryUsage().heapUsed / 1024 / 1024;
		return { chats, seedMs, firstPageMs, middlePageMs, filteredPageMs, afterWriteMs: median(afterWrite), peakRssMb, heapMb };
	} finally {
		await sbx.stop();
	}
}

async function main() {
	const sizeArg = process.argv.find((a) => a.startsWith('--size='));
	if (sizeArg) {
		process.stdout.write(JSON.stringify(await measureSize(Number(sizeArg.slice('--size='.length)))));
		return;
	}
	const sizes = process.argv[2] ? process.argv[2].split(',').map(Number) : SIZES;
	const results: SizeResult[] = [];
	for (const size of sizes) {
		const out = execFileSync(process.execPath, ['--import', 'tsx', __filename, `--size=${size}`], { encoding: 'utf8', maxBuffer: 1 << 20 });
		results.push(JSON.parse(out) as SizeResult);
	}
	const [base] = results;
	console.log('GET /chats per page (medians, ms) and memory per workspace size; ratio = first page / first page at the smallest size');
	console.log(
		`  ${'chats'.padStart(7)} ${'seed'.padStart(8)} ${'first'.padStart(7)} ${'middle'.padStart(7)} ${'filtered'.padStart(9)} ${'after write'.padStart(12)} ${'ratio'.padStart(6)} ${'peak RSS MB'.padStart(12)} ${'heap MB'.padStart(8)}`,
	);
	for (const r of results) {
		console.log(
			`  ${String(r.chats).padStart(7)} ${r.seedMs.toFixed(0).padStart(8)} ${r.firstPageMs.toFixed(2).padStart(7)} ${r.middlePageMs.toFixed(2).padStart(7)} ${r.filteredPageMs.toFixed(2).padStart(9)} ${r.afterWriteMs.toFixed(2).padStart(12)} ${(r.firstPageMs / (base?.firstPageMs ?? 1)).toFixed(2).padStart(6)} ${r.peakRssMb.toFixed(0).padStart(12)} ${r.heapMb.toFixed(0).padStart(8)}`,
		);
	}
	console.log(JSON.stringify({ bench: 'sandbox-growth', results }));
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
