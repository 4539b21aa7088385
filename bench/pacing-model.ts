/**
 * `npx tsx bench/pacing-model.ts`: the adaptive pacing's constants against alternatives, on virtual time (seconds to
 * run, not minutes, and no noise from the machine): the executor with a bucket per process behind the sandbox's own
 * rate limiter (30/s, burst 10, Retry-After in whole seconds) answering in 150 ms, arrivals jittered by up to 3 ms.
 * How the constants in SERVICE_RATE_LIMIT were chosen; `npm run bench -- --only=processes` then measures the choice
 * over real HTTP. Each figure is the mean over 5 seeds (the worst time in brackets); `u` is the last process's finish
 * over the first's; "then alone": one process sending 1,000 alone 5 s after sharing with another.
 * Grids through the environment, comma-separated: DECREASE, SETTLE, APPROACH, PROBE (default: the shipped values).
 */
import { SERVICE_RATE_LIMIT, TokenBucket, type AdaptiveRate, type RateLimit } from '@chat-messaging/core';
import { LimitedService, sendingProcess, VirtualClock } from '../test/support/shared-token';
import { floorSeconds } from './lib';

const SEEDS = 5;

async function scenario(rateLimit: RateLimit, shares: number[], latencyMs: number, concurrency: number, seed: number) {
	const clock = new VirtualClock();
	const service = new LimitedService(clock, { latencyMs, seed: seed + 99, jitterMs: Number(process.env.JITTER ?? 3) });
	const start = clock.now;
	const ends: number[] = [];
	const senders = shares.map((_, index) => sendingProcess(clock, service, index, { rateLimit, concurrency, seed }));
	await clock.run(Promise.all(senders.map((sender, index) => sender.send(shares[index]!).then(() => ends.push(clock.now - start)))));
	for (const [index, count] of shares.entries()) {
		for (let item = 0; item < count; item++) {
			if (service.stored.get(`p${index} ${item}`) !== 1) throw new Error(`p${index} ${item} was not stored exactly once`);
		}
	}
	const total = shares.reduce((sum, count) => sum + count, 0);
	return {
		ratio: (clock.now - start) / 1000 / floorSeconds(total, latencyMs),
		refused: service.records.filter((record) => record.refused).length,
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
	const grid = (name: keyof AdaptiveRate) => (process.env[name.toUpperCase()] ?? String(shipped[name])).split(',').map(Number);
	const variants: Array<[string, RateLimit, ('pause' | number)?]> = [
		['fixed 28/s (before)', { ...SERVICE_RATE_LIMIT, adaptive: false }],
		// The shipped rate, but every 429 also stops the whole process for its Retry-After, as the fixed pace does.
		['shipped + pause on each 429', SERVICE_RATE_LIMIT, 'pause'],
		// Classic AIMD: the same decrease, then a straight climb of this many requests per second each second.
		['AIMD +0.25/s²', SERVICE_RATE_LIMIT, 0.25],
		['AIMD +1/s²', SERVICE_RATE_LIMIT, 1],
	];
	for (const decrease of grid('decrease'))
		for (const settle of grid('settle'))
			for (const approach of grid('approach'))
				for (const probe of grid('probe'))
					variants.push([
						`d${decrease} s${settle} a${approach} p${probe}`,
						{ ...SERVICE_RATE_LIMIT, adaptive: { ...shipped, decrease, settle, approach, probe } },
					]);
	const cases: Array<[string, number[], number, number]> = [
		['1 process', [1000], 150, 8],
		['2', [500, 500], 150, 40],
		['4', [250, 250, 250, 250], 150, 8],
		['2 at 0 ms', [500, 500], 0, 40],
		['2 uneven 7/3', [700, 300], 150, 40],
	];
	console.log('1,000 sends between the processes: × floor (worst), 429s, u = last finish / first finish');
	type Internals = { rate: number; refusedAt: number; refusedRate: number; limit: RateLimit; timing: { now(): number } };
	const prototype = TokenBucket.prototype as unknown as { refused(): boolean; climb(): void };
	const { refused, climb } = prototype;
	for (const [name, rateLimit, variant] of variants) {
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
		for (const [label, shares, latencyMs, concurrency] of cases) {
			let ratio = 0;
			let refused = 0;
			let worst = 0;
			let spread = 0;
			for (let seed = 0; seed < SEEDS; seed++) {
				const outcome = await scenario(rateLimit, shares, latencyMs, concurrency, seed);
				ratio += outcome.ratio / SEEDS;
				refused += outcome.refused / SEEDS;
				worst = Math.max(worst, outcome.ratio);
				spread = Math.max(spread, outcome.spread);
			}
			cells.push(`${label}: ${ratio.toFixed(2)}x (${worst.toFixed(2)}) ${refused.toFixed(0)} u${spread.toFixed(2)}`);
		}
		cells.push(`then alone: ${await thenAlone(rateLimit)}`);
		console.log(`${name.padEnd(28)} ${cells.join(' | ')}`);
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
