/**
 * What an event node keeps across redeploys and restarts: its polling cursors and the messages it holds
 * for burst batching. One JSON file per node in `<userDir>/chat-messaging/`, written whole to a temporary
 * file and renamed over the old one, so a crash leaves either the old state or the new one.
 *
 * Why a file of its own and not the node's context: Node-RED's default context store is memory (gone at
 * a restart) and a file-backed store exists only if the user configured one in settings.js; a cursor that
 * silently resets would replay or skip messages. Well-known nodes that must survive restarts do the same
 * (node-red-contrib-cron-plus keeps its dynamic schedules in `<userDir>/cronplusdata`). Only without a
 * user dir (an embedded runtime or a test helper that sets none) is the state kept in memory, and the
 * node says so in a warning.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const STATE_FOLDER = 'chat-messaging';

/** State per node id when there is no user dir: lives as long as this Node-RED. */
const inMemory = new Map<string, string>();

export class NodeStateStore {
	readonly file: string | undefined;

	constructor(
		userDir: unknown,
		readonly nodeId: string,
	) {
		this.file =
			typeof userDir === 'string' && userDir.trim()
				? path.join(userDir, STATE_FOLDER, `event-${nodeId.replace(/[^A-Za-z0-9._-]/g, '_')}.json`)
				: undefined;
	}

	get persistent(): boolean {
		return this.file !== undefined;
	}

	/** The stored state; an absent or unreadable file is a fresh start. */
	load(): Record<string, unknown> {
		let text: string | undefined;
		if (this.file) {
			try {
				text = readFileSync(this.file, 'utf8');
			} catch {
				text = undefined;
			}
		} else text = inMemory.get(this.nodeId);
		if (!text) return {};
		try {
			const value: unknown = JSON.parse(text);
			return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
		} catch {
			return {};
		}
	}

	save(state: Record<string, unknown>): void {
		const text = JSON.stringify(state);
		if (!this.file) {
			inMemory.set(this.nodeId, text);
			return;
		}
		mkdirSync(path.dirname(this.file), { recursive: true });
		const temporary = `${this.file}.${process.pid}.tmp`;
		writeFileSync(temporary, text);
		renameSync(temporary, this.file);
	}

	/** The node was deleted: its state goes with it. */
	remove(): void {
		inMemory.delete(this.nodeId);
		if (this.file) rmSync(this.file, { force: true });
	}
}
