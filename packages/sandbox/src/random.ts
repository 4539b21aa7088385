import { createHash } from 'crypto';

/** Small seeded PRNG (mulberry32): the same seed always yields the same sequence. */
export class Random {
	private state: number;

	constructor(seed: number) {
		this.state = seed >>> 0;
	}

	next(): number {
		this.state = (this.state + 0x6d2b79f5) >>> 0;
		let t = this.state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	}

	int(min: number, maxInclusive: number): number {
		return min + Math.floor(this.next() * (maxInclusive - min + 1));
	}

	chance(probability: number): boolean {
		return this.next() < probability;
	}

	pick<T>(items: readonly T[]): T {
		return items[Math.floor(this.next() * items.length)] as T;
	}

	digits(count: number): string {
		let out = String(this.int(1, 9));
		while (out.length < count) out += String(this.int(0, 9));
		return out;
	}
}

/** 32-bit hash of a string, used to derive independent seeds (per workspace, per purpose). */
export function hashSeed(text: string): number {
	return createHash('sha256').update(text).digest().readUInt32BE(0);
}

/** Deterministic uppercase hex id, like the chat app's message ids. */
export function hexId(text: string, length: number): string {
	return createHash('sha256').update(text).digest('hex').slice(0, length).toUpperCase();
}
