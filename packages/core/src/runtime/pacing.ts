/**
 * Client-side pacing under the service's request rate (about 30 per second with a burst of 10), so
 * that concurrent pages and items do not earn 429s. A token bucket on injected time, shared by every
 * executor of one client in a process: the service counts per token, not per n8n execution or
 * Node-RED config node.
 */
import { createHash } from 'crypto';
import type { Timing } from '../catalogue/types';

export interface RateLimit {
	perSecond: number;
	burst: number;
	/**
	 * Extra wait before refilling a bucket that was full: the service counts a burst from the arrival of its first
	 * request, and when that one arrived a few ms late (a new connection) the first request after the burst would be
	 * early by the service's clock. Paid once per burst, not per request.
	 */
	burstMarginMs?: number;
}

/**
 * The service allows about 30 per second with a burst of 10. Pacing exactly at 30 earns an occasional 429 from
 * arrival jitter (measured against the sandbox); 28 leaves the service's bucket 2 tokens a second to absorb it
 * (0 × 429 in `npm run bench`), while 27 with a burst of 9 cost a tenth of the floor on every long job.
 */
export const SERVICE_RATE_LIMIT: RateLimit = { perSecond: 28, burst: 10, burstMarginMs: 25 };

export class TokenBucket {
	private tokens: number;
	private updatedAt: number;
	private pausedUntil = 0;
	/** Callers queue here so that tokens go out in call order. */
	private queue: Promise<void> = Promise.resolve();

	constructor(
		private readonly limit: RateLimit,
		private readonly timing: Timing,
	) {
		this.tokens = limit.burst;
		this.updatedAt = timing.now();
	}

	/**
	 * The service answered 429: nobody sharing this bucket sends before `ms` from now (the answer
	 * speaks for the client, so every executor of it waits, not only the one that was refused).
	 */
	pause(ms: number): void {
		const until = this.timing.now() + ms;
		if (until > this.pausedUntil) this.pausedUntil = until;
		this.tokens = Math.min(this.tokens, 0);
	}

	/** Resolves when one request may be sent. */
	take(): Promise<void> {
		const turn = this.queue.then(() => this.takeOne());
		this.queue = turn.catch(() => undefined);
		return turn;
	}

	private async takeOne(): Promise<void> {
		for (;;) {
			const paused = this.pausedUntil - this.timing.now();
			if (paused > 0) {
				await this.timing.sleep(paused);
				continue;
			}
			const now = this.timing.now();
			// updatedAt lies ahead while a burst's margin runs (see burstMarginMs): no refill until then.
			this.tokens = Math.min(this.limit.burst, this.tokens + (Math.max(0, now - this.updatedAt) / 1000) * this.limit.perSecond);
			this.updatedAt = Math.max(now, this.updatedAt);
			if (this.tokens >= 1) {
				const wasFull = this.tokens >= this.limit.burst;
				this.tokens -= 1;
				if (wasFull && this.limit.burstMarginMs) this.updatedAt = now + this.limit.burstMarginMs;
				return;
			}
			const wait = Math.ceil(((1 - this.tokens) / this.limit.perSecond) * 1000) + (this.updatedAt - now);
			await this.timing.sleep(wait);
			// Woken later than one request's interval, the process was busy (an MCP server taking in a thousand calls at
			// once): requests granted before may only now be leaving, and the time overslept, credited, would send a
			// catch-up burst right behind them. Pace on from now as after a burst instead.
			const woken = this.timing.now();
			if (woken - (now + wait) > 1000 / this.limit.perSecond) this.updatedAt = woken + (this.limit.burstMarginMs ?? 0);
		}
	}
}

/** Buckets by client: base URL and a hash of the token (never the token itself). */
const sharedBuckets = new Map<string, TokenBucket>();

/** The identity the service paces by, fit to keep in memory: the base URL and a hash of the token. */
export function pacingKey(baseUrl: string, token: string): string {
	return `${baseUrl}|${createHash('sha256').update(token).digest('hex').slice(0, 32)}`;
}

/** The one bucket of this client in this process (the first caller's limit and timing make it). */
export function sharedBucket(key: string, limit: RateLimit, timing: Timing): TokenBucket {
	let bucket = sharedBuckets.get(key);
	if (!bucket) {
		bucket = new TokenBucket(limit, timing);
		sharedBuckets.set(key, bucket);
	}
	return bucket;
}
