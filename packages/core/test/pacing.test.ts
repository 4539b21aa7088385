/** Client-side pacing: a burst of 10, then about 30 requests per second, lower while others use the token. */
import { Executor, SERVICE_RATE_LIMIT, TokenBucket, type AdaptiveRate, type RateLimit } from '../src';
import { ok, scripted, virtualTiming } from '../../../test/support/scripted-transport';

describe('pacing', () => {
	it('lets a burst of 10 through at once, then paces at the rate', async () => {
		const timing = virtualTiming();
		const bucket = new TokenBucket({ perSecond: 30, burst: 10 }, timing);
		const start = timing.now();
		const times: number[] = [];
		await Promise.all(Array.from({ length: 40 }, () => bucket.take().then(() => times.push(timing.now() - start))));
		expect(times.slice(0, 10).every((t) => t === 0)).toBe(true);
		// 30 more tokens at 30 per second take about one second.
		expect(times[39]).toBeGreaterThanOrEqual(990);
		expect(times[39]).toBeLessThanOrEqual(1100);
	});

	it('after a stall (a sleep woken late: the process was busy) paces on from the waking, with no catch-up burst', async () => {
		const timing = virtualTiming();
		const sleep = timing.sleep;
		let stalled = false;
		// The first wait after the burst wakes 300 ms late, as a process busy taking in a thousand calls wakes it.
		timing.sleep = async (ms) => {
			await sleep(ms);
			if (!stalled) {
				stalled = true;
				timing.clock.now += 300;
			}
		};
		const bucket = new TokenBucket({ perSecond: 30, burst: 10, burstMarginMs: 25 }, timing);
		const start = timing.now();
		const times: number[] = [];
		await Promise.all(Array.from({ length: 20 }, () => bucket.take().then(() => times.push(timing.now() - start))));
		const afterStall = times.slice(10);
		// Without the rule, the 300 ms overslept came back as nine tokens granted at once on waking.
		expect(afterStall[0]).toBeGreaterThan(300);
		for (let index = 1; index < afterStall.length; index++) expect(afterStall[index]! - afterStall[index - 1]!).toBeGreaterThanOrEqual(33);
	});

	it('the executor paces concurrent calls by default', async () => {
		const timing = virtualTiming();
		const { transport, requests } = scripted(ok({}));
		const executor = new Executor({ baseUrl: 'https://x.io', transport, timing });
		await Promise.all(Array.from({ length: 25 }, () => executor.run('workspace:get')));
		expect(requests).toHaveLength(25);
		expect(timing.now() - 1_700_000_000_000).toBeGreaterThanOrEqual(480); // 15 beyond the burst at 30/s
	});

	it('can be switched off', async () => {
		const timing = virtualTiming();
		const { transport } = scripted(ok({}));
		const executor = new Executor({ baseUrl: 'https://x.io', transport, timing, rateLimit: false });
		await Promise.all(Array.from({ length: 25 }, () => executor.run('workspace:get')));
		expect(timing.sleeps).toEqual([]);
	});
});

describe('adaptive pacing: the rate gives way to other users of the token', () => {
	const cutAndClimb = { decrease: 0.85, settle: 0.93, approach: 0.005, probe: 0.1, probeCrowding: 3, minPerSecond: 1 };
	const start = { startBurst: 2, startShare: 0.25, startGrowth: 1, startCut: 0.6, restartAfterMs: 15_000, restartGrowth: 0.5 };
	const shipped: AdaptiveRate = { ...cutAndClimb, ...start };
	// The rules after the start, from a bucket that starts at the limit's full burst and rate.
	const adaptive: AdaptiveRate = { ...shipped, startBurst: 10, startShare: 1 };
	const limit: RateLimit = { perSecond: 28, burst: 10, adaptive };

	it('the service default adapts', () => {
		expect(SERVICE_RATE_LIMIT.adaptive).toEqual(shipped);
	});

	it('each refusal lowers the rate by the decrease factor', () => {
		const bucket = new TokenBucket(limit, virtualTiming());
		expect(bucket.perSecond).toBe(28);
		expect(bucket.refused()).toBe(true);
		expect(bucket.perSecond).toBeCloseTo(28 * 0.85);
		// Two bursts meeting are refused several times at once: the rate goes down as far as the crowding is deep.
		bucket.refused();
		bucket.refused();
		expect(bucket.perSecond).toBeCloseTo(28 * 0.85 ** 3);
	});

	it('clean answers raise it back: quickly, then flat just under the rate refused, then beyond it to the limit', () => {
		const timing = virtualTiming();
		const bucket = new TokenBucket(limit, timing);
		bucket.refused(); // 28 → 23.8
		bucket.refused(); // refused again at 23.8 → 20.23
		const rateAfter = (seconds: number) => {
			timing.clock.now += seconds * 1000;
			bucket.answered();
			return bucket.perSecond;
		};
		// The flat part: 0.93 × 23.8 = 22.13, reached after ∛((22.13 − 20.23) / 0.005) = 7.25 s.
		const first = rateAfter(2);
		expect(first).toBeGreaterThan(20.23);
		expect(first).toBeLessThan(21.6);
		const flat = rateAfter(5.3);
		expect(flat).toBeGreaterThan(22.1);
		expect(flat).toBeLessThanOrEqual(22.14);
		expect(rateAfter(1)).toBeLessThan(22.3); // still about flat a second later
		expect(rateAfter(3)).toBeGreaterThan(23.8); // then beyond the rate refused
		expect(rateAfter(10)).toBe(28); // and never above the limit
	});

	it('the probe beyond the flat part slows with the crowd: refused at a third of the limit, a 27th as steep', () => {
		const timing = virtualTiming();
		const bucket = new TokenBucket(limit, timing);
		for (let i = 0; i < 8; i++) bucket.refused();
		// Refused last at 28 × 0.85⁷ = 8.98: about 28 / 8.98 = 3.1 processes share the token, and as many cubics probe.
		const refusedRate = 28 * 0.85 ** 7;
		const crowd = 28 / refusedRate;
		const flat = 0.93 * refusedRate;
		const flatAt = Math.cbrt((flat - 0.85 * refusedRate) / 0.005);
		timing.clock.now += (flatAt + 4) * 1000;
		bucket.answered();
		// 4 s past the flat part: 0.1 / 3.1³ × 4³ = 0.21 a second above it, where a process alone would be 6.4 above.
		expect(bucket.perSecond - flat).toBeCloseTo((0.1 / crowd ** 3) * 4 ** 3, 5);
		expect(bucket.perSecond - flat).toBeLessThan(0.3);
	});

	it('refused at its full pace (perhaps its requests only bunched up on the way), it climbs back to that pace', () => {
		const timing = virtualTiming();
		const bucket = new TokenBucket(limit, timing);
		bucket.refused(); // 28 → 23.8
		timing.clock.now += 3000;
		bucket.answered();
		// ∛((28 − 23.8) / 0.005) = 9.4 s back to 28: after 3 s, most of the way already.
		expect(bucket.perSecond).toBeGreaterThan(26.5);
		timing.clock.now += 6500;
		bucket.answered();
		expect(bucket.perSecond).toBe(28);
	});

	it('only answers raise it: time without answers changes nothing until the next one', () => {
		const timing = virtualTiming();
		const bucket = new TokenBucket(limit, timing);
		bucket.refused();
		timing.clock.now += 60_000;
		expect(bucket.perSecond).toBeCloseTo(23.8);
		bucket.answered();
		expect(bucket.perSecond).toBe(28);
	});

	it('never goes below the minimum; a refusal there cannot slow it down', () => {
		const bucket = new TokenBucket(limit, virtualTiming());
		for (let i = 0; i < 30; i++) bucket.refused();
		expect(bucket.perSecond).toBe(1);
		expect(bucket.refused()).toBe(false);
		expect(bucket.perSecond).toBe(1);
	});

	it('a fixed rate (adaptive: false) stays as it is: the pacing before adaptation', () => {
		const bucket = new TokenBucket({ ...limit, adaptive: false }, virtualTiming());
		expect(bucket.refused()).toBe(false);
		expect(bucket.perSecond).toBe(28);
	});

	it('grants at the lowered rate', async () => {
		const timing = virtualTiming();
		const bucket = new TokenBucket({ ...limit, burst: 1 }, timing);
		await bucket.take();
		for (let i = 0; i < 4; i++) bucket.refused(); // 28 × 0.85⁴ = 14.6 per second
		const start = timing.now();
		for (let i = 0; i < 15; i++) await bucket.take();
		expect(timing.now() - start).toBeGreaterThanOrEqual(1000); // 15 at 14.6/s, not 28/s
	});
});

describe('adaptive pacing: a process starts gently, before the service has answered it', () => {
	/** Resolves the times (ms from now) at which `count` takes queued at once are granted. */
	const grants = async (bucket: TokenBucket, timing: ReturnType<typeof virtualTiming>, count: number) => {
		const start = timing.now();
		const times: number[] = [];
		await Promise.all(Array.from({ length: count }, () => bucket.take().then(() => times.push(timing.now() - start))));
		return times;
	};

	/** A bucket past its start: 30 clean answers took it to the full burst and rate. */
	const atFullPace = () => {
		const timing = virtualTiming();
		const bucket = new TokenBucket(SERVICE_RATE_LIMIT, timing);
		for (let i = 0; i < 30; i++) bucket.answered();
		return { timing, bucket };
	};

	it('a new process sends a burst of 2 at a quarter of the rate, not 10 at the full rate', async () => {
		const timing = virtualTiming();
		const bucket = new TokenBucket(SERVICE_RATE_LIMIT, timing);
		expect(bucket.perSecond).toBe(7);
		const times = await grants(bucket, timing, 12);
		expect(times.filter((t) => t === 0)).toHaveLength(2);
		// The 10 beyond the burst at 7 a second (after the burst's 25 ms margin): about 1.4 s.
		expect(times[11]).toBeGreaterThanOrEqual(1400);
	});

	it('four new processes together fit the service: 8 at once of its burst of 10, 28 a second of its 30', async () => {
		const timing = virtualTiming();
		const buckets = Array.from({ length: 4 }, () => new TokenBucket(SERVICE_RATE_LIMIT, timing));
		const start = timing.now();
		const times: number[] = [];
		// Nobody answers within the first second (a slow service): the start's rate is all they may use.
		await Promise.all(
			buckets.flatMap((bucket) => Array.from({ length: 12 }, () => bucket.take().then(() => times.push(timing.now() - start)))),
		);
		expect(times.filter((t) => t === 0)).toHaveLength(8);
		expect(times.filter((t) => t < 1000).length).toBeLessThanOrEqual(10 + 30);
	});

	it('each clean answer adds one to the burst and one a second to the rate, up to the limit', async () => {
		const timing = virtualTiming();
		const bucket = new TokenBucket(SERVICE_RATE_LIMIT, timing);
		for (let i = 0; i < 3; i++) bucket.answered();
		expect(bucket.perSecond).toBe(10);
		for (let i = 0; i < 20; i++) bucket.answered();
		expect(bucket.perSecond).toBe(28);
		// A full bucket now holds the limit's burst.
		timing.clock.now += 1000;
		const times = await grants(bucket, timing, 12);
		expect(times.filter((t) => t === 0)).toHaveLength(10);
	});

	it('a refusal ends the start with one deep cut, and the rate climbs back along the curve, not per answer', () => {
		const timing = virtualTiming();
		const bucket = new TokenBucket(SERVICE_RATE_LIMIT, timing);
		for (let i = 0; i < 9; i++) bucket.answered(); // 16
		expect(bucket.refused()).toBe(true);
		// Not 0.85 × 16: the start grew past the others' share before the first refusal, so it gives back more.
		expect(bucket.perSecond).toBeCloseTo(16 * 0.6);
		// Answers at once add nothing now; the curve is in time since the refusal.
		for (let i = 0; i < 10; i++) bucket.answered();
		expect(bucket.perSecond).toBeCloseTo(16 * 0.6);
		// As if refused at 16 × 0.6 / 0.85 = 11.29: flat at 0.93 × that = 10.50 after ∛((10.50 − 9.6) / 0.005) = 5.65 s.
		timing.clock.now += 5650;
		bucket.answered();
		expect(bucket.perSecond).toBeGreaterThan(10.48);
		expect(bucket.perSecond).toBeLessThan(10.51);
	});

	it('a process quiet for 15 s starts again as a new one: a burst of 2 at a quarter of the rate', async () => {
		const { timing, bucket } = atFullPace();
		expect(bucket.perSecond).toBe(28);
		timing.clock.now += 15_000;
		const times = await grants(bucket, timing, 12);
		expect(times.filter((t) => t === 0)).toHaveLength(2);
		expect(bucket.perSecond).toBe(7);
		// And grows again with each answer, as at the first start.
		bucket.answered();
		expect(bucket.perSecond).toBe(8);
	});

	it('what it learned goes too: a process cut by refusals, quiet for 15 s, starts at the start rate, not its cut one', async () => {
		const { timing, bucket } = atFullPace();
		for (let i = 0; i < 12; i++) bucket.refused();
		expect(bucket.perSecond).toBeLessThan(5);
		timing.clock.now += 15_000;
		await bucket.take();
		expect(bucket.perSecond).toBe(7);
	});

	it('a process once refused starts again growing by half a request a second per answer: the token is shared', async () => {
		const { timing, bucket } = atFullPace();
		bucket.refused();
		timing.clock.now += 15_000;
		await bucket.take();
		expect(bucket.perSecond).toBe(7);
		bucket.answered();
		expect(bucket.perSecond).toBe(7.5);
		for (let i = 0; i < 41; i++) bucket.answered();
		expect(bucket.perSecond).toBe(28);
	});

	it('a process busy or quiet for less keeps its pace: the full burst after 14 s of quiet', async () => {
		const { timing, bucket } = atFullPace();
		timing.clock.now += 14_000;
		expect((await grants(bucket, timing, 12)).filter((t) => t === 0)).toHaveLength(10);
		expect(bucket.perSecond).toBe(28);
	});

	it('an answer counts as activity: a request answered after 20 s in flight does not restart the start', async () => {
		const { timing, bucket } = atFullPace();
		timing.clock.now += 20_000;
		bucket.answered();
		const times = await grants(bucket, timing, 12);
		expect(times.filter((t) => t === 0)).toHaveLength(10);
	});

	it('a fixed rate (adaptive: false) starts at its full burst and rate, as before', async () => {
		const timing = virtualTiming();
		const bucket = new TokenBucket({ ...SERVICE_RATE_LIMIT, adaptive: false }, timing);
		expect(bucket.perSecond).toBe(28);
		const times = await grants(bucket, timing, 12);
		expect(times.filter((t) => t === 0)).toHaveLength(10);
	});
});
