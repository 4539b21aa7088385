/**
 * Whose a task is. A task's id is random, but an id is no secret once logged or shown: a task belongs to the one
 * who started it and is "not found" for anyone else. With a session (2025-11-25 over HTTP) that is the session;
 * without one (a stateless 2025-11-25 POST, every 2026-07-28 request) it is the caller's secret (its Authorization
 * header, kept as a digest, never the secret itself), and without a secret (loopback with no client secret, where
 * any local process may call every tool anyway) the one anonymous caller. Over stdio it is the connection.
 */
import { createHash } from 'node:crypto';

import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';

/** The store as a server sees it (the v1 SDK's store interface; both revisions' servers read it) and a task kept in it. */
export type OwnedTasks = TaskStore;
export type StoredTask = NonNullable<Awaited<ReturnType<TaskStore['getTask']>>>;

/** The owner of the tasks a request without a session starts and reads. */
export function taskOwnerOf(authorization: string | null | undefined): string {
	if (!authorization) return 'caller:anonymous';
	return `caller:${createHash('sha256').update(authorization).digest('base64url')}`;
}

/** The owner over stdio: the one client at the other end of the pipe. */
export const STDIO_OWNER = 'stdio';

/**
 * The shared store as one request's server sees it: every task it creates or reads is bound to the session when
 * there is one, else to `owner` (the SDK's store treats a task as not found for another binding).
 */
export function ownedTasks(store: TaskStore, owner: string): OwnedTasks {
	const who = (sessionId: string | undefined) => (sessionId !== undefined ? `session:${sessionId}` : owner);
	return {
		createTask: (params, requestId, request, sessionId) => store.createTask(params, requestId, request, who(sessionId)),
		getTask: (taskId, sessionId) => store.getTask(taskId, who(sessionId)),
		storeTaskResult: (taskId, status, result, sessionId) => store.storeTaskResult(taskId, status, result, who(sessionId)),
		getTaskResult: (taskId, sessionId) => store.getTaskResult(taskId, who(sessionId)),
		updateTaskStatus: (taskId, status, message, sessionId) => store.updateTaskStatus(taskId, status, message, who(sessionId)),
		listTasks: (cursor, sessionId) => store.listTasks(cursor, who(sessionId)),
	};
}
