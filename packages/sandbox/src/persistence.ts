import { closeSync, fsyncSync, openSync, readFileSync, renameSync, unlinkSync, writeSync, existsSync } from 'fs';
import { dirname, basename, join } from 'path';
import type { WorkspaceData } from './model';

/** What the state file holds: every workspace with all its records (file bytes included, base64). */
export interface PersistedState {
	format: 'chat-messaging-sandbox-state';
	version: 1;
	seed: number;
	savedAt: string;
	workspaces: WorkspaceData[];
}

export function loadState(path: string): PersistedState | null {
	if (!existsSync(path)) return null;
	const parsed = JSON.parse(readFileSync(path, 'utf8')) as PersistedState;
	if (parsed.format !== 'chat-messaging-sandbox-state' || parsed.version !== 1) {
		throw new Error(`${path} is not a sandbox state file (version 1)`);
	}
	return parsed;
}

/**
 * Atomic write: the new content goes to a temporary file in the same directory, is fsynced, then renamed over
 * the old file. A crash leaves either the old or the new file, never a half-written one.
 */
export function saveStateAtomically(path: string, state: PersistedState): void {
	const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
	const fd = openSync(temp, 'w', 0o600);
	try {
		writeSync(fd, JSON.stringify(state));
		fsyncSync(fd);
	} finally {
		closeSync(fd);
	}
	try {
		renameSync(temp, path);
	} catch (error) {
		try {
			unlinkSync(temp);
		} catch {
			// the temporary file is already gone
		}
		throw error;
	}
	// Make the rename itself durable where the platform allows fsync on a directory.
	try {
		const dirFd = openSync(dirname(path), 'r');
		try {
			fsyncSync(dirFd);
		} finally {
			closeSync(dirFd);
		}
	} catch {
		// not supported (e.g. Windows): the rename is still atomic
	}
}
