/**
 * Tasks on 2026-07-28: the tasks extension (io.modelcontextprotocol/tasks, SEP-2663), which the v2 SDK leaves to
 * the server. The server decides: a client that declares the extension in a request's capabilities gets a task for
 * a call that can take long (a send with a wait, a list of more than one part), the task's fields flat in the
 * result (resultType "task"); tasks/get tells its status and, once finished, inlines the tool's result (completed,
 * or failed with the tool error's isError: calls/tasks.ts's one rule); tasks/cancel stops the work and answers an
 * empty ack. Kept in the process's one store, as 2025-11-25's tasks are, each the caller's (calls/taskOwner.ts).
 */
import {
	CLIENT_CAPABILITIES_META_KEY,
	MissingRequiredClientCapabilityError,
	ProtocolError,
	ProtocolErrorCode,
	type Server,
	type ServerContext,
} from '@modelcontextprotocol/server';
import * as z from 'zod';

import { isComposite, isRecord } from '@chat-messaging/core';
import type { TaskHook } from '../calls/pipeline';
import { TASK_POLL_INTERVAL_MS, TASK_TTL_MS } from '../calls/tasks';
import { isTerminalStatus, type TaskRecord } from '../calls/taskStore';
import { LIMIT_ARGUMENT, LIST_LIMIT, type CatalogueTool } from '../tools';
import type { ServerParts } from './common';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The request's client's capabilities: on this revision they travel in each request's envelope. */
export function clientCapabilitiesOf(ctx: ServerContext): Record<string, unknown> {
	const envelope: unknown = ctx.mcpReq.envelope;
	const client = isRecord(envelope) ? envelope[CLIENT_CAPABILITIES_META_KEY] : undefined;
	return isRecord(client) ? client : {};
}

/** Whether the request's client declared the tasks extension. */
function declaresTasks(ctx: ServerContext): boolean {
	const { extensions } = clientCapabilitiesOf(ctx);
	return isRecord(extensions) && isRecord(extensions[TASKS_EXTENSION]);
}

/** Whether a call of a tool that may run as a task takes long enough to become one: a wait, or a list of more than one part. */
const worthATask = (tool: CatalogueTool, args: Record<string, unknown> | undefined): boolean => {
	if (isComposite(tool.operation)) return true;
	const limit = args?.[LIMIT_ARGUMENT];
	return typeof limit === 'number' && limit > LIST_LIMIT.default;
};

/** A task as the extension spells it: milliseconds in the field names, nothing of the 2025 names. */
function wireTask(task: TaskRecord) {
	return {
		taskId: task.taskId,
		status: task.status,
		...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
		createdAt: task.createdAt,
		lastUpdatedAt: task.lastUpdatedAt,
		ttlMs: task.ttl,
		pollIntervalMs: task.pollInterval ?? TASK_POLL_INTERVAL_MS,
	};
}

/**
 * The task of a call, for a client that can follow one (the pipeline asks only for a tool that may run as a task): the
 * caller's, answered at once with the task's fields flat (CreateTaskResult).
 */
export function taskHook(parts: Pick<ServerParts, 'tasks' | 'owner'>, ctx: ServerContext) {
	if (!declaresTasks(ctx)) return undefined;
	return (tool: CatalogueTool, args: Record<string, unknown> | undefined): TaskHook<TaskRecord, TaskAnswer> | undefined =>
		worthATask(tool, args)
			? {
					create: () => parts.tasks.create(parts.owner, { ttl: TASK_TTL_MS, pollInterval: TASK_POLL_INTERVAL_MS }),
					store: (taskId, status, result) => parts.tasks.finish(parts.owner, taskId, status, result),
					answer: taskAnswer,
				}
			: undefined;
}

const taskAnswer = (task: TaskRecord) => ({ resultType: 'task' as const, ...wireTask(task) });
export type TaskAnswer = ReturnType<typeof taskAnswer>;

const TaskParams = z.looseObject({ taskId: z.string() });

/** tasks/get, tasks/update and tasks/cancel, for clients that declared the extension; the others are told what is missing. */
export function registerTasks(server: Server, { tasks, owner }: Pick<ServerParts, 'tasks' | 'owner'>): void {
	const find = async (taskId: string, ctx: ServerContext): Promise<TaskRecord> => {
		if (!declaresTasks(ctx))
			throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
		const task = await tasks.get(owner, taskId);
		if (!task) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task: ${taskId}`, { taskId });
		return task;
	};
	server.setRequestHandler('tasks/get', { params: TaskParams }, async ({ taskId }, ctx) => {
		const task = await find(taskId, ctx);
		const finished = task.status === 'completed' || task.status === 'failed';
		return { ...wireTask(task), ...(finished ? { result: await tasks.result(owner, taskId) } : {}) };
	});
	server.setRequestHandler('tasks/update', { params: TaskParams }, async ({ taskId }, ctx) => {
		await find(taskId, ctx);
		throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Task ${taskId} is not waiting for input`, { taskId });
	});
	server.setRequestHandler('tasks/cancel', { params: TaskParams }, async ({ taskId }, ctx) => {
		const task = await find(taskId, ctx);
		if (!isTerminalStatus(task.status)) await tasks.setStatus(owner, taskId, 'cancelled', 'Cancelled by the client');
		return {};
	});
}
