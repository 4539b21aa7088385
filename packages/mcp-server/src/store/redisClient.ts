/**
 * node-redis as the Redis stores use it (grants, redis.ts; tasks, redisTasks.ts): the few commands they call, and the
 * package itself, an optional peer dependency loaded only for a redis:// store.
 */

/** What of node-redis's client the stores use. */
export interface RedisLike {
	connect(): Promise<unknown>;
	set(key: string, value: string, options: { EX: number }): Promise<unknown>;
	get(key: string): Promise<string | null>;
	getDel(key: string): Promise<string | null>;
	del(key: string): Promise<unknown>;
	eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
	zRange(key: string, start: number, stop: number): Promise<string[]>;
	zRem(key: string, members: string[]): Promise<unknown>;
	duplicate(): RedisLike;
	subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
	unsubscribe(channel: string): Promise<unknown>;
	close?(): Promise<unknown>;
	quit?(): Promise<unknown>;
	on(event: 'error', listener: (error: Error) => void): unknown;
}

export async function loadRedis(): Promise<{ createClient(options: { url: string }): RedisLike }> {
	try {
		return (await import('redis')) as unknown as { createClient(options: { url: string }): RedisLike };
	} catch {
		throw new Error('A redis:// store needs the redis package beside this one: npm install redis');
	}
}
