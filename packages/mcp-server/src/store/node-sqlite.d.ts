/**
 * The part of Node's built-in `node:sqlite` (Node 22.13 and later) the store uses: the workspace's @types/node is
 * Node 20's, which has no such module, so its shape is declared here.
 */
declare module 'node:sqlite' {
	type SqlValue = null | number | bigint | string | Uint8Array;
	interface StatementSync {
		run(...parameters: SqlValue[]): { changes: number | bigint; lastInsertRowid: number | bigint };
		get(...parameters: SqlValue[]): unknown;
		all(...parameters: SqlValue[]): unknown[];
	}
	class DatabaseSync {
		constructor(path: string, options?: { open?: boolean; timeout?: number });
		readonly isOpen: boolean;
		exec(sql: string): void;
		prepare(sql: string): StatementSync;
		close(): void;
	}
}
