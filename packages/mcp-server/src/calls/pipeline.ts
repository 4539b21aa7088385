/**
 * tools/call, written once for both revisions, in the order a call goes: the tool, by its name among the caller's
 * tools (a tool of the catalogue the caller's scope does not give is refused for its scope; any other name is
 * unknown); the user's confirmation before what cannot be undone; the call as a task or directly; its result, or its
 * failure as a tool error. What each revision's SDK does its own way comes in as hooks: asking the user, starting a
 * task, telling progress, cancelling.
 */
import { isRecord, needsConfirmation, type Executor } from '@chat-messaging/core';
import type { CatalogueTool } from '../tools';
import { callTool } from './callTool';
import { confirmationForm, couldNotAsk, isConfirmation, notConfirmed } from './confirmation';
import { outsideScope, RequestRefusal, toolError, unknownTool } from './errors';
import { progressReporter, type ProgressNotification } from './progress';
import type { DownloadLinks, ToolResult } from './results';
import { runsAsTask, startToolTask, type TaskRecords } from './tasks';
import type { TaskStore } from './taskStore';

/** What a call needs of the server it reaches: one caller's parts (revisions/common.ts, callerParts). */
export interface CallParts {
	/** The caller's workspace. */
	executor: Executor;
	/** The tools the caller's scope gives, by name. */
	byName: ReadonlyMap<string, CatalogueTool>;
	/** Every tool of the catalogue, by name: one of them outside byName is refused for the caller's scope. */
	catalogue: ReadonlyMap<string, CatalogueTool>;
	/** Whether to ask before a call that cannot be undone or an administrative write (the catalogue's needsConfirmation). */
	confirm: boolean;
	/** Where the caller's large downloads are kept. */
	links: DownloadLinks;
	/** Where a task's work hears its cancel. */
	tasks: Pick<TaskStore, 'track' | 'done'>;
}

/**
 * The tool a call names, or why it is refused: the same answer the call gets, so a transport can refuse a request
 * before it reaches a server (an OAuth transport answers `insufficientScope` with HTTP 403).
 */
export function admitCall(parts: Pick<CallParts, 'byName' | 'catalogue'>, name: string): CatalogueTool | RequestRefusal {
	const tool = parts.byName.get(name);
	if (tool) return tool;
	const known = parts.catalogue.get(name);
	return known ? outsideScope(known) : unknownTool(name);
}

/**
 * The refusal for the caller's scope of a request body's tools/call (one JSON-RPC message or a batch), if any: what a
 * transport that grants access by OAuth answers with HTTP 403 insufficient_scope, naming the scope, before the request
 * reaches a server. Anything else in the body is the server's to answer.
 */
export function scopeRefusalOf(parts: Pick<CallParts, 'byName' | 'catalogue'>, body: unknown): RequestRefusal | undefined {
	for (const message of Array.isArray(body) ? body : [body]) {
		if (!isRecord(message) || message.method !== 'tools/call' || !isRecord(message.params)) continue;
		const { name } = message.params;
		const admitted = typeof name === 'string' ? admitCall(parts, name) : undefined;
		if (admitted instanceof RequestRefusal && admitted.insufficientScope) return admitted;
	}
	return undefined;
}

export interface CallRequest {
	name: string;
	args: Record<string, unknown> | undefined;
	/** The client's progressToken: with one, a long wait reports its progress. */
	progressToken?: string | number | undefined;
}

/** The user's answer to the confirmation form, or the call's answer until the user has answered (`pending`). */
export type Asked<Answer> = { action?: unknown; content?: unknown } | undefined | { pending: Answer };

/** How a revision keeps a call's task, and answers the call with it. */
export interface TaskHook<T extends { taskId: string }, Answer> extends TaskRecords<T> {
	answer(task: T): Answer;
}

/** What each revision's SDK does its own way. */
export interface CallHooks<Answer, T extends { taskId: string }> {
	/** Aborted when the client cancels the call: a direct call stops (a task has its own cancel). */
	signal: AbortSignal;
	/** Sends a notification to the client (progress). */
	notify: (notification: ProgressNotification) => Promise<void>;
	/** Asks the user through the client; left out when the client cannot be asked (the call runs as asked). */
	ask?: (form: ReturnType<typeof confirmationForm>) => Promise<Asked<Answer>>;
	/** For a tool that may run as a task: how this call's task is kept, or undefined to run it directly. */
	task?: (tool: CatalogueTool, args: Record<string, unknown> | undefined) => TaskHook<T, Answer> | undefined;
}

/** A tool call's answer: the tool's result (or error), a revision's own answer (a task, a question), or a refusal. */
export async function answerToolCall<Answer, T extends { taskId: string }>(
	parts: CallParts,
	request: CallRequest,
	hooks: CallHooks<Answer, T>,
): Promise<ToolResult | Answer | RequestRefusal> {
	const tool = admitCall(parts, request.name);
	if (tool instanceof RequestRefusal) return tool;
	const { args } = request;
	if (parts.confirm && needsConfirmation(tool.operation) && hooks.ask) {
		let asked: Asked<Answer>;
		try {
			asked = await hooks.ask(confirmationForm(tool, args));
		} catch (error) {
			return toolError(couldNotAsk(error));
		}
		if (asked && 'pending' in asked) return asked.pending;
		if (!isConfirmation(asked)) return notConfirmed(tool);
	}
	const task = runsAsTask(tool) ? hooks.task?.(tool, args) : undefined;
	if (task)
		return task.answer(
			await startToolTask(task, parts.tasks, (signal) => callTool(parts.executor, tool, args, { links: parts.links, signal })),
		);
	const onProgress = progressReporter(request.progressToken, hooks.notify);
	return callTool(parts.executor, tool, args, { links: parts.links, signal: hooks.signal, ...(onProgress ? { onProgress } : {}) });
}
