import type { Random } from './random';

/** Token bucket per workspace: `ratePerSecond` refill, `burst` capacity. */
export class RateLimiter {
	private readonly buckets = new Map<string, { tokens: number; at: number }>();

	constructor(
		private readonly ratePerSecond: number,
		private readonly burst = 10,
	) {}

	/** Takes one token; returns 0 when allowed, else the seconds to wait (for Retry-After). */
	take(key: string, now = Date.now()): number {
		if (this.ratePerSecond <= 0) return 0;
		const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
		bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.ratePerSecond);
		bucket.at = now;
		this.buckets.set(key, bucket);
		if (bucket.tokens >= 1) {
			bucket.tokens -= 1;
			return 0;
		}
		return Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerSecond));
	}
}

/**
 * Injected faults. `drop-before` destroys the socket before the request takes effect, `drop-after` after it
 * took effect (the client cannot tell them apart: exactly the ambiguity a retrying client must handle).
 * `http-500-after` answers 500 after the request took effect; `slow` takes effect and answers `slowMs` late,
 * later than a client's time-out ("timed out but stored").
 */
export const FAULT_KINDS = ['http-500', 'http-502', 'http-429', 'drop-before', 'drop-after', 'http-500-after', 'slow'] as const;
export type Fault = (typeof FAULT_KINDS)[number];
/** What `--fault-rate` draws from unless `--fault-kinds` says otherwise. */
export const DEFAULT_FAULT_KINDS: readonly Fault[] = ['http-500', 'http-502', 'http-429', 'drop-before', 'drop-after'];

export function pickFault(rng: Random, rate: number, kinds: readonly Fault[] = DEFAULT_FAULT_KINDS): Fault | null {
	if (rate <= 0 || kinds.length === 0 || !rng.chance(rate)) return null;
	return rng.pick([...kinds]);
}
