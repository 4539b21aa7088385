/**
 * The shared store for replicas: a Redis server (`redis://…`, `rediss://…` for TLS) through node-redis, the client
 * the Chat SDK's state adapter uses. node-redis is an optional peer dependency, loaded only for a redis:// store,
 * so a single process on SQLite installs nothing for it. Each record is one key with its expiry; `take` is GETDEL
 * (Redis 6.2 or later), atomic however many replicas ask at once.
 */
import type { TaskStore } from '../calls/taskStore';
import { RedisTaskStore } from './redisTasks';
import type { SecretBox } from './secretBox';
import { loadRedis, type RedisLike } from './redisClient';
import type { GrantStore, RecordKind } from './store';

/** The store's address as a log may show it: without user or password. */
export function shownRedisUrl(url: string): string {
	try {
		const parsed = new URL(url);
		parsed.username = '';
		parsed.password = '';
		return parsed.href;
	} catch {
		return '(the configured redis URL)';
	}
}

export class RedisStore implements GrantStore {
	readonly description: string;
	private tasks: RedisTaskStore | undefined;

	private constructor(
		private readonly client: RedisLike,
		private readonly prefix: string,
		url: string,
	) {
		this.description = `Redis ${shownRedisUrl(url)}`;
	}

	/** Connected, or an error naming the address (never its password). */
	static async open(url: string, options: { prefix?: string; onError?: (error: Error) => void } = {}): Promise<RedisStore> {
		const client = (await loadRedis()).createClient({ url });
		// node-redis reconnects by itself; an error event without a listener would end the process.
		client.on('error', (error) => options.onError?.(error));
		try {
			await client.connect();
		} catch (error) {
			throw new Error(`The Redis store at ${shownRedisUrl(url)} cannot be reached: ${(error as Error).message}`);
		}
		return new RedisStore(client, options.prefix ?? 'chat-messaging-mcp:', url);
	}

	private key(kind: RecordKind, key: string): string {
		return `${this.prefix}${kind}:${key}`;
	}

	async put(kind: RecordKind, key: string, value: unknown, ttlSeconds: number): Promise<void> {
		await this.client.set(this.key(kind, key), JSON.stringify(value), { EX: Math.max(1, Math.ceil(ttlSeconds)) });
	}

	async get<T>(kind: RecordKind, key: string): Promise<T | undefined> {
		const text = await this.client.get(this.key(kind, key));
		return text === null ? undefined : (JSON.parse(text) as T);
	}

	async take<T>(kind: RecordKind, key: string): Promise<T | undefined> {
		const text = await this.client.getDel(this.key(kind, key));
		return text === null ? undefined : (JSON.parse(text) as T);
	}

	async delete(kind: RecordKind, key: string): Promise<void> {
		await this.client.del(this.key(kind, key));
	}

	/** The tasks of long calls on the same server, shared by the replicas as the grants are (redisTasks.ts). */
	async taskStore(options: {
		secrets: SecretBox;
		onError?: (error: Error) => void;
		heartbeatMs?: number;
		leaseMs?: number;
	}): Promise<TaskStore> {
		this.tasks ??= await RedisTaskStore.open(this.client, { prefix: this.prefix, ...options });
		return this.tasks;
	}

	private closing: Promise<void> | undefined;

	/** Closed once, however often asked (a stopping process and its store's owner may both ask). */
	close(): Promise<void> {
		this.closing ??= (async () => {
			await this.tasks?.close();
			await (this.client.close ?? this.client.quit)?.call(this.client);
		})();
		return this.closing;
	}
}
