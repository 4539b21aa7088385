/**
 * Tasks for long tool calls, kept once per process and shared by both revisions' servers.
 */
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';

/**
 * Tasks for long tool calls (Send and Wait for Reply, Send with its wait, lists): the SDK's in-memory store, which
 * also stops the call's work when the client cancels the task (tasks/cancel), as a cancelled request stops.
 */
export class ToolTasks extends InMemoryTaskStore {
	private readonly running = new Map<string, AbortController>();

	/** The signal that ends a task's work when the task is cancelled. */
	track(taskId: string): AbortSignal {
		const controller = new AbortController();
		this.running.set(taskId, controller);
		return controller.signal;
	}

	done(taskId: string): void {
		this.running.delete(taskId);
	}

	override async updateTaskStatus(...args: Parameters<InMemoryTaskStore['updateTaskStatus']>): Promise<void> {
		const [taskId, status] = args;
		// The store first: it refuses a task of another owner, whose work must go on.
		await super.updateTaskStatus(...args);
		if (status === 'cancelled') this.running.get(taskId)?.abort();
	}
}
