/**
 * Client-side pacing under the service's request rate (about 30 per second with a burst of 10), so
 * that concurrent pages and items do not earn 429s. A token bucket on injected time.
 */
import type { Timing } from './types';

export interface RateLimit {
	perSecond: number;
	burst: number;
}

/**
 * The service allows about 30 per second with a burst of 10; pacing exactly at that rate earns an
 * occasional 429 from arrival jitter (measured against the sandbox), so the default keeps 10% below.
 */
export const SERVICE_RATE_LIMIT: RateLimit = { perSecond: 27, burst: 9 };

export class TokenBucket {
	private tokens: number;
	private updatedAt: number;
	/** Callers queue here so that tokens go out in call order. */
	private queue: Promise<void> = Promise.resolve();

	constructor(
		private readonly limit: RateLimit,
		private readonly timing: Timing,
	) {
		this.tokens = limit.burst;
		this.updatedAt = timing.now();
	}

	/** Resolves when one request may be sent. */
	take(): Promise<void> {
		const turn = this.queue.then(() => this.takeOne());
		this.queue = turn.catch(() => undefined);
		return turn;
	}

	private async takeOne(): Promise<void> {
		for (;;) {
			const now = this.timing.now();
			this.tokens = Math.min(this.limit.burst, this.tokens + ((now - this.updatedAt) / 1000) * this.limit.perSecond);
			this.updatedAt = now;
			if (this.tokens >= 1) {
				this.tokens -= 1;
				return;
			}
			await this.timing.sleep(Math.ceil(((1 - this.tokens) / this.limit.perSecond) * 1000));
		}
	}
}
