/**
 * The MCP server: lists the catalogue's tools and runs a call through the core's Executor, the one the
 * n8n and Node-RED nodes run (validation naming the field, pacing under the service's rate, retries only
 * of what cannot have taken effect, a send in doubt looked up rather than repeated). Any failure, bad
 * input or a service error, comes back as a tool error (`isError: true`) the model can read and act on.
 */
import { createHash } from 'node:crypto';

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
	CallToolRequestSchema,
	ErrorCode,
	GetPromptRequestSchema,
	ListPromptsRequestSchema,
	ListResourcesRequestSchema,
	ListResourceTemplatesRequestSchema,
	ListToolsRequestSchema,
	ReadResourceRequestSchema,
	type CallToolResult,
	type ProgressToken,
	type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';

import {
	ChatMessagingError,
	DEFAULT_OUTPUT,
	describeDownload,
	FileLinks,
	inputError,
	isComposite,
	isDownloadedFile,
	OUTPUT_MODES,
	operationOutput,
	isRecord,
	needsConfirmation,
	redactReceiverUrls,
	toolListResult,
	toolStructuredContent,
	type BinaryInput,
	type CatalogueOperation,
	type CompositeRunOptions,
	type Executor,
	type FieldDescriptor,
	type ListPosition,
	type Timing,
	type WaitProgress,
} from '@chat-messaging/core';
import { confirmationForm, couldNotAsk, isConfirmation, notConfirmed } from './confirm';
import { base64, linkedFileContents, listedResources, listedTool, runsAsTask, unknownTool } from './listing';
import { selectTools } from './scopes';
import { ownedTasks, taskOwnerOf } from './taskOwner';
import { TASK_TTL_MS, ToolTasks } from './tasks';
import { markedResult } from './untrusted';
import { CONVERSATION_RESOURCE_TEMPLATE, conversationChatId, readConversationResource, type ResourceFailure } from './conversationResource';
import { DRAFT_REPLY_PROMPT, getDraftReplyPrompt } from './draftReplyPrompt';
import { catalogueTools, CURSOR_ARGUMENT, FIELDS_ARGUMENT, LIMIT_ARGUMENT, LIST_LIMIT, OUTPUT_ARGUMENT, type CatalogueTool } from './tools';

export const SERVER_NAME = 'chat-messaging';

export interface ServerOptions {
	executor: Executor;
	version: string;
	/**
	 * The tools this server offers (a scope's `selectTools`); left out: the catalogue's default toolsets, of the
	 * catalogue's operations or of `operations` (a changed copy a test passes).
	 */
	tools?: readonly CatalogueTool[];
	operations?: readonly CatalogueOperation[];
	/**
	 * Where downloads above the inline limit are kept for resources/read: one per process, shared by every session
	 * (a link handed out in one HTTP request is read in the next). Left out: one of this server's own.
	 */
	links?: FileLinks;
	/**
	 * Where tasks are kept (tasks/get, tasks/result, tasks/cancel): one per process, like links. Left out: the
	 * server's own.
	 */
	tasks?: ToolTasks;
	/**
	 * Whether to ask the user, through the client's form elicitation, before a call no operation can undo or an
	 * administrative write (the catalogue's `needsConfirmation`). On unless turned off; a client without
	 * elicitation runs the tool as asked, its annotations telling it what the tool does.
	 */
	confirm?: boolean;
	/** Whose tasks this server's requests start and read (see taskOwner.ts); left out: the anonymous caller's. */
	taskOwner?: string;
	/** Whether tools/list shows each tool's outputSchema (on unless false: --no-output-schemas). */
	outputSchemas?: boolean;
}

/**
 * An opaque cursor: the position (page, records of it already returned, records per page), and a digest of the filters it belongs to, so a cursor passed back with
 * other filters is refused instead of continuing some other list.
 */
function encodeCursor(position: ListPosition, filters: string): string {
	const { page: p, skip: s, pageSize: n } = position;
	return Buffer.from(JSON.stringify({ p, s, ...(n ? { n } : {}), f: filters })).toString('base64url');
}

function decodeCursor(cursor: unknown, filters: string): ListPosition {
	const invalid = () => inputError(CURSOR_ARGUMENT, 'is not a cursor this tool returned; leave it out to start the list again');
	if (typeof cursor !== 'string' || !cursor) throw invalid();
	let decoded: unknown;
	try {
		decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
	} catch {
		throw invalid();
	}
	if (
		!isRecord(decoded) ||
		!Number.isInteger(decoded.p) ||
		!Number.isInteger(decoded.s) ||
		(decoded.p as number) < 1 ||
		(decoded.s as number) < 0
	)
		throw invalid();
	if (decoded.f !== filters)
		throw inputError(CURSOR_ARGUMENT, 'belongs to a call with other filters: pass the same filters as the call that returned it');
	const pageSize = Number.isInteger(decoded.n) && (decoded.n as number) > 0 ? (decoded.n as number) : undefined;
	return { page: decoded.p as number, skip: decoded.s as number, ...(pageSize ? { pageSize } : {}) };
}

/** A digest of a list call's filters (everything but cursor and limit), independent of key order. */
function filtersDigest(input: Record<string, unknown>): string {
	const sorted = Object.keys(input)
		.sort()
		.map((key) => [key, input[key]]);
	return createHash('sha256').update(JSON.stringify(sorted)).digest('base64url').slice(0, 16);
}

function wholeNumber(name: string, value: unknown, min: number, max: number): number {
	if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
		throw inputError(name, `must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`);
	return value;
}

/** A binary argument (base64 bytes, file name, type) as the core's upload input. */
function binaryInput(field: FieldDescriptor, value: unknown): BinaryInput {
	if (!isRecord(value) || typeof value.data !== 'string' || typeof value.filename !== 'string' || !value.filename)
		throw inputError(field.name, 'must be an object with data (the bytes, base64) and filename');
	if (!/^[A-Za-z0-9+/\-_]*={0,2}$/.test(value.data.replace(/\s+/g, ''))) throw inputError(field.name, 'data must be base64-encoded bytes');
	return {
		data: new Uint8Array(Buffer.from(value.data, 'base64')),
		filename: value.filename,
		...(typeof value.mimeType === 'string' && value.mimeType ? { mimeType: value.mimeType } : {}),
	};
}

/**
 * The tool's arguments as the executor's input: unknown arguments are refused (a misspelt filter would
 * otherwise widen a list or change nothing), bytes decoded; everything else is the core's to check.
 */
function operationInput(tool: CatalogueTool, args: unknown): Record<string, unknown> {
	if (args !== undefined && !isRecord(args)) throw inputError('arguments', 'must be an object');
	const input: Record<string, unknown> = {};
	for (const [name, value] of Object.entries(args ?? {})) {
		if (!(name in tool.inputSchema.properties)) {
			const known = Object.keys(tool.inputSchema.properties).join(', ');
			throw inputError(name, `is not an argument of ${tool.name}${known ? ` (its arguments: ${known})` : ''}`);
		}
		const field = tool.fields.find((candidate) => candidate.name === name);
		input[name] = field?.kind === 'binary' && value !== undefined && value !== null ? binaryInput(field, value) : value;
	}
	return input;
}

/** The error as the model sees it: its message, the argument named as the tool names it, and its details. */
function toolError(error: unknown, tool?: CatalogueTool): CallToolResult {
	if (!(error instanceof ChatMessagingError)) {
		const message = error instanceof Error ? error.message : String(error);
		return { isError: true, content: [{ type: 'text', text: `Internal error of the MCP server: ${message}` }] };
	}
	let message = error.message;
	if (error.field) {
		// The core names a field by its editor label ("Chat ID: …"); a model knows it as its argument (chat_id).
		const label = tool?.fields.find((field) => field.name === error.field)?.displayName;
		if (label && message.startsWith(`${label}: `)) message = `${error.field}: ${message.slice(label.length + 2)}`;
		// A message that already starts with the argument ("chat_id: …", "chat_id 42: not found") keeps its words.
		else if (!new RegExp(`^${error.field.replace(/[^\w]/g, '\\$&')}[ :]`).test(message)) message = `${error.field}: ${message}`;
	}
	// The details as a second text, not as structuredContent: that is the tool's output schema's (the SDK's client
	// validates it against the schema on errors too).
	return {
		isError: true,
		content: [
			{ type: 'text', text: message },
			{ type: 'text', text: JSON.stringify({ error: { ...error.toJSON(), message } }) },
		],
	};
}

/**
 * A result as the tool returns it: structuredContent as the core wraps it (the shape its outputSchema
 * describes), the same as text for clients that read only content. A download's bytes go beside it, as an image
 * or an embedded resource; above the inline limit they are kept (FileLinks) and the result holds a
 * resource_link to read them through resources/read instead.
 */
function toolResult(result: unknown, links?: FileLinks): CallToolResult {
	if (isDownloadedFile(result) && links?.linksFile(result)) {
		const link = links.keep(result);
		const structured = describeDownload(result, link);
		return {
			content: [
				{ type: 'text', text: JSON.stringify(structured) },
				{
					type: 'resource_link',
					uri: link.uri,
					name: link.name,
					mimeType: link.mimeType,
					description: `${link.size} bytes, readable through resources/read until ${link.expiresAt}`,
				},
			],
			structuredContent: structured,
		};
	}
	const structured = toolStructuredContent(result);
	const text = { type: 'text' as const, text: JSON.stringify(structured) };
	// What a customer wrote comes back marked as their words (untrusted.ts).
	if (!isDownloadedFile(result)) return markedResult(structured);
	const { data, mimeType, filename } = result;
	return {
		content: [
			text,
			mimeType.startsWith('image/')
				? { type: 'image', data: base64(data), mimeType }
				: { type: 'resource', resource: { uri: `chat-messaging:file/${encodeURIComponent(filename)}`, mimeType, blob: base64(data) } },
		],
		structuredContent: structured,
	};
}

/** The Output choice (the core's Simplified / Raw / Selected Fields), checked before anything is sent. */
function outputChoice(mode: unknown, fields: unknown): { mode: string; fields?: string[] } {
	const value = mode === undefined || mode === null ? DEFAULT_OUTPUT : mode;
	if (typeof value !== 'string' || !OUTPUT_MODES.some((candidate) => candidate.value === value))
		throw inputError(
			OUTPUT_ARGUMENT,
			`must be one of ${OUTPUT_MODES.map((candidate) => candidate.value).join(', ')}, got ${JSON.stringify(value)}`,
		);
	if (fields !== undefined && (!Array.isArray(fields) || fields.some((name) => typeof name !== 'string')))
		throw inputError(FIELDS_ARGUMENT, 'must be a list of field names');
	if (value === 'selected' && !(fields as string[] | undefined)?.length)
		throw inputError(FIELDS_ARGUMENT, 'names the fields to return with output "selected"');
	return { mode: value, ...(fields ? { fields: fields as string[] } : {}) };
}

/** What an MCP request adds to a tool call: its cancellation, and where a long wait reports its progress. */
export interface CallContext {
	/** Aborted when the client cancels the call (or gives up on it, or goes away). */
	signal?: AbortSignal;
	/** Set when the client asked for progress (a progressToken): called while a wait goes on. */
	onProgress?: (progress: WaitProgress) => void;
	/** Where a large download is kept and linked to (left out: every download inline). */
	links?: FileLinks;
}

/** The executor's time with pauses that end as soon as the call is cancelled, so a wait stops at once, not after its pause. */
function cancellable(timing: Timing, signal: AbortSignal): Timing {
	return {
		now: () => timing.now(),
		random: () => timing.random(),
		sleep: (ms) =>
			signal.aborted
				? Promise.resolve()
				: new Promise<void>((resolve) => {
						const done = () => {
							clearTimeout(timer);
							signal.removeEventListener('abort', done);
							resolve();
						};
						const timer = setTimeout(done, ms);
						signal.addEventListener('abort', done, { once: true });
					}),
	};
}

/** A composite's run options from the request: the core's wait reports to the client and ends when the call is cancelled. */
function compositeOptions(executor: Executor, context: CallContext): CompositeRunOptions {
	const { signal, onProgress } = context;
	return {
		...(onProgress ? { onProgress } : {}),
		...(signal ? { cancelled: () => signal.aborted, timing: cancellable(executor.timing, signal) } : {}),
	};
}

export async function callTool(executor: Executor, tool: CatalogueTool, args: unknown, context: CallContext = {}): Promise<CallToolResult> {
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
		return toolResult(
			toolListResult(
				redactReceiverUrls(op, operationOutput(op, items, choice)) as unknown[],
				next ? encodeCursor(next, digest) : undefined,
			),
		);
	} catch (error) {
		return toolError(error, tool);
	}
}

const seconds = (ms: number) => Math.round(ms / 1000);

/** What a wait is at, in words. */
function progressMessage(progress: WaitProgress): string {
	const what =
		progress.awaiting === 'reply'
			? `Waiting for the customer's reply to message ${progress.message_uid}`
			: `Waiting for message ${progress.message_uid} to be ${progress.awaiting}`;
	return `${what}: ${seconds(progress.elapsedMs)} s of at most ${seconds(progress.timeoutMs)} s, ${progress.looks} ${progress.looks === 1 ? 'look' : 'looks'}`;
}

/**
 * Progress notifications for a call that carries a progressToken (MCP clients give up on a call after 60 s
 * of silence unless progress resets their time-out): the time waited out of the wait's time-out, in ms.
 */
export function progressReporter(
	token: ProgressToken | undefined,
	send: (notification: Pick<ServerNotification, 'method' | 'params'> & { method: 'notifications/progress' }) => Promise<void>,
): ((progress: WaitProgress) => void) | undefined {
	if (token === undefined) return undefined;
	let last = -1;
	return (progress) => {
		// The protocol wants the value to grow with every notification.
		last = Math.max(last + 1, progress.elapsedMs);
		send({
			method: 'notifications/progress',
			params: { progressToken: token, progress: last, total: progress.timeoutMs, message: progressMessage(progress) },
		}).catch(() => undefined);
	};
}

/**
 * A JSON-RPC error as the SDK sends it (its code, message and data); unlike McpError, whose message starts "MCP error
 * <code>: ", which the client's McpError then prefixes once more.
 */
function protocolError(code: ErrorCode, message: string, data: Record<string, unknown>): Error {
	return Object.assign(new Error(message), { code, data });
}

/**
 * tools/call as the handler is registered: any params, so a request that is not a tools/call (arguments that are no
 * object) reaches the SDK's own check of CallToolRequestSchema, which answers invalid params (-32602) rather than
 * the internal error (-32603) a failed parse of the handler's schema gives.
 */
const AnyCallToolRequestSchema = z.object({ method: z.literal('tools/call'), params: z.unknown() }).passthrough();

/** A conversation that could not be read: invalid params for a chat that is not there, an internal error otherwise. */
const failedRead = (failure: ResourceFailure): Error =>
	protocolError(failure.invalidParams ? ErrorCode.InvalidParams : ErrorCode.InternalError, failure.message, failure.data);

/** Who the server is, on either revision. */
export const SERVER_INFO = (version: string) => ({ name: SERVER_NAME, version, title: 'Chat Messaging' });

export const SERVER_INSTRUCTIONS =
	'Tools for the Chat Messaging Service: chats, messages, labels, notes, files, webhooks and the workspace. ' +
	'List tools return items and, when more follow, nextCursor to pass back as cursor.';

/** An MCP server (not yet connected to a transport) with one tool per catalogue operation of its scope. */
export function createServer(options: ServerOptions): Server {
	const tools = options.tools ?? selectTools(catalogueTools(options.operations));
	const confirm = options.confirm !== false;
	const links = options.links ?? new FileLinks({ timing: options.executor.timing });
	const tasks = options.tasks ?? new ToolTasks();
	const byName = new Map(tools.map((tool) => [tool.name, tool]));
	const server = new Server(SERVER_INFO(options.version), {
		capabilities: { tools: {}, resources: {}, prompts: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
		taskStore: ownedTasks(tasks, options.taskOwner ?? taskOwnerOf(undefined)),
		instructions: SERVER_INSTRUCTIONS,
	});
	server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map((tool) => listedTool(tool, options)) }));
	// The resources are the downloads handed out as links, each readable until it expires.
	server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: listedResources(links) }));
	// The conversation of a chat (conversationResource.ts) and the prompt that drafts a reply from it.
	server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [CONVERSATION_RESOURCE_TEMPLATE] }));
	server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [DRAFT_REPLY_PROMPT] }));
	server.setRequestHandler(GetPromptRequestSchema, async (request) => {
		if (request.params.name !== DRAFT_REPLY_PROMPT.name)
			throw protocolError(ErrorCode.InvalidParams, `Unknown prompt: ${JSON.stringify(request.params.name)}`, { name: request.params.name });
		const prompt = await getDraftReplyPrompt(options.executor, request.params.arguments);
		if ('failed' in prompt) throw failedRead(prompt.failed);
		return prompt;
	});
	server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
		if (conversationChatId(request.params.uri) !== undefined) {
			const read = await readConversationResource(options.executor, request.params.uri);
			if ('failed' in read) throw failedRead(read.failed);
			return read;
		}
		const contents = linkedFileContents(links, request.params.uri);
		if ('notFound' in contents) throw protocolError(ErrorCode.InvalidParams, contents.notFound.message, contents.notFound.data);
		return contents;
	});
	server.setRequestHandler(AnyCallToolRequestSchema, async (anyRequest, extra) => {
		// Checked by the SDK (Server's tools/call wrapper) before this runs.
		const request = CallToolRequestSchema.parse(anyRequest);
		const tool = byName.get(request.params.name);
		if (!tool) {
			const unknown = unknownTool(request.params.name);
			throw protocolError(ErrorCode.InvalidParams, unknown.message, unknown.data);
		}
		if (confirm && needsConfirmation(tool.operation) && server.getClientCapabilities()?.elicitation?.form) {
			let allowed: boolean;
			try {
				allowed = isConfirmation(await server.elicitInput(confirmationForm(tool, request.params.arguments), { signal: extra.signal }));
			} catch (error) {
				return toolError(couldNotAsk(error));
			}
			if (!allowed) return notConfirmed(tool);
		}
		const taskStore = extra.taskStore;
		if (request.params.task && taskStore && runsAsTask(tool)) {
			// The task id at once; the work goes on, its result kept for tasks/result, until done or cancelled.
			const task = await taskStore.createTask({ ttl: request.params.task.ttl ?? TASK_TTL_MS, pollInterval: 1000 });
			const signal = tasks.track(task.taskId);
			void callTool(options.executor, tool, request.params.arguments, { links, signal })
				.then((result) =>
					signal.aborted ? undefined : taskStore.storeTaskResult(task.taskId, result.isError ? 'failed' : 'completed', result),
				)
				.catch(() => undefined)
				.finally(() => tasks.done(task.taskId));
			return { task };
		}
		return callTool(options.executor, tool, request.params.arguments, {
			links,
			signal: extra.signal,
			onProgress: progressReporter(request.params._meta?.progressToken, extra.sendNotification),
		});
	});
	return server;
}
