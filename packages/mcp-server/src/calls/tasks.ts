/**
 * Tool calls that run as tasks, the same on either revision: which tools may, and the one way a task is started and
 * finished. The call answers at once with the task; the work goes on, its result kept for the client to read,
 * until done or cancelled. A tool error (isError) marks the task failed, a result without one completed; a task
 * cancelled keeps its status (the work's late result is dropped).
 */
import { isComposite } from '@chat-messaging/core';
import type { CatalogueTool } from '../tools';
import { toolError } from './errors';
import type { ToolResult } from './results';
import type { TaskStore } from './taskStore';

/** Whether a tool may run as a task: the ones that can take long (a wait, many pages). */
export const runsAsTask = (tool: CatalogueTool): boolean => isComposite(tool.operation) || tool.operation.pagination !== undefined;

/** How long a task's result is kept when the client names no time (the longest wait, Send and Wait for Reply's hour, and then some). */
export const TASK_TTL_MS = 2 * 60 * 60 * 1000;
/** How often a client is asked to look at a task. */
export const TASK_POLL_INTERVAL_MS = 1000;

/**
 * What a task becomes when the process running its work stopped before it finished (a store shared by several
 * processes sees it: the work's heartbeat ends): failed, never "working" for ever. A send it made may have gone out.
 */
export const RUNNER_LOST_MESSAGE =
	'The server process running this task stopped before it finished. A message it was sending may or may not have gone out: look it up (message_get_many) before sending again';
export const runnerLostResult = (): ToolResult => ({ isError: true, content: [{ type: 'text', text: RUNNER_LOST_MESSAGE }] });

/** How a finished call leaves its task. */
export const finishedStatus = (result: ToolResult): 'completed' | 'failed' => (result.isError ? 'failed' : 'completed');

/** How a revision keeps a call's task: how one is created and how its result is stored. */
export interface TaskRecords<T extends { taskId: string }> {
	create(): Promise<T>;
	store(taskId: string, status: 'completed' | 'failed', result: ToolResult): Promise<void>;
}

/** Starts the work as a task and answers at once with the task; its work ends when the task is cancelled. */
export async function startToolTask<T extends { taskId: string }>(
	records: TaskRecords<T>,
	tasks: Pick<TaskStore, 'track' | 'done'>,
	work: (signal: AbortSignal) => Promise<ToolResult>,
): Promise<T> {
	const task = await records.create();
	const signal = tasks.track(task.taskId);
	void work(signal)
		// callTool answers every failure as a tool error; anything else thrown is the server's own, told the same way.
		.catch((error: unknown) => toolError(error))
		.then((result) => (signal.aborted ? undefined : records.store(task.taskId, finishedStatus(result), result)))
		.catch(() => undefined)
		.finally(() => tasks.done(task.taskId));
	return task;
}
