/**
 * Where the tasks of long tool calls are kept: read, listed and cancelled by later requests, on either revision. The
 * interface is what a store shared by several processes behind one URL needs: every method is async, a task and its
 * result are plain JSON, and a cancel reaches the work wherever it runs (the process that runs a task's work tracks
 * it; a cancel taken by another process must abort that signal, as a store on Redis would by publishing it). Every
 * task has an owner (calls/taskOwner.ts): for another owner it does not exist.
 */
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';

import type { ToolResult } from './results';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/**
 * The statuses a task never leaves (the SDK's isTerminal, which its in-memory store applies): every store and
 * revision reads them from here.
 */
export const TERMINAL_STATUSES: readonly TaskStatus[] = ['completed', 'failed', 'cancelled'];

export const isTerminalStatus = (status: TaskStatus): boolean => TERMINAL_STATUSES.includes(status);

/** A task as kept and as clients read it (the owner is the store's index, never part of it). */
export interface TaskRecord {
	taskId: string;
	status: TaskStatus;
	statusMessage?: string;
	/** ISO times. */
	createdAt: string;
	lastUpdatedAt: string;
	/** How long the task is kept, in ms from its last change; null: until the process ends. */
	ttl: number | null;
	/** How often a client is asked to look, in ms. */
	pollInterval?: number;
}

export interface TaskStore {
	create(owner: string, options: { ttl: number | null; pollInterval: number }): Promise<TaskRecord>;
	/** The owner's task, or undefined (none, expired, or another owner's). */
	get(owner: string, taskId: string): Promise<TaskRecord | undefined>;
	/** The owner's tasks, a page at a time. */
	list(owner: string, cursor?: string): Promise<{ tasks: TaskRecord[]; nextCursor?: string }>;
	/** Keeps a finished call's result; refused (thrown) for a task that has already finished or was cancelled. */
	finish(owner: string, taskId: string, status: 'completed' | 'failed', result: ToolResult): Promise<void>;
	/** A finished task's result; thrown when there is none. */
	result(owner: string, taskId: string): Promise<ToolResult>;
	/** Changes a task's status (refused once it has finished); `cancelled` also ends its work, wherever it runs. */
	setStatus(owner: string, taskId: string, status: TaskStatus, message?: string): Promise<void>;
	/** For the process that runs a task's work: a signal aborted when the task is cancelled, until `done`. */
	track(taskId: string): AbortSignal;
	done(taskId: string): void;
}

/** A process's tasks, in its memory: the SDK's in-memory store (its expiry and status rules), owner by owner. */
export class ToolTasks implements TaskStore {
	private readonly kept = new InMemoryTaskStore();
	private readonly running = new Map<string, AbortController>();

	create(owner: string, options: { ttl: number | null; pollInterval: number }): Promise<TaskRecord> {
		return this.kept.createTask(options, 0, { method: 'tools/call', params: {} }, owner);
	}

	async get(owner: string, taskId: string): Promise<TaskRecord | undefined> {
		return (await this.kept.getTask(taskId, owner)) ?? undefined;
	}

	list(owner: string, cursor?: string): Promise<{ tasks: TaskRecord[]; nextCursor?: string }> {
		return this.kept.listTasks(cursor, owner);
	}

	finish(owner: string, taskId: string, status: 'completed' | 'failed', result: ToolResult): Promise<void> {
		return this.kept.storeTaskResult(taskId, status, result, owner);
	}

	async result(owner: string, taskId: string): Promise<ToolResult> {
		// Only finish() stores results, and it takes tool results.
		return (await this.kept.getTaskResult(taskId, owner)) as ToolResult;
	}

	async setStatus(owner: string, taskId: string, status: TaskStatus, message?: string): Promise<void> {
		// The store first: it refuses a task of another owner, whose work must go on.
		await this.kept.updateTaskStatus(taskId, status, message, owner);
		if (status === 'cancelled') this.running.get(taskId)?.abort();
	}

	track(taskId: string): AbortSignal {
		const controller = new AbortController();
		this.running.set(taskId, controller);
		return controller.signal;
	}

	done(taskId: string): void {
		this.running.delete(taskId);
	}

	/** Forgets every task and stops their expiry timers: for a process, or a test, that stops serving. */
	close(): void {
		this.kept.cleanup();
		this.running.clear();
	}
}
