/** Client-side pacing: a burst of 10, then about 30 requests per second. */
import { Executor, TokenBucket } from '../src';
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
