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
	ListResourcesRequestSchema,
	ListToolsRequestSchema,
	ReadResourceRequestSchema,
	type CallToolResult,
	type ProgressToken,
	type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';

import {
	ChatMessagingError,
	changeOf,
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
	redactSubscriptionUrl,
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
import { selectTools } from './scopes';
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

const base64 = (data: Uint8Array) => Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');

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
	if (!isDownloadedFile(result)) return { content: [text], structuredContent: structured };
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
function progressReporter(
	token: ProgressToken | undefined,
	send: (notification: ServerNotification) => Promise<void>,
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

/** An argument as the person confirming reads it: a receiver's address without its secret, bytes by their name. */
function shownArgument(field: FieldDescriptor | undefined, value: unknown): string {
	if (field?.kind === 'binary' && isRecord(value)) return String(value.filename);
	if (field?.kind === 'receiverUrl' && typeof value === 'string') return redactSubscriptionUrl(value);
	return typeof value === 'string' ? value : JSON.stringify(value);
}

/** What the user is asked to confirm: the operation and its target, every argument given named as the editors name it. */
export function confirmationMessage(tool: CatalogueTool, args: Record<string, unknown> | undefined): string {
	const given = Object.entries(args ?? {})
		.filter(([, value]) => value !== undefined && value !== null && value !== '')
		.map(([name, value]) => {
			const field = tool.fields.find((candidate) => candidate.name === name);
			return `${field?.displayName ?? name}: ${shownArgument(field, value)}`;
		});
	return `An AI agent asks to ${tool.operation.action.charAt(0).toLowerCase()}${tool.operation.action.slice(1)}${given.length ? ` (${given.join('; ')})` : ''}. ${
		changeOf(tool.operation) === 'overwrites' ? 'This cannot be undone. ' : ''
	}Run it?`;
}

/** The name of the form's one field: a checkbox the user ticks to let the call run. */
export const CONFIRM_FIELD = 'confirm';

/** Asks the user through the client; true only when they accepted with the box ticked. */
async function confirmed(
	server: Server,
	tool: CatalogueTool,
	args: Record<string, unknown> | undefined,
	signal: AbortSignal,
): Promise<boolean> {
	const answer = await server.elicitInput(
		{
			mode: 'form',
			message: confirmationMessage(tool, args),
			requestedSchema: {
				type: 'object',
				properties: {
					[CONFIRM_FIELD]: {
						type: 'boolean',
						title: `${tool.title}: run it`,
						description: 'Tick to let the agent run this call',
						default: false,
					},
				},
				required: [CONFIRM_FIELD],
			},
		},
		{ signal },
	);
	return answer.action === 'accept' && answer.content?.[CONFIRM_FIELD] === true;
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
		if (status === 'cancelled') this.running.get(taskId)?.abort();
		return super.updateTaskStatus(...args);
	}
}

/** How long a task's result is kept when the client names no time (the longest wait, Send and Wait for Reply's hour, and then some). */
const TASK_TTL_MS = 2 * 60 * 60 * 1000;

/** Whether a tool may run as a task: the ones that can take long (a wait, many pages). */
export const runsAsTask = (tool: CatalogueTool): boolean => isComposite(tool.operation) || tool.operation.pagination !== undefined;

/** An MCP server (not yet connected to a transport) with one tool per catalogue operation of its scope. */
export function createServer(options: ServerOptions): Server {
	const tools = options.tools ?? selectTools(catalogueTools(options.operations));
	const confirm = options.confirm !== false;
	const links = options.links ?? new FileLinks({ timing: options.executor.timing });
	const tasks = options.tasks ?? new ToolTasks();
	const byName = new Map(tools.map((tool) => [tool.name, tool]));
	const server = new Server(
		{ name: SERVER_NAME, version: options.version, title: 'Chat Messaging' },
		{
			capabilities: { tools: {}, resources: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
			taskStore: tasks,
			instructions:
				'Tools for the Chat Messaging Service: chats, messages, labels, notes, files, webhooks and the workspace. ' +
				'List tools return items and, when more follow, nextCursor to pass back as cursor.',
		},
	);
	server.setRequestHandler(ListToolsRequestSchema, () => ({
		tools: tools.map((tool) => {
			const { name, title, description, inputSchema, outputSchema, annotations } = tool;
			return {
				name,
				title,
				description,
				inputSchema,
				outputSchema,
				annotations,
				...(runsAsTask(tool) ? { execution: { taskSupport: 'optional' as const } } : {}),
			};
		}),
	}));
	// The resources are the downloads handed out as links, each readable until it expires.
	server.setRequestHandler(ListResourcesRequestSchema, () => ({
		resources: links.list().map(({ uri, name, mimeType, size, expiresAt }) => ({
			uri,
			name,
			mimeType,
			size,
			description: `A downloaded file, readable until ${expiresAt}`,
		})),
	}));
	server.setRequestHandler(ReadResourceRequestSchema, (request) => {
		const { uri } = request.params;
		const file = links.read(uri);
		// Invalid params, as the TypeScript SDK answers it and SEP-2164 settles it (not the older -32002).
		if (!file)
			throw protocolError(
				ErrorCode.InvalidParams,
				`Resource not found: ${uri} is no file link of this server, or it has expired; download the file again`,
				{
					uri,
				},
			);
		return { contents: [{ uri, mimeType: file.mimeType, blob: base64(file.data) }] };
	});
	server.setRequestHandler(AnyCallToolRequestSchema, async (anyRequest, extra) => {
		// Checked by the SDK (Server's tools/call wrapper) before this runs.
		const request = CallToolRequestSchema.parse(anyRequest);
		const tool = byName.get(request.params.name);
		// A name the server has no tool of is the protocol's invalid params, not a tool's error (the tool never ran).
		if (!tool)
			throw protocolError(
				ErrorCode.InvalidParams,
				`Unknown tool: ${JSON.stringify(request.params.name)}; list the tools to see their names`,
				{
					name: request.params.name,
				},
			);
		if (confirm && needsConfirmation(tool.operation) && server.getClientCapabilities()?.elicitation?.form) {
			let allowed: boolean;
			try {
				allowed = await confirmed(server, tool, request.params.arguments, extra.signal);
			} catch (error) {
				return toolError(
					new ChatMessagingError(`The user could not be asked to confirm: ${(error as Error).message}. Nothing was changed`, {
						kind: 'input',
					}),
				);
			}
			if (!allowed)
				return {
					isError: true,
					content: [
						{ type: 'text', text: `The user did not confirm ${tool.name}: nothing was changed. Do not retry unless the user asks for it.` },
					],
				};
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
