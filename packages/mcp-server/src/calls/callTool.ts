/**
 * A tool call through the core's Executor, the one the n8n and Node-RED nodes run (validation naming the field,
 * pacing under the service's rate, retries only of what cannot have taken effect, a send in doubt looked up rather
 * than repeated). Any failure, bad input or a service error, comes back as a tool error the model can read.
 */
import {
	isComposite,
	operationOutput,
	redactReceiverUrls,
	type CompositeRunOptions,
	type Executor,
	type WaitProgress,
} from '@chat-messaging/core';
import { isDownloadedFile, toolListResult } from '../structuredContent';
import { CURSOR_ARGUMENT, FIELDS_ARGUMENT, LIMIT_ARGUMENT, LIST_LIMIT, OUTPUT_ARGUMENT, type CatalogueTool } from '../tools';
import { operationInput, outputChoice, wholeNumber } from './arguments';
import { decodeCursor, encodeCursor, filtersDigest } from './cursors';
import { toolError } from './errors';
import { cancellable } from './progress';
import { toolResult, type DownloadLinks, type ToolResult } from './results';

/** What an MCP request adds to a tool call: its cancellation, and where a long wait reports its progress. */
export interface CallContext {
	/** Aborted when the client cancels the call (or gives up on it, or goes away). */
	signal?: AbortSignal;
	/** Set when the client asked for progress (a progressToken): called while a wait goes on. */
	onProgress?: (progress: WaitProgress) => void;
	/** Where a large download is kept and linked to (left out: every download inline). */
	links?: DownloadLinks;
}

/** A composite's run options from the request: the core's wait reports to the client and ends when the call is cancelled. */
function compositeOptions(executor: Executor, context: CallContext): CompositeRunOptions {
	const { signal, onProgress } = context;
	return {
		...(onProgress ? { onProgress } : {}),
		...(signal ? { cancelled: () => signal.aborted, timing: cancellable(executor.timing, signal) } : {}),
	};
}

export async function callTool(executor: Executor, tool: CatalogueTool, args: unknown, context: CallContext = {}): Promise<ToolResult> {
	try {
		const { [OUTPUT_ARGUMENT]: mode, [FIELDS_ARGUMENT]: fields, ...input } = operationInput(tool, args);
		const choice = outputChoice(mode, fields);
		const op = tool.operation;
		if (isComposite(op)) return toolResult(await executor.run(op, input, compositeOptions(executor, context)));
		if (!op.pagination) {
			const result = await executor.run(op, input);
			return toolResult(isDownloadedFile(result) ? result : redactReceiverUrls(op, operationOutput(op, result, choice)), context.links);
		}
		const { [CURSOR_ARGUMENT]: cursor, [LIMIT_ARGUMENT]: limitArgument, ...filters } = input;
		const limit = limitArgument === undefined ? LIST_LIMIT.default : wholeNumber(LIMIT_ARGUMENT, limitArgument, 1, LIST_LIMIT.max);
		const digest = filtersDigest(filters);
		const position = cursor === undefined || cursor === null ? { page: 1, skip: 0 } : decodeCursor(cursor, digest);
		const { items, next } = await executor.listFrom(op, filters, position, limit);
		const records = redactReceiverUrls(op, operationOutput(op, items, choice)) as unknown[];
		return toolResult(toolListResult(records, next ? encodeCursor(next, digest) : undefined));
	} catch (error) {
		return toolError(error);
	}
}
