/**
 * Tasks on 2026-07-28: the tasks extension (io.modelcontextprotocol/tasks, SEP-2663), which the v2 SDK leaves to
 * the server. The server decides: a client that declares the extension in a request's capabilities gets a task for
 * a call that can take long (a send with a wait, a list of more than one part), the task's fields flat in the
 * result (resultType "task"); tasks/get tells its status and, once done, inlines the tool's result (a tool error is
 * "completed" with isError; "failed" is for the server's own failures); tasks/cancel stops the work and answers an
 * empty ack. Kept in the same store as 2025-11-25's tasks, bound to the caller the same way (taskOwner.ts).
 */
import { randomUUID } from 'node:crypto';

import {
	CLIENT_CAPABILITIES_META_KEY,
	MissingRequiredClientCapabilityError,
	ProtocolError,
	ProtocolErrorCode,
	type Server,
	type ServerContext,
} from '@modelcontextprotocol/server';
import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { Task } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';

import { isComposite, isRecord } from '@chat-messaging/core';
import { runsAsTask } from './listing';
import { TASK_TTL_MS, type ToolTasks } from './tasks';
import { LIMIT_ARGUMENT, LIST_LIMIT, type CatalogueTool } from './tools';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const POLL_INTERVAL_MS = 1000;
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** Whether the request's client declared the tasks extension (its capabilities travel in each request's envelope). */
export function declaresTasks(ctx: ServerContext): boolean {
	const client = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY];
	return isRecord(client) && isRecord(client.extensions) && isRecord(client.extensions[TASKS_EXTENSION]);
}

/** Whether this call becomes a task: one that can take long, for a client that can follow a task. */
export function runsAsModernTask(tool: CatalogueTool, args: Record<string, unknown> | undefined, ctx: ServerContext): boolean {
	if (!runsAsTask(tool) || !declaresTasks(ctx)) return false;
	if (isComposite(tool.operation)) return true;
	const limit = args?.[LIMIT_ARGUMENT];
	return typeof limit === 'number' && limit > LIST_LIMIT.default;
}

/** A task as the extension spells it: milliseconds in the field names, nothing of the 2025 names. */
function wireTask(task: Task) {
	return {
		taskId: task.taskId,
		status: task.status,
		...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
		createdAt: task.createdAt,
		lastUpdatedAt: task.lastUpdatedAt,
		ttlMs: task.ttl,
		pollIntervalMs: task.pollInterval ?? POLL_INTERVAL_MS,
	};
}

/** Starts the work as a task and answers at once with the task (CreateTaskResult, flat). */
export async function startModernTask(
	store: TaskStore,
	tasks: ToolTasks,
	work: (signal: AbortSignal) => Promise<unknown>,
): Promise<Record<string, unknown>> {
	const task = await store.createTask({ ttl: TASK_TTL_MS, pollInterval: POLL_INTERVAL_MS }, randomUUID(), {
		method: 'tools/call',
		params: {},
	});
	const signal = tasks.track(task.taskId);
	void work(signal)
		.then(
			(result) => (signal.aborted ? undefined : store.storeTaskResult(task.taskId, 'completed', result as never)),
			(error: unknown) =>
				signal.aborted
					? undefined
					: store.storeTaskResult(task.taskId, 'failed', {
							error: { code: ProtocolErrorCode.InternalError, message: (error as Error).message },
						} as never),
		)
		.catch(() => undefined)
		.finally(() => tasks.done(task.taskId));
	return { resultType: 'task', ...wireTask(task) };
}

const TaskParams = z.object({ taskId: z.string() }).passthrough();

/** tasks/get, tasks/update and tasks/cancel, for clients that declared the extension; the others are told what is missing. */
export function registerModernTasks(server: Server, store: TaskStore): void {
	const find = async (taskId: string, ctx: ServerContext): Promise<Task> => {
		if (!declaresTasks(ctx))
			throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
		const task = await store.getTask(taskId);
		if (!task) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task: ${taskId}`, { taskId });
		return task;
	};
	server.setRequestHandler('tasks/get', { params: TaskParams }, async ({ taskId }, ctx) => {
		const task = await find(taskId, ctx);
		const detail: Record<string, unknown> = wireTask(task);
		if (task.status === 'completed') detail.result = await store.getTaskResult(taskId);
		if (task.status === 'failed') detail.error = ((await store.getTaskResult(taskId)) as { error?: unknown }).error;
		return detail;
	});
	server.setRequestHandler('tasks/update', { params: TaskParams }, async ({ taskId }, ctx) => {
		await find(taskId, ctx);
		throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Task ${taskId} is not waiting for input`, { taskId });
	});
	server.setRequestHandler('tasks/cancel', { params: TaskParams }, async ({ taskId }, ctx) => {
		const task = await find(taskId, ctx);
		if (!TERMINAL.has(task.status)) await store.updateTaskStatus(taskId, 'cancelled', 'Cancelled by the client');
		return {};
	});
}
