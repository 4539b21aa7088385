/**
 * Benchmarks, reported as ratios side by side in one run (never as timed assertions in tests).
 * Variants are interleaved sample by sample so machine noise hits them alike; medians are reported.
 *  1. Return All over 1,000 chats (20 pages) against the sandbox with 120 ms of latency per request
 *     (a distant service): sequential versus 2, 4 and 8 pages at once, with the client's pacing on
 *     (28 requests per second: concurrency cannot beat the service's rate, and must not try).
 *  2. The executor's own cost per call (validation, URL building, unwrap; pacing off) versus the
 *     same fetch transport called directly and versus a bare fetch, on loopback without latency.
 * Run: npm run bench:pagination
 */
import { Executor } from '@chat-messaging/core';
import { startSandbox } from '@chat-messaging/sandbox';
import { fetchTransport, realTiming } from '../test/support/fetch-transport';

type Variant = { label: string; run: () => Promise<unknown> };

async function compare(title: string, rounds: number, variants: Variant[]): Promise<number[]> {
	console.log(title);
	for (const variant of variants) await variant.run(); // warm-up
	const samples = variants.map(() => [] as number[]);
	for (let round = 0; round < rounds; round++) {
		for (const [index, variant] of variants.entries()) {
			const start = performance.now();
			await variant.run();
			samples[index].push(performance.now() - start);
		}
	}
	const medians = samples.map((list) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)]);
	for (const [index, variant] of variants.entries()) {
		console.log(
			`  ${variant.label.padEnd(40)} median ${medians[index].toFixed(1).padStart(8)} ms   ratio ${(medians[index] / medians[0]).toFixed(2)}`,
		);
	}
	return medians;
}

async function main() {
	const distant = await startSandbox({ chats: 1000, latencyMs: 120, tokens: ['bench'], seed: 3 });
	const near = await startSandbox({ chats: 50, tokens: ['bench'], seed: 3 });
	try {
		const walk = (concurrency: number): Variant => {
			const executor = new Executor({
				baseUrl: distant.url,
				token: 'bench',
				transport: fetchTransport,
				timing: realTiming,
				pageConcurrency: concurrency,
			});
			return {
				label: `Return All, pageConcurrency ${concurrency}`,
				run: async () => {
					const count = ((await executor.run('chat:getAll', {})) as unknown[]).length;
					if (count < 1000) throw new Error(`expected at least 1000 chats, got ${count}`);
				},
			};
		};
		await compare('1. Return All over 1,000 chats (20 pages), 120 ms latency, pacing on (ratio to sequential)', 3, [1, 2, 4, 8].map(walk));

		const calls = 100;
		const executor = new Executor({ baseUrl: near.url, token: 'bench', transport: fetchTransport, timing: realTiming, rateLimit: false });
		const request = {
			method: 'GET' as const,
			url: `${near.url}/workspace`,
			headers: { Authorization: 'Bearer bench', Accept: 'application/json' },
			timeoutMs: 30_000,
		};
		const times = (label: string, once: () => Promise<unknown>): Variant => ({
			label,
			run: async () => {
				for (let i = 0; i < calls; i++) await once();
			},
		});
		await compare(`2. ${calls} × GET /workspace on loopback (ratio to a bare fetch)`, 7, [
			times('bare fetch + JSON', async () => (await fetch(request.url, { headers: request.headers })).json()),
			times('fetch transport directly', () => fetchTransport(request)),
			times('executor.run (validation, unwrap)', () => executor.run('workspace:get')),
		]);
	} finally {
		await Promise.all([distant.stop(), near.stop()]);
	}
}

main().catch((error) => {
	console.error(error);
	process.exitCode = 1;
});
