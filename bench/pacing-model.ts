/**
 * `npx tsx bench/pacing-model.ts`: the adaptive pacing's constants against alternatives, on virtual time (seconds to
 * run, not minutes, and no noise from the machine): the executor with a bucket per process behind the sandbox's own
 * rate limiter (30/s, burst 10, Retry-After in whole seconds) answering in 150 ms, arrivals jittered by up to 3 ms.
 * How the constants in SERVICE_RATE_LIMIT were chosen; `npm run bench -- --only=processes` then measures the choice
 * over real HTTP. Each figure is the mean over 5 seeds (SEEDS=n for more; the worst time in brackets); `u` is the last process's finish
 * over the first's; "then alone": one process sending 1,000 alone 5 s after sharing with another.
 * "2 together" is two processes starting at once (queue-mode workers given their executions together), `1st s` the
 * refusals in its first second; "1 alone" a single process, its cost against a full start (burst and rate at once).
 * Grids through the environment, comma-separated: DECREASE, SETTLE, APPROACH, PROBE, START_BURST, START_SHARE,
 * START_GROWTH, START_CUT, RESTART_AFTER_MS, PROBE_CROWDING, RESTART_GROWTH (default: the shipped values); CASES and VARIANTS pick cases and variants by the start of
 * their labels.
 */
import { SERVICE_RATE_LIMIT, TokenBucket, type AdaptiveRate, type RateLimit } from '@chat-messaging/core';
import { LimitedService, sendingProcess, VirtualClock } from '../test/support/shared-token';
import { floorSeconds, GENTLE_START_ONCE, PROBE_ALIKE } from './lib';

const SEEDS = Number(process.env.SEEDS ?? 5);

/** Before the measured job, each process sends this many together with the others, then all are quiet this long. */
interface Quiet {
	warm: number;
	quietMs: number;
}

/** `shares[i]` sends for process i; a share of 0 lists all 5,000 chats (100 pages) instead. */
async function scenario(
	rateLimit: RateLimit,
	shares: number[],
	latencyMs: number,
	concurrency: number,
	seed: number,
	staggerMs = 0,
	quiet?: Quiet,
) {
	const clock = new VirtualClock();
	const service = new LimitedService(clock, { latencyMs, seed: seed + 99, jitterMs: Number(process.env.JITTER ?? 3) });
	const ends: number[] = [];
	const senders = shares.map((_, index) => sendingProcess(clock, service, index, { rateLimit, concurrency, seed }));
	if (quiet) {
		// Long-running processes that have learned the rate together, then quiet (queue-mode workers between jobs).
		await clock.run(Promise.all(senders.map((sender) => sender.send(quiet.warm, 'warm'))));
		await clock.run(clock.sleep(quiet.quietMs));
	}
	const start = clock.now;
	const before = service.records.length;
	await clock.run(
		Promise.all(
			senders.map(async (sender, index) => {
				// Process n starts n × staggerMs after the first (queue-mode workers pick their executions up a little apart).
				if (index > 0 && staggerMs > 0) await clock.sleep(index * staggerMs);
				if (shares[index]) await sender.send(shares[index]!);
				else if ((await sender.list()) !== 5000) throw new Error(`p${index}: the list was incomplete`);
				ends.push(clock.now - start);
			}),
		),
	);
	for (const [index, count] of shares.entries()) {
		for (let item = 0; item < count; item++) {
			if (service.stored.get(`p${index} ${item}`) !== 1) throw new Error(`p${index} ${item} was not stored exactly once`);
		}
	}
	const requests = shares.reduce((sum, count) => sum + (count || 100), 0);
	const records = service.records.slice(before);
	return {
		ratio: (clock.now - start) / 1000 / floorSeconds(requests, latencyMs),
		refused: records.filter((record) => record.refused).length,
		firstSecond: records.filter((record) => record.refused && record.at - start < 1000).length,
		share: records.filter((record) => record.refused).length / records.length,
		spread: Math.max(...ends) / Math.min(...ends),
	};
}

async function thenAlone(rateLimit: RateLimit): Promise<string> {
	const clock = new VirtualClock();
	const service = new LimitedService(clock);
	const senders = [0, 1].map((index) => sendingProcess(clock, service, index, { rateLimit, concurrency: 40 }));
	await clock.run(Promise.all(senders.map((sender) => sender.send(500, 'warm'))));
	await clock.run(clock.sleep(5000));
	const start = clock.now;
	const before = service.records.length;
	await clock.run(senders[0]!.send(1000));
	const refused = service.records.slice(before).filter((record) => record.refused).length;
	return `${((clock.now - start) / 1000 / floorSeconds(1000)).toFixed(2)}x ${refused}`;
}

async function main(): Promise<void> {
	const shipped = SERVICE_RATE_LIMIT.adaptive as AdaptiveRate;
	const grid = (name: keyof AdaptiveRate) =>
		(process.env[name.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()] ?? String(shipped[name])).split(',').map(Number);
	// The adaptive rate with a full start: the whole burst and rate at once, as before the gentle start.
	const fullStart: RateLimit = { ...SERVICE_RATE_LIMIT, adaptive: { ...shipped, startBurst: SERVICE_RATE_LIMIT.burst, startShare: 1 } };
	const variants: Array<[string, RateLimit, ('pause' | number)?]> = [
		['fixed 28/s', { ...SERVICE_RATE_LIMIT, adaptive: false }],
		['start 5 at 1/2, once', GENTLE_START_ONCE],
		['probe alike (main)', PROBE_ALIKE],
		['adaptive, full start', fullStart],
		// The adaptive rate, but every 429 also stops the whole process for its Retry-After, as the fixed pace does.
		['full start + pause on 429', fullStart, 'pause'],
		// Classic AIMD: the same decrease, then a straight climb of this many requests per second each second.
		['AIMD +0.25/s², full start', fullStart, 0.25],
		['AIMD +1/s², full start', fullStart, 1],
	];
	for (const decrease of grid('decrease'))
		for (const settle of grid('settle'))
			for (const approach of grid('approach'))
				for (const probe of grid('probe'))
					for (const startBurst of grid('startBurst'))
						for (const startShare of grid('startShare'))
							for (const startGrowth of grid('startGrowth'))
								for (const startCut of grid('startCut'))
									for (const restartAfterMs of grid('restartAfterMs'))
										for (const probeCrowding of grid('probeCrowding'))
											for (const restartGrowth of grid('restartGrowth'))
												variants.push([
													`d${decrease} s${settle} a${approach} p${probe} b${startBurst} r${startShare} g${startGrowth} c${startCut} q${restartAfterMs / 1000} k${probeCrowding} h${restartGrowth}`,
													{
														...SERVICE_RATE_LIMIT,
														adaptive: {
															...shipped,
															decrease,
															settle,
															approach,
															probe,
															startBurst,
															startShare,
															startGrowth,
															startCut,
															restartAfterMs,
															probeCrowding,
															restartGrowth,
														},
													},
												]);
	// Quiet workers: each sent 150 with the other, then nothing for 75 s, then 150 each at once.
	const quiet: Quiet = { warm: 150, quietMs: 75_000 };
	const cases: Array<[string, number[], number, number, number?, Quiet?]> = [
		['1 alone', [1000], 150, 8],
		['1 alone ×40', [1000], 150, 40],
		['2 together', [500, 500], 150, 40],
		['2, 0.3 s apart', [500, 500], 150, 40, 300],
		['2, 1 s apart', [500, 500], 150, 40, 1000],
		['4 together', [250, 250, 250, 250], 150, 8],
		['4 together ×40', [250, 250, 250, 250], 150, 40],
		['2 at 0 ms', [500, 500], 0, 40],
		['2 uneven 7/3', [700, 300], 150, 40],
		['2 quiet, then 150 each', [150, 150], 150, 40, 0, quiet],
		['1 quiet, then 1000', [1000], 150, 40, 0, { warm: 150, quietMs: 75_000 }],
		['list 1 alone', [0], 150, 8],
		['list 2 together', [0, 0], 150, 8],
		['list 4', [0, 0, 0, 0], 150, 8],
	];
	// CASES and VARIANTS (comma-separated label prefixes) pick some, to sweep quickly.
	const pick = (name: string) => process.env[name]?.split(',');
	const casesPicked = pick('CASES');
	const variantsPicked = pick('VARIANTS');
	console.log(
		'1,000 sends between the processes, or each listing 5,000 chats: × floor (worst), 429s (in the 1st second), share of requests refused, u = last finish / first finish',
	);
	type Internals = { rate: number; refusedAt: number; refusedRate: number; limit: RateLimit; timing: { now(): number } };
	const prototype = TokenBucket.prototype as unknown as { refused(): boolean; climb(): void };
	const { refused, climb } = prototype;
	for (const [name, rateLimit, variant] of variants) {
		if (variantsPicked && !variantsPicked.some((prefix) => name.startsWith(prefix))) continue;
		// A refusal the bucket reports as not slowed down makes the exchange pause every executor of the process.
		prototype.refused =
			variant === 'pause'
				? function (this: TokenBucket) {
						refused.call(this);
						return false;
					}
				: refused;
		prototype.climb =
			typeof variant === 'number'
				? function (this: Internals) {
						const seconds = (this.timing.now() - this.refusedAt) / 1000;
						const line = this.refusedRate * (rateLimit.adaptive as AdaptiveRate).decrease + variant * seconds;
						this.rate = Math.min(rateLimit.perSecond, Math.max(this.rate, line));
					}
				: climb;
		const cells: string[] = [];
		for (const [label, shares, latencyMs, concurrency, staggerMs, quiet] of cases) {
			if (casesPicked && !casesPicked.some((prefix) => label.startsWith(prefix))) continue;
			let ratio = 0;
			let refused = 0;
			let firstSecond = 0;
			let share = 0;
			let worst = 0;
			let spread = 0;
			for (let seed = 0; seed < SEEDS; seed++) {
				const outcome = await scenario(rateLimit, shares, latencyMs, concurrency, seed, staggerMs, quiet);
				ratio += outcome.ratio / SEEDS;
				refused += outcome.refused / SEEDS;
				firstSecond += outcome.firstSecond / SEEDS;
				share += outcome.share / SEEDS;
				worst = Math.max(worst, outcome.ratio);
				spread = Math.max(spread, outcome.spread);
			}
			const alone = shares.length === 1 ? '' : ` u${spread.toFixed(2)}`;
			cells.push(
				`${label}: ${ratio.toFixed(3)}x (${worst.toFixed(2)}) ${refused.toFixed(1)} (${firstSecond.toFixed(1)}) ${(100 * share).toFixed(1)}%${alone}`,
			);
		}
		if (!casesPicked || casesPicked.some((prefix) => 'then alone'.startsWith(prefix)))
			cells.push(`then alone: ${await thenAlone(rateLimit)}`);
		console.log(`${name.padEnd(28)} ${cells.join(' | ')}`);
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
