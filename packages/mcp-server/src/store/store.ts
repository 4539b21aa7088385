/**
 * Where the OAuth server keeps what the service cannot hold: registered clients, consents in progress, codes,
 * grants and their tokens. Every record has a time to live and is read by its key only, so the same few
 * operations serve an embedded SQLite file (one process) and a Redis server (replicas behind one URL).
 * `take` reads and deletes in one step, atomically across processes: a code or a refresh token is used once,
 * whichever replica sees it first.
 */

/** What the records are: each kind is its own key space. */
export type RecordKind = 'client' | 'consent' | 'code' | 'usedCode' | 'grant' | 'access' | 'refresh' | 'usedRefresh';

export interface GrantStore {
	/** Keeps `value` under `key` for `ttlSeconds`, replacing what was there. */
	put(kind: RecordKind, key: string, value: unknown, ttlSeconds: number): Promise<void>;
	/** The value, or undefined when there is none or it has expired. */
	get<T>(kind: RecordKind, key: string): Promise<T | undefined>;
	/** The value, deleted in the same step: of two concurrent takes, one gets it and the other undefined. */
	take<T>(kind: RecordKind, key: string): Promise<T | undefined>;
	delete(kind: RecordKind, key: string): Promise<void>;
	close(): Promise<void>;
	/** What the log may say about the store: its kind and where, never a password. */
	readonly description: string;
}
