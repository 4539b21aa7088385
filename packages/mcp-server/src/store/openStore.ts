/**
 * The store CHAT_MESSAGING_MCP_STORE names, and the key that seals its secrets: a file path is SQLite (the default,
 * a file in the user's data folder), `redis://…` or `rediss://…` is Redis. Beside a SQLite file the key may be
 * generated; with Redis every replica must be given the same key, so it is required.
 */
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

import type { TaskStore } from '../calls/taskStore';
import { RedisStore } from './redis';
import { keyFromFile, keysFromText, SecretBox } from './secretBox';
import { SqliteStore } from './sqlite';
import type { GrantStore } from './store';

/** The user's data folder ($XDG_DATA_HOME, else ~/.local/share), where the default store lives. */
export function defaultStorePath(env: NodeJS.ProcessEnv = process.env): string {
	const data = env.XDG_DATA_HOME?.trim() || join(homedir(), '.local', 'share');
	return join(data, 'chat-messaging-mcp', 'grants.sqlite');
}

export const isRedisUrl = (location: string) => /^rediss?:\/\//i.test(location);

/** The key file beside a SQLite store. */
export const keyFileBeside = (storePath: string) => join(dirname(storePath), 'secret.key');

export interface OpenedStore {
	store: GrantStore;
	secrets: SecretBox;
	/**
	 * With Redis, the tasks of long calls on the same server, so that any replica reads and cancels them; with SQLite
	 * none (one process keeps its tasks in memory, where its work runs).
	 */
	tasks?: TaskStore;
}

export async function openStore(
	location: string,
	secretKey: string | undefined,
	names: { store: string; secretKey: string },
	onRedisError: (error: Error) => void,
): Promise<OpenedStore> {
	if (isRedisUrl(location)) {
		if (!secretKey) throw new Error(`A Redis store needs ${names.secretKey}: every replica must seal and open secrets with the same key`);
		const secrets = new SecretBox(keysFromText(secretKey, names.secretKey));
		const store = await RedisStore.open(location, { onError: onRedisError });
		try {
			return { store, secrets, tasks: await store.taskStore({ secrets, onError: onRedisError }) };
		} catch (error) {
			await store.close();
			throw error;
		}
	}
	const path = resolve(location);
	const keys = secretKey ? keysFromText(secretKey, names.secretKey) : [keyFromFile(keyFileBeside(path))];
	return { store: await SqliteStore.open(path), secrets: new SecretBox(keys) };
}
