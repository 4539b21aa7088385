/**
 * A bounded memory of the events a receiver handed on (their `eventKey`s), so that a redelivery is
 * recognised: kept in memory, and snapshotted into a platform's persisted state for restarts.
 */

/**
 * How long a delivered event is remembered. The service retries a failed delivery twice, within
 * minutes; 15 minutes covers that horizon with room, at any rate of events.
 */
export const SEEN_EVENTS_TTL_MS = 15 * 60_000;

/** A bound on memory whatever the rate (about 10 MB of keys at most); reached only above ~100 events/s. */
export const SEEN_EVENTS_LIMIT = 100_000;

/** Keys kept in a platform's persisted state (n8n static data) for restarts: the newest ones. */
export const SEEN_EVENTS_PERSISTED = 1000;

/** One remembered key and when it was first seen, as persisted: `[key, epoch ms]`. */
export type SeenEntry = [string, number];

/**
 * Event keys seen in the last `ttlMs` (bounded by `limit`), oldest first. `seed` restores a snapshot:
 * `[key, seenAt]` pairs, or bare keys (an older snapshot), taken as seen now.
 */
export class SeenEvents {
	private readonly keys = new Map<string, number>();
	private readonly ttlMs: number;
	private readonly limit: number;
	private readonly now: () => number;

	constructor(options: { ttlMs?: number; limit?: number; now?: () => number; seed?: readonly unknown[] } = {}) {
		this.ttlMs = options.ttlMs ?? SEEN_EVENTS_TTL_MS;
		this.limit = Math.max(1, options.limit ?? SEEN_EVENTS_LIMIT);
		this.now = options.now ?? (() => Date.now());
		const now = this.now();
		for (const entry of options.seed ?? []) {
			if (typeof entry === 'string') this.keys.set(entry, now);
			else if (Array.isArray(entry) && typeof entry[0] === 'string' && typeof entry[1] === 'number') this.keys.set(entry[0], entry[1]);
		}
		this.forgetOld(now);
	}

	/** Records the key; false when it was seen within the time kept (a redelivery). */
	remember(key: string): boolean {
		const now = this.now();
		this.forgetOld(now);
		if (this.keys.has(key)) return false;
		this.keys.set(key, now);
		if (this.keys.size > this.limit) this.keys.delete(this.keys.keys().next().value as string);
		return true;
	}

	/**
	 * Takes in keys another process recorded (a snapshot read back from shared storage, such as n8n's
	 * static data in queue mode, where each webhook process has its own memory). Keys already known or
	 * past the time kept are skipped; returns how many were new. New keys go to the back even when
	 * older than some already there: such a key is then forgotten a little later than its time, never
	 * earlier, so a redelivery is still recognised.
	 */
	merge(entries: readonly unknown[]): number {
		const now = this.now();
		let added = 0;
		for (const entry of entries) {
			if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'number') continue;
			const [key, seenAt] = entry as SeenEntry;
			if (this.keys.has(key) || now - seenAt >= this.ttlMs) continue;
			this.keys.set(key, seenAt);
			added++;
		}
		while (this.keys.size > this.limit) this.keys.delete(this.keys.keys().next().value as string);
		return added;
	}

	/** The newest `max` entries, oldest first: what the constructor's `seed` takes back. */
	snapshot(max = SEEN_EVENTS_PERSISTED): SeenEntry[] {
		return [...this.keys].slice(-max);
	}

	get size(): number {
		return this.keys.size;
	}

	/** Keys are kept in the order they were first seen, so the expired ones are at the front. */
	private forgetOld(now: number): void {
		for (const [key, seenAt] of this.keys) {
			if (now - seenAt < this.ttlMs) break;
			this.keys.delete(key);
		}
	}
}
