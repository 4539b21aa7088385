/**
 * Client-side pacing under the service's request rate (about 30 per second with a burst of 10), so
 * that concurrent pages and items do not earn 429s. A token bucket on injected time, shared by every
 * executor of one client in a process: the service counts per token, not per n8n execution or
 * Node-RED config node.
 *
 * Other processes may use the same token (n8n's queue-mode workers, a second Node-RED, an MCP server),
 * and nothing tells one process about the others but the service's refusals. So the bucket's rate
 * adapts: a refusal (429 or `rate_limit_exceeded`) lowers it, and clean answers raise it again toward
 * the ceiling, on a curve that stays near the rate that was refused before probing beyond it (the more slowly,
 * the more processes its share says there are). A process starts gently (a small burst, a part of the rate, both
 * growing with each clean answer), so that processes starting together do not meet with full bursts before any of
 * them has heard from the service; from its first second on, a process that is never refused paces at the ceiling,
 * as before. A process that has been quiet for a while starts gently again: what it learned of the others is stale
 * by then, and long-running processes (queue-mode workers) given work at the same moment meet as new ones do.
 */
import { createHash } from 'crypto';
import type { Timing } from '../catalogue/types';

export interface RateLimit {
	/** The most this process sends per second: the pace of a process alone. */
	perSecond: number;
	burst: number;
	/**
	 * Extra wait before refilling a bucket that was full: the service counts a burst from the arrival of its first
	 * request, and when that one arrived a few ms late (a new connection) the first request after the burst would be
	 * early by the service's clock. Paid once per burst, not per request.
	 */
	burstMarginMs?: number;
	/** How the rate gives way to other processes on the same token; `false` keeps it at `perSecond` (as before). */
	adaptive?: AdaptiveRate | false;
}

/**
 * The rate after refusals. Each refusal multiplies the rate by `decrease`. From the last refusal on, the rate climbs
 * back along a cubic in the time since: quickly at first, flat around `settle` × the rate that was refused (the share
 * the others left, less a margin as a process alone keeps below the service's limit), then faster and faster beyond
 * it, to find out whether the others have gone. Within [`minPerSecond`, the limit's `perSecond`].
 */
export interface AdaptiveRate {
	/** Factor per refusal (0–1). */
	decrease: number;
	/** Where the curve flattens, as a fraction of the rate that was refused (0–1, above `decrease`). */
	settle: number;
	/** Requests per second per second³ on the way up to the flat part: its length is ∛(rise / approach). */
	approach: number;
	/** Requests per second per second³ beyond the flat part. */
	probe: number;
	minPerSecond: number;
	/**
	 * The start, before the service has answered: the burst a process starts with, growing by one with each clean
	 * answer up to the limit's burst; and its rate, `startShare` × the limit's, growing by `startGrowth` requests a
	 * second with each clean answer (so it doubles in about 0.7 s of clean answers) until it reaches the limit or a
	 * refusal ends the start. Four processes starting together fit the service's burst and rate (4 × 2 of 10, 4 × 7 of
	 * 30 a second).
	 */
	startBurst: number;
	startShare: number;
	startGrowth: number;
	/**
	 * The cut of the refusal that ends the start (0–1, at most `decrease`; the curve then climbs as after a refusal of
	 * `startCut` / `decrease` × the rate reached). The start grows faster than a probe and, while the service's burst
	 * hides the others, overshoots their share further: one deep cut instead of a refusal for every 15 % too fast.
	 */
	startCut: number;
	/**
	 * Quiet this long (nothing sent, nothing heard), a process starts again as a new one does: by then the curve would
	 * have climbed back to the full rate from any refusal (about 14 s at most), what it learned says nothing of who
	 * uses the token now, and a full burst at the full rate is what meets the others' starts (queue-mode workers handed
	 * work at the same moment). Checked when the next request asks to go, on the injected clock: no timer runs.
	 */
	restartAfterMs: number;
	/**
	 * How much the probe slows with the number of processes sharing the token, as a power of it (0: not at all). A
	 * process's own share tells roughly how many there are (the limit's rate over the rate refused), and n cubics
	 * probing at once pass the service's rate n times as often as one: each probes 1/nᵏ as steeply.
	 */
	probeCrowding?: number;
	/** Growth per clean answer of a start after a quiet spell, once this process has been refused (default: startGrowth). */
	restartGrowth?: number;
}

/**
 * The service allows about 30 per second with a burst of 10. Pacing exactly at 30 earns an occasional 429 from
 * arrival jitter (measured against the sandbox); 28 leaves the service's bucket 2 tokens a second to absorb it
 * (0 × 429 in `npm run bench`), while 27 with a burst of 9 cost a tenth of the floor on every long job.
 * The adaptive part was tuned by measurement (docs/performance.md, "Processes sharing a token").
 */
export const SERVICE_RATE_LIMIT: RateLimit = {
	perSecond: 28,
	burst: 10,
	burstMarginMs: 25,
	adaptive: {
		decrease: 0.85,
		settle: 0.93,
		approach: 0.005,
		probe: 0.1,
		minPerSecond: 1,
		startBurst: 2,
		startShare: 0.25,
		startGrowth: 1,
		startCut: 0.6,
		restartAfterMs: 15_000,
		probeCrowding: 3,
		restartGrowth: 0.5,
	},
};

export class TokenBucket {
	private tokens: number;
	private updatedAt: number;
	private pausedUntil = 0;
	/** Callers queue here so that tokens go out in call order. */
	private queue: Promise<void> = Promise.resolve();
	/** The pace now: the limit's, or less after refusals. */
	private rate: number;
	/** The last refusal, and the rate it refused: the origin of the climb back. */
	private refusedAt = Number.NEGATIVE_INFINITY;
	private refusedRate: number;
	/** The burst now: the limit's, or less at the start. */
	private burst: number;
	/** Starting: the rate grows with each clean answer, until the limit or the first refusal. */
	private starting = false;
	/** The last request granted or answer heard: quiet since then for `restartAfterMs`, the process starts again. */
	private activeAt: number;
	/** Refused once in this process's life: the token is shared, and a start after a quiet spell grows by `restartGrowth`. */
	private shared = false;
	private growth = 0;

	constructor(
		private readonly limit: RateLimit,
		private readonly timing: Timing,
	) {
		this.rate = limit.perSecond;
		this.refusedRate = limit.perSecond;
		this.burst = limit.burst;
		this.start();
		this.tokens = this.burst;
		this.updatedAt = timing.now();
		this.activeAt = this.updatedAt;
	}

	/** Begins as a process that has not heard from the service yet: the start's burst and rate, nothing refused. */
	private start(): void {
		const adaptive = this.limit.adaptive;
		if (!adaptive) return;
		this.burst = Math.min(this.limit.burst, Math.max(1, adaptive.startBurst));
		this.rate = Math.min(this.limit.perSecond, Math.max(adaptive.minPerSecond, this.limit.perSecond * adaptive.startShare));
		this.starting = this.rate < this.limit.perSecond;
		this.growth = this.shared ? (adaptive.restartGrowth ?? adaptive.startGrowth) : adaptive.startGrowth;
		this.refusedAt = Number.NEGATIVE_INFINITY;
		this.refusedRate = this.limit.perSecond;
	}

	/** Requests per second this bucket grants now. */
	get perSecond(): number {
		return this.rate;
	}

	/**
	 * Nobody sharing this bucket sends before `ms` from now: after a refusal that slowing down cannot answer (see
	 * `refused`), every executor of the client waits out the Retry-After, not only the one that was refused.
	 */
	pause(ms: number): void {
		const until = this.timing.now() + ms;
		if (until > this.pausedUntil) this.pausedUntil = until;
		this.tokens = Math.min(this.tokens, 0);
	}

	/**
	 * The service refused a request for its rate: someone else uses the token too. Every refusal lowers the rate, so
	 * that several at once (two bursts meeting) lower it as far as the crowding is deep. False when the rate could not
	 * go lower (fixed, or at its minimum): then only a pause answers the refusal.
	 */
	refused(): boolean {
		const adaptive = this.limit.adaptive;
		if (!adaptive) return false;
		const now = this.timing.now();
		this.activeAt = now;
		this.shared = true;
		// The rate that was too much. A refusal ends the start, whose rate grew with every answer while the service's
		// burst still hid the others: it overshot, and the rate it takes as refused is a part of the rate reached.
		let tooMuch = this.rate;
		if (this.starting) {
			this.starting = false;
			tooMuch = (this.rate * adaptive.startCut) / adaptive.decrease;
		} else this.climb();
		if (this.rate <= adaptive.minPerSecond) return false;
		this.refusedRate = tooMuch;
		this.rate = Math.max(adaptive.minPerSecond, tooMuch * adaptive.decrease);
		this.refusedAt = now;
		return true;
	}

	/**
	 * The service answered (anything but a refusal for its rate): the burst grows back to the limit's, and the rate
	 * grows by the start's step or climbs back along its curve.
	 */
	answered(): void {
		const adaptive = this.limit.adaptive;
		if (!adaptive) return;
		this.activeAt = this.timing.now();
		this.burst = Math.min(this.limit.burst, this.burst + 1);
		if (this.starting) {
			this.rate = Math.min(this.limit.perSecond, this.rate + this.growth);
			this.starting = this.rate < this.limit.perSecond;
			return;
		}
		this.climb();
	}

	private climb(): void {
		const adaptive = this.limit.adaptive;
		if (!adaptive || this.starting || this.rate >= this.limit.perSecond) return;
		const seconds = (this.timing.now() - this.refusedAt) / 1000;
		// Refused at its full pace, which keeps below the service's limit already, a process may just have been unlucky
		// (its requests bunched up on the way, on a busy machine): it returns to that pace. Refused below it, the others
		// are there for sure, and it settles below the rate refused.
		const flat = this.refusedRate >= this.limit.perSecond ? this.limit.perSecond : this.refusedRate * adaptive.settle;
		const flatAt = Math.cbrt(Math.max(0, flat - this.refusedRate * adaptive.decrease) / adaptive.approach);
		const crowd = Math.max(1, this.limit.perSecond / this.refusedRate);
		const probe = adaptive.probe / crowd ** (adaptive.probeCrowding ?? 0);
		const curve = seconds < flatAt ? flat - adaptive.approach * (flatAt - seconds) ** 3 : flat + probe * (seconds - flatAt) ** 3;
		this.rate = Math.min(this.limit.perSecond, Math.max(this.rate, curve));
	}

	/** Resolves when one request may be sent. */
	take(): Promise<void> {
		const turn = this.queue.then(() => this.takeOne());
		this.queue = turn.catch(() => undefined);
		return turn;
	}

	private async takeOne(): Promise<void> {
		const adaptive = this.limit.adaptive;
		// The tokens saved up while quiet: the refill below caps them at the start's burst.
		if (adaptive && this.timing.now() - this.activeAt >= adaptive.restartAfterMs) this.start();
		for (;;) {
			const paused = this.pausedUntil - this.timing.now();
			if (paused > 0) {
				await this.timing.sleep(paused);
				continue;
			}
			const now = this.timing.now();
			const rate = this.rate;
			// updatedAt lies ahead while a burst's margin runs (see burstMarginMs): no refill until then.
			this.tokens = Math.min(this.burst, this.tokens + (Math.max(0, now - this.updatedAt) / 1000) * rate);
			this.updatedAt = Math.max(now, this.updatedAt);
			if (this.tokens >= 1) {
				const wasFull = this.tokens >= this.burst;
				this.tokens -= 1;
				if (wasFull && this.limit.burstMarginMs) this.updatedAt = now + this.limit.burstMarginMs;
				this.activeAt = now;
				return;
			}
			const wait = Math.ceil(((1 - this.tokens) / rate) * 1000) + (this.updatedAt - now);
			await this.timing.sleep(wait);
			// Woken later than one request's interval, the process was busy (an MCP server taking in a thousand calls at
			// once): requests granted before may only now be leaving, and the time overslept, credited, would send a
			// catch-up burst right behind them. Pace on from now as after a burst instead.
			const woken = this.timing.now();
			if (woken - (now + wait) > 1000 / rate) this.updatedAt = woken + (this.limit.burstMarginMs ?? 0);
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
