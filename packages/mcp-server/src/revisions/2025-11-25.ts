/**
 * The server for protocol revision 2025-11-25, on the MCP SDK's v1 (@modelcontextprotocol/sdk). v1 stays for this
 * revision because the v2 SDK has no runtime for its tasks: v2 answers a 2025-11-25 client's tools/call only with a
 * CallToolResult (a task result is refused as "content is required when the body carries 'task'") and offers
 * tasks/get, tasks/result, tasks/list and tasks/cancel to no handler of its typed surface (see the README's Protocol revisions).
 * Elicitation within a call (the confirmation), progress and cancel are v1's, over a session or stdio.
 */
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
} from '@modelcontextprotocol/sdk/types.js';

import { needsConfirmation } from '@chat-messaging/core';
import { callTool } from '../calls/callTool';
import { confirmationForm, couldNotAsk, isConfirmation, notConfirmed } from '../calls/confirmation';
import { toolError, unknownTool } from '../calls/errors';
import { progressReporter } from '../calls/progress';
import { runsAsTask, startToolTask, TASK_POLL_INTERVAL_MS, TASK_TTL_MS } from '../calls/tasks';
import { DRAFT_REPLY_PROMPT, getDraftReplyPrompt } from '../prompts/draftReply';
import {
	CONVERSATION_RESOURCE_TEMPLATE,
	conversationChatId,
	readConversationResource,
	type ResourceFailure,
} from '../resources/conversation';
import { linkedFileContents, listedResources } from '../resources/linkedFiles';
import { listedTool, SERVER_INFO, SERVER_INSTRUCTIONS, serverParts, type ServerOptions } from './common';

/**
 * A JSON-RPC error as the SDK sends it (its code, message and data); unlike McpError, whose message starts "MCP error
 * <code>: ", which the client's McpError then prefixes once more.
 */
function protocolError(code: ErrorCode, message: string, data: Record<string, unknown>): Error {
	return Object.assign(new Error(message), { code, data });
}

/**
 * tools/call as the handler is registered: any params (made from the SDK's own schema, so of the SDK's zod), so a request that is not a tools/call (arguments that are no
 * object) reaches the SDK's own check of CallToolRequestSchema, which answers invalid params (-32602) rather than
 * the internal error (-32603) a failed parse of the handler's schema gives.
 */
const AnyCallToolRequestSchema = CallToolRequestSchema.pick({ method: true }).passthrough();

/** A conversation that could not be read: invalid params for a chat that is not there, an internal error otherwise. */
const failedRead = (failure: ResourceFailure): Error =>
	protocolError(failure.invalidParams ? ErrorCode.InvalidParams : ErrorCode.InternalError, failure.message, failure.data);

/** A 2025-11-25 server (not yet connected to a transport) with one tool per catalogue operation of its scope. */
export function createServer(options: ServerOptions): Server {
	const { tools, byName, confirm, links, tasks, ownedTasks } = serverParts(options);
	const server = new Server(SERVER_INFO(options.version), {
		capabilities: { tools: {}, resources: {}, prompts: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
		taskStore: ownedTasks,
		instructions: SERVER_INSTRUCTIONS,
	});
	server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map((tool) => listedTool(tool, options)) }));
	server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: listedResources(links) }));
	// The conversation of a chat (resources/conversation.ts) and the prompt that drafts a reply from it.
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
		const { name, arguments: args, task: asTask } = request.params;
		const tool = byName.get(name);
		if (!tool) {
			const unknown = unknownTool(name);
			throw protocolError(ErrorCode.InvalidParams, unknown.message, unknown.data);
		}
		if (confirm && needsConfirmation(tool.operation) && server.getClientCapabilities()?.elicitation?.form) {
			let allowed: boolean;
			try {
				allowed = isConfirmation(await server.elicitInput(confirmationForm(tool, args), { signal: extra.signal }));
			} catch (error) {
				return toolError(couldNotAsk(error));
			}
			if (!allowed) return notConfirmed(tool);
		}
		const taskStore = extra.taskStore;
		if (asTask && taskStore && runsAsTask(tool)) {
			const task = await startToolTask(
				{
					create: () => taskStore.createTask({ ttl: asTask.ttl ?? TASK_TTL_MS, pollInterval: TASK_POLL_INTERVAL_MS }),
					store: (taskId, status, result) => taskStore.storeTaskResult(taskId, status, result),
				},
				tasks,
				(signal) => callTool(options.executor, tool, args, { links, signal }),
			);
			return { task };
		}
		return callTool(options.executor, tool, args, {
			links,
			signal: extra.signal,
			onProgress: progressReporter(request.params._meta?.progressToken, extra.sendNotification),
		});
	});
	return server;
}
