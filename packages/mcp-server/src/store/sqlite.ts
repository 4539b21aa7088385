/**
 * The embedded store: one SQLite file through Node's built-in `node:sqlite` (Node 22.13 or later; no native
 * package to build). One table of records by kind and key with an expiry; `take` is a DELETE … RETURNING, atomic
 * even when two processes share the file (WAL, a busy timeout).
 */
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

import type { DatabaseSync } from 'node:sqlite';

import type { GrantStore, RecordKind } from './store';

/** Node's SQLite module, whose first load prints an experimental-feature warning on a log that is ours. */
async function loadSqlite(): Promise<typeof import('node:sqlite')> {
	const emitWarning = process.emitWarning;
	process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
		if (/SQLite is an experimental feature/.test(String(warning))) return;
		return (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
	}) as typeof process.emitWarning;
	try {
		return await import('node:sqlite');
	} catch {
		throw new Error(`The SQLite store needs Node.js 22.13 or later (this is ${process.version}); or use a redis:// store`);
	} finally {
		process.emitWarning = emitWarning;
	}
}

const now = () => Math.floor(Date.now() / 1000);

/** Expired records are deleted when read and, at most once a minute, all at once. */
const PURGE_EVERY_SECONDS = 60;

export class SqliteStore implements GrantStore {
	private readonly db: DatabaseSync;
	private lastPurge = 0;
	readonly description: string;

	/** The store in `file`, made with its folder when missing (readable by its owner only). */
	static async open(file: string): Promise<SqliteStore> {
		return new SqliteStore(file, (await loadSqlite()).DatabaseSync);
	}

	private constructor(file: string, DatabaseSync: typeof import('node:sqlite').DatabaseSync) {
		if (file !== ':memory:') {
			mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
			// Made by us first, readable by its owner only (SQLite gives its journal files the same mode).
			closeSync(openSync(file, 'a', 0o600));
			chmodSync(file, 0o600);
		}
		this.db = new DatabaseSync(file);
		this.db.exec(`
			PRAGMA journal_mode = WAL;
			PRAGMA busy_timeout = 5000;
			CREATE TABLE IF NOT EXISTS records (
				kind TEXT NOT NULL,
				key TEXT NOT NULL,
				value TEXT NOT NULL,
				expires_at INTEGER NOT NULL,
				PRIMARY KEY (kind, key)
			) WITHOUT ROWID;
		`);
		this.description = `SQLite ${file}`;
	}

	private purge(): void {
		if (now() - this.lastPurge < PURGE_EVERY_SECONDS) return;
		this.lastPurge = now();
		this.db.prepare('DELETE FROM records WHERE expires_at <= ?').run(now());
	}

	async put(kind: RecordKind, key: string, value: unknown, ttlSeconds: number): Promise<void> {
		this.purge();
		this.db
			.prepare('INSERT OR REPLACE INTO records (kind, key, value, expires_at) VALUES (?, ?, ?, ?)')
			.run(kind, key, JSON.stringify(value), now() + Math.max(1, Math.ceil(ttlSeconds)));
	}

	async get<T>(kind: RecordKind, key: string): Promise<T | undefined> {
		const row = this.db.prepare('SELECT value FROM records WHERE kind = ? AND key = ? AND expires_at > ?').get(kind, key, now()) as
			{ value: string } | undefined;
		return row ? (JSON.parse(row.value) as T) : undefined;
	}

	async take<T>(kind: RecordKind, key: string): Promise<T | undefined> {
		const row = this.db.prepare('DELETE FROM records WHERE kind = ? AND key = ? RETURNING value, expires_at').get(kind, key) as
			{ value: string; expires_at: number } | undefined;
		return row && row.expires_at > now() ? (JSON.parse(row.value) as T) : undefined;
	}

	async delete(kind: RecordKind, key: string): Promise<void> {
		this.db.prepare('DELETE FROM records WHERE kind = ? AND key = ?').run(kind, key);
	}

	async close(): Promise<void> {
		if (this.db.isOpen) this.db.close();
	}
}
