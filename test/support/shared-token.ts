/**
 * Several processes on one token, on virtual time: a clock whose sleepers wake in order of their deadlines, and the
 * service's rate limit in front of them (the sandbox's own limiter: 30 requests a second, burst 10, Retry-After in
 * whole seconds), answering after its latency. Each "process" is an executor with a bucket of its own, as in separate
 * processes. For the pacing's rules across processes (convergence, fairness, refusals), which real time makes too
 * slow and too noisy to test; `npm run bench` measures the same over real HTTP.
 */
import { Executor, SERVICE_RATE_LIMIT, sharedBucket, type RateLimit, type Timing, type Transport } from '@chat-messaging/core';
import { RateLimiter } from '../../packages/sandbox/src/traffic';

interface Sleeper {
	at: number;
	order: number;
	wake: () => void;
}

/** Virtual time for many sleepers at once: `run` wakes them in deadline order until the work is done. */
export class VirtualClock {
	now = 1_700_000_000_000;
	private sleepers: Sleeper[] = [];
	private order = 0;

	/** A Timing on this clock with its own seeded randomness (one per process). */
	timing(seed: number): Timing {
		let state = seed >>> 0 || 1;
		return {
			now: () => this.now,
			sleep: (ms) => this.sleep(ms),
			// xorshift32: the same run every time.
			random: () => {
				state ^= state << 13;
				state ^= state >>> 17;
				state ^= state << 5;
				return (state >>> 0) / 4_294_967_296;
			},
		};
	}

	sleep(ms: number): Promise<void> {
		return new Promise((wake) => {
			this.sleepers.push({ at: this.now + Math.max(0, ms), order: this.order++, wake });
		});
	}

	/** Advances time sleeper by sleeper until `work` settles; its result. */
	async run<T>(work: Promise<T>): Promise<T> {
		let settled = false;
		const done = work.finally(() => {
			settled = true;
		});
		for (;;) {
			// Lets every promise that can move on move on before time advances.
			await new Promise<void>((resolve) => setImmediate(resolve));
			if (settled) return done;
			if (!this.sleepers.length) throw new Error('virtual clock: nothing left to wake, and the work is not done');
			let next = 0;
			for (let index = 1; index < this.sleepers.length; index++) {
				const a = this.sleepers[index]!;
				const b = this.sleepers[next]!;
				if (a.at < b.at || (a.at === b.at && a.order < b.order)) next = index;
			}
			const [sleeper] = this.sleepers.splice(next, 1);
			this.now = Math.max(this.now, sleeper!.at);
			sleeper!.wake();
		}
	}
}

export interface ServiceRecord {
	process: number;
	at: number;
	refused: boolean;
}

/** The service in front of the processes: the rate limit per token, then the latency, then a stored message. */
export class LimitedService {
	readonly records: ServiceRecord[] = [];
	readonly stored = new Map<string, number>();
	private readonly limiter: RateLimiter;

	constructor(
		private readonly clock: VirtualClock,
		private readonly options: {
			perSecond?: number;
			burst?: number;
			latencyMs?: number;
			jitterMs?: number;
			seed?: number;
			/** The chats a list walks: pages of `pageSize` (100 of 50 unless told). */
			pages?: number;
			pageSize?: number;
		} = {},
	) {
		this.limiter = new RateLimiter(options.perSecond ?? 30, options.burst ?? 10);
		this.random = clock.timing(options.seed ?? 99).random;
	}

	private readonly random: () => number;

	transport(process: number): Transport {
		return async (request) => {
			// The way there: sockets, scheduling, a busy event loop on either side.
			const jitter = this.options.jitterMs ?? 3;
			if (jitter > 0) await this.clock.sleep(this.random() * jitter);
			const at = this.clock.now;
			const wait = this.limiter.take('token', at);
			this.records.push({ process, at, refused: wait > 0 });
			if (wait > 0) {
				return {
					status: 429,
					headers: { 'content-type': 'application/json', 'retry-after': String(wait) },
					body: { status: 'error', message: 'Rate limit exceeded, retry later', error_code: 'rate_limit_exceeded' },
				};
			}
			await this.clock.sleep(this.options.latencyMs ?? 150);
			if (request.method === 'GET') {
				// A list of chats, `pageSize` to a page: the walk a Return All makes.
				const page = Number(new URL(request.url).searchParams.get('page') ?? 1);
				const { pages = 100, pageSize = 50 } = this.options;
				const chats = page <= pages ? Array.from({ length: pageSize }, (_, index) => ({ id: (page - 1) * pageSize + index + 1 })) : [];
				return {
					status: 200,
					headers: { 'content-type': 'application/json' },
					body: { status: 'ok', data: { chats, has_more_pages: page < pages } },
				};
			}
			const text = String((JSON.parse(String(request.body ?? '{}')) as { text?: string }).text ?? '');
			this.stored.set(text, (this.stored.get(text) ?? 0) + 1);
			return {
				status: 200,
				headers: { 'content-type': 'application/json' },
				body: { status: 'ok', data: { message_uid: `m${this.records.length}` } },
			};
		};
	}

	/** Requests that reached the service, refused or not, in [from, to) of virtual time. */
	arrivals(from: number, to: number, process?: number): ServiceRecord[] {
		return this.records.filter((r) => r.at >= from && r.at < to && (process === undefined || r.process === process));
	}
}

let processes = 0;

/** One process on the token: its own executor and bucket, sending `count` messages `concurrency` at a time. */
export function sendingProcess(
	clock: VirtualClock,
	service: LimitedService,
	index: number,
	options: { rateLimit?: RateLimit; concurrency?: number; seed?: number } = {},
) {
	const timing = clock.timing((options.seed ?? 0) * 7919 + index + 1);
	const rateLimit = options.rateLimit ?? SERVICE_RATE_LIMIT;
	// A key of its own: a process of its own, though the token is the same.
	const key = `simulated process ${++processes}`;
	const bucket = sharedBucket(key, rateLimit, timing);
	const executor = new Executor({
		baseUrl: 'https://api.example.com',
		token: 'shared-token',
		transport: service.transport(index),
		timing,
		rateLimit,
		pacingKey: key,
	});
	const concurrency = options.concurrency ?? 8;
	return {
		executor,
		bucket: () => bucket,
		/** Lists every chat (Return All), page by page through the executor's window; resolves with how many. */
		async list(): Promise<number> {
			return ((await executor.run('chat:getAll', {})) as unknown[]).length;
		},
		/** Sends `count` messages into chat 1, texts `<tag> <n>`; resolves when all are answered. */
		async send(count: number, tag = `p${index}`, onAnswer?: () => void): Promise<void> {
			let next = 0;
			await Promise.all(
				Array.from({ length: concurrency }, async () => {
					while (next < count) {
						const item = next++;
						await executor.run('message:sendToChat', { chat_id: 1, text: `${tag} ${item}` });
						onAnswer?.();
					}
				}),
			);
		},
	};
}
