/**
 * Processes that share a token share the service's rate, without talking to each other: each paces itself and
 * learns from the service's refusals. Modelled on virtual time (test/support/shared-token.ts: the sandbox's own
 * rate limiter, 30 requests a second with a burst of 10, in front of executors with a bucket each, as separate
 * processes have); nothing here depends on the machine's speed. `npm run bench` measures the same over real HTTP,
 * with the executor in child processes.
 */
import { SERVICE_RATE_LIMIT, type AdaptiveRate, type RateLimit } from '../src';
import { LimitedService, sendingProcess, VirtualClock } from '../../../test/support/shared-token';

const FIXED: RateLimit = { ...SERVICE_RATE_LIMIT, adaptive: false };
/** The adaptive rate without its gentle start: a new process sends the whole burst at the full rate at once. */
const FULL_START: RateLimit = {
	...SERVICE_RATE_LIMIT,
	adaptive: { ...(SERVICE_RATE_LIMIT.adaptive as AdaptiveRate), startBurst: SERVICE_RATE_LIMIT.burst, startShare: 1 },
};

/** `processes` on one token sending `each` messages at once, `concurrency` at a time each; what the service saw. */
async function share(processes: number, each: number, options: { rateLimit?: RateLimit; concurrency?: number } = {}) {
	const clock = new VirtualClock();
	const service = new LimitedService(clock);
	const senders = Array.from({ length: processes }, (_, index) => sendingProcess(clock, service, index, options));
	const start = clock.now;
	await clock.run(Promise.all(senders.map((sender) => sender.send(each))));
	const refused = service.records.filter((record) => record.refused).length;
	return { clock, service, senders, start, seconds: (clock.now - start) / 1000, refused, requests: service.records.length };
}

/** Every message of every process stored exactly once: `sent` is each process's count. */
function eachStoredOnce(service: LimitedService, sent: number[]): void {
	const counts = sent.flatMap((each, index) => Array.from({ length: each }, (_, item) => service.stored.get(`p${index} ${item}`) ?? 0));
	expect(counts.filter((count) => count !== 1)).toEqual([]);
	expect(service.stored.size).toBe(counts.length);
}

describe('processes sharing a token', () => {
	it('a process alone is never refused and keeps its full pace', async () => {
		const { senders, refused } = await share(1, 300);
		expect(refused).toBe(0);
		expect(senders[0]!.bucket().perSecond).toBe(SERVICE_RATE_LIMIT.perSecond);
	});

	it.each([2, 4])('%i processes converge on sharing the rate: few refusals, every message stored once', async (processes) => {
		const each = 1000 / processes;
		const { service, refused, requests, seconds } = await share(processes, each, { concurrency: 40 });
		// Each pacing at 28 a second as if alone, 2 processes had 236 of 1,236 requests refused, 4 had 1,461 of 2,461.
		expect(refused / requests).toBeLessThan(processes === 2 ? 0.04 : 0.1);
		eachStoredOnce(service, Array(processes).fill(each));
		// Together they send at about the service's rate, refused requests included, not a multiple of it: the refused
		// ones (under 2 %) may take it a little past 30 when the processes finish sooner (2 processes: 30.1).
		expect((requests - 10) / seconds).toBeLessThanOrEqual(31);
	});

	it('no process starves: over a minute each gets a share within 2x of the others; on average together they stay within the limit', async () => {
		const { service, start, seconds, requests } = await share(4, 600, { concurrency: 8 });
		const minute = [0, 1, 2, 3].map((index) => service.arrivals(start, start + 60_000, index).filter((r) => !r.refused).length);
		expect(Math.max(...minute) / Math.min(...minute)).toBeLessThanOrEqual(2);
		// Every request sent, refused ones included, beyond the first burst: at most the service's 30 a second.
		expect((requests - 10) / seconds).toBeLessThanOrEqual(30);
	});

	it('a burst from one process does not hold the others up: they keep getting answers', async () => {
		const clock = new VirtualClock();
		const service = new LimitedService(clock);
		const steady = sendingProcess(clock, service, 0, { concurrency: 8 });
		const bursting = sendingProcess(clock, service, 1, { concurrency: 40 });
		const answered: number[] = [];
		const start = clock.now;
		await clock.run(
			Promise.all([steady.send(900, 'p0', () => answered.push(clock.now - start)), clock.sleep(10_000).then(() => bursting.send(200))]),
		);
		eachStoredOnce(service, [900, 200]);
		const gaps = answered.slice(1).map((at, index) => at - answered[index]!);
		// With a fixed pace, each refusal stopped the whole process for its Retry-After: answers stopped for 2.4 s.
		expect(Math.max(...gaps)).toBeLessThan(1000);
	});

	it('once the others have gone, a process climbs back to its full pace', async () => {
		const { clock, service, senders } = await share(2, 300, { concurrency: 40 });
		const [alone] = senders;
		expect(alone!.bucket().perSecond).toBeLessThan(SERVICE_RATE_LIMIT.perSecond);
		const before = service.records.length;
		await clock.run(alone!.send(600, 'alone'));
		expect(alone!.bucket().perSecond).toBe(SERVICE_RATE_LIMIT.perSecond);
		expect(service.records.slice(before).filter((record) => record.refused)).toEqual([]);
	});

	it('processes starting together do not meet with full bursts: few refusals in their first second', async () => {
		const firstSecond = ({ service, start }: Awaited<ReturnType<typeof share>>) =>
			service.arrivals(start, start + 1000).filter((record) => record.refused).length;
		const full = await share(2, 500, { rateLimit: FULL_START, concurrency: 40 });
		const gentle = await share(2, 500, { concurrency: 40 });
		// Two bursts of 10 against the service's 10: ten refused at once, before either process has heard anything.
		expect(firstSecond(full)).toBeGreaterThanOrEqual(10);
		expect(firstSecond(gentle)).toBeLessThanOrEqual(5);
		expect(gentle.refused).toBeLessThan(full.refused);
		eachStoredOnce(gentle.service, [500, 500]);
	});

	it('two processes listing at once share the rate from the start, instead of one cut deep and slow to recover', async () => {
		const listing = async (rateLimit: RateLimit) => {
			const clock = new VirtualClock();
			const service = new LimitedService(clock);
			const listers = [0, 1].map((index) => sendingProcess(clock, service, index, { rateLimit }));
			const start = clock.now;
			const counts = await clock.run(Promise.all(listers.map((lister) => lister.list())));
			return { counts, seconds: (clock.now - start) / 1000 };
		};
		const full = await listing(FULL_START);
		const gentle = await listing(SERVICE_RATE_LIMIT);
		expect(gentle.counts).toEqual([5000, 5000]);
		// 200 pages between them at the service's 30 a second: about 6.5 s at best.
		expect(gentle.seconds).toBeLessThan(0.75 * full.seconds);
	});

	it('a process alone pays for its start once per quiet spell: under a second', async () => {
		const gentle = await share(1, 1000);
		const full = await share(1, 1000, { rateLimit: FULL_START });
		expect(gentle.refused).toBe(0);
		expect(gentle.seconds - full.seconds).toBeLessThan(1);
	});

	it('four processes starting together fit the service at first: none refused before any has heard an answer', async () => {
		const refusedWithin = ({ service, start }: Awaited<ReturnType<typeof share>>, ms: number) =>
			service.arrivals(start, start + ms).filter((record) => record.refused).length;
		const four = await share(4, 250);
		const startOfBefore: RateLimit = {
			...SERVICE_RATE_LIMIT,
			adaptive: { ...(SERVICE_RATE_LIMIT.adaptive as AdaptiveRate), startBurst: 5, startShare: 0.5, startCut: 0.85 },
		};
		const before = await share(4, 250, { rateLimit: startOfBefore });
		// Four bursts of 5 against the service's 10: ten refused at once. Bursts of 2 at 7 a second fit it.
		expect(refusedWithin(before, 250)).toBeGreaterThanOrEqual(8);
		expect(refusedWithin(four, 250)).toBe(0);
		expect(refusedWithin(four, 1000)).toBeLessThan(refusedWithin(before, 1000) / 2);
		expect(four.refused).toBeLessThan(before.refused);
		eachStoredOnce(four.service, [250, 250, 250, 250]);
	});

	it('long-running processes quiet for a while, then given bulk sends together, start gently again', async () => {
		const quietThenBulk = async (rateLimit: RateLimit) => {
			const clock = new VirtualClock();
			const service = new LimitedService(clock);
			const senders = [0, 1].map((index) => sendingProcess(clock, service, index, { rateLimit, concurrency: 40 }));
			// They learned the rate together, then nothing for 75 s (queue-mode workers between jobs).
			await clock.run(Promise.all(senders.map((sender) => sender.send(150, 'warm'))));
			await clock.run(clock.sleep(75_000));
			const start = clock.now;
			await clock.run(Promise.all(senders.map((sender) => sender.send(150))));
			return service.arrivals(start, start + 1000).filter((record) => record.refused).length;
		};
		const once: RateLimit = {
			...SERVICE_RATE_LIMIT,
			adaptive: { ...(SERVICE_RATE_LIMIT.adaptive as AdaptiveRate), restartAfterMs: Number.POSITIVE_INFINITY },
		};
		// Started gently once in their lives, they meet again with two full bursts of 10 against the service's 10.
		expect(await quietThenBulk(once)).toBeGreaterThanOrEqual(8);
		expect(await quietThenBulk(SERVICE_RATE_LIMIT)).toBeLessThanOrEqual(2);
	});

	it('the fixed pace of before, for comparison: the same two processes are refused far more often', async () => {
		const { refused, requests, service } = await share(2, 500, { rateLimit: FIXED, concurrency: 40 });
		expect(refused / requests).toBeGreaterThan(0.1);
		eachStoredOnce(service, [500, 500]);
	});
});
