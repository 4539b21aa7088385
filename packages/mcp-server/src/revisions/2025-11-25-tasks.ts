/**
 * Tasks on 2025-11-25: the process's task store (calls/taskStore.ts) as the v1 SDK's Server reads it, which answers
 * tasks/get, tasks/result, tasks/list and tasks/cancel itself and creates a call's task through the request's store.
 * A task is bound to the request's session when it has one, else to the caller (calls/taskOwner.ts).
 */
import type { TaskStore as SdkTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';

import type { ToolResult } from '../calls/results';
import { TASK_POLL_INTERVAL_MS } from '../calls/tasks';
import { sessionOwner } from '../calls/taskOwner';
import type { TaskStore } from '../calls/taskStore';

export function sdkTaskStore(store: TaskStore, owner: string): SdkTaskStore {
	const who = (sessionId: string | undefined) => (sessionId !== undefined ? sessionOwner(sessionId) : owner);
	return {
		createTask: (params, _requestId, _request, sessionId) =>
			store.create(who(sessionId), { ttl: params.ttl ?? null, pollInterval: params.pollInterval ?? TASK_POLL_INTERVAL_MS }),
		getTask: async (taskId, sessionId) => (await store.get(who(sessionId), taskId)) ?? null,
		// What the SDK stores is what the call answered: a tool result (calls/tasks.ts).
		storeTaskResult: (taskId, status, result, sessionId) => store.finish(who(sessionId), taskId, status, result as ToolResult),
		getTaskResult: (taskId, sessionId) => store.result(who(sessionId), taskId),
		updateTaskStatus: (taskId, status, message, sessionId) => store.setStatus(who(sessionId), taskId, status, message),
		listTasks: (cursor, sessionId) => store.list(who(sessionId), cursor),
	};
}
