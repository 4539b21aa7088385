/**
 * The server for protocol revision 2026-07-28, on the MCP SDK's v2 (@modelcontextprotocol/server): every request
 * stands alone (no session, the client's capabilities in the request's own `_meta`), so the server is built per
 * request (or per stdio connection) from the same tools, the same executor, file links and tasks as the 2025-11-25
 * server. A confirmation is the revision's input-required result: the form goes back as the call's answer and the
 * client calls again with the user's answer in inputResponses. A cancel (notifications/cancelled, or over HTTP a
 * closed response stream) aborts the call's signal, which stops a wait as it does on 2025-11-25.
 */
import {
	CLIENT_CAPABILITIES_META_KEY,
	inputRequired,
	inputResponse,
	ProtocolError,
	ProtocolErrorCode,
	Server,
	type CallToolResult,
	type ListToolsResult,
	type ServerContext,
} from '@modelcontextprotocol/server';

import { FileLinks, isRecord, needsConfirmation } from '@chat-messaging/core';
import { confirmationForm, isConfirmation, notConfirmed } from './confirm';
import { linkedFileContents, listedResources, listedTool, unknownTool } from './listing';
import { registerModernTasks, runsAsModernTask, startModernTask, TASKS_EXTENSION } from './modernTasks';
import { selectTools } from './scopes';
import { ownedTasks, taskOwnerOf } from './taskOwner';
import { ToolTasks } from './tasks';
import { callTool, progressReporter, SERVER_INFO, SERVER_INSTRUCTIONS, type ServerOptions } from './server';
import { catalogueTools } from './tools';
import { CONVERSATION_RESOURCE_TEMPLATE, conversationChatId, readConversationResource, type ResourceFailure } from './conversationResource';
import { DRAFT_REPLY_PROMPT, getDraftReplyPrompt } from './draftReplyPrompt';

/** The key of the confirmation among a call's input requests (and of the user's answer among its input responses). */
const CONFIRMATION_KEY = 'confirm';

export interface ModernServerOptions extends ServerOptions {
	/** Aborted when the HTTP client closes the response stream: the call stops as if cancelled. */
	closed?: AbortSignal;
}

const either = (signals: Array<AbortSignal | undefined>): AbortSignal => AbortSignal.any(signals.filter((signal) => signal !== undefined));

const failedRead = (failure: ResourceFailure): Error =>
	new ProtocolError(
		failure.invalidParams ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError,
		failure.message,
		failure.data,
	);

/** A 2026-07-28 server (v2 SDK, low-level) with one tool per catalogue operation of its scope. */
export function createModernServer(options: ModernServerOptions): Server {
	const tools = options.tools ?? selectTools(catalogueTools(options.operations));
	const confirm = options.confirm !== false;
	const links = options.links ?? new FileLinks({ timing: options.executor.timing });
	const tasks = options.tasks ?? new ToolTasks();
	const store = ownedTasks(tasks, options.taskOwner ?? taskOwnerOf(undefined));
	const byName = new Map(tools.map((tool) => [tool.name, tool]));
	const server = new Server(SERVER_INFO(options.version), {
		capabilities: { tools: {}, resources: {}, prompts: {}, extensions: { [TASKS_EXTENSION]: {} } },
		instructions: SERVER_INSTRUCTIONS,
	});
	server.setRequestHandler('tools/list', () => ({ tools: tools.map((tool) => listedTool(tool, options)) as ListToolsResult['tools'] }));
	server.setRequestHandler('resources/list', () => ({ resources: listedResources(links) }));
	// The links are handed out whole; the template is the conversation of a chat (conversationResource.ts).
	server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: [CONVERSATION_RESOURCE_TEMPLATE] }));
	server.setRequestHandler('prompts/list', () => ({ prompts: [DRAFT_REPLY_PROMPT] }));
	server.setRequestHandler('prompts/get', async (request) => {
		if (request.params.name !== DRAFT_REPLY_PROMPT.name)
			throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${JSON.stringify(request.params.name)}`, {
				name: request.params.name,
			});
		const prompt = await getDraftReplyPrompt(options.executor, request.params.arguments);
		if ('failed' in prompt) throw failedRead(prompt.failed);
		return prompt;
	});
	server.setRequestHandler('resources/read', async (request) => {
		if (conversationChatId(request.params.uri) !== undefined) {
			const read = await readConversationResource(options.executor, request.params.uri);
			if ('failed' in read) throw failedRead(read.failed);
			return read;
		}
		const contents = linkedFileContents(links, request.params.uri);
		if ('notFound' in contents) throw new ProtocolError(ProtocolErrorCode.InvalidParams, contents.notFound.message, contents.notFound.data);
		return contents;
	});
	server.setRequestHandler('tools/call', async (request, ctx: ServerContext) => {
		const { name, arguments: args } = request.params;
		const tool = byName.get(name);
		if (!tool) {
			const unknown = unknownTool(name);
			throw new ProtocolError(ProtocolErrorCode.InvalidParams, unknown.message, unknown.data);
		}
		// The client's capabilities come with each request, in its envelope.
		const client = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY];
		const canAsk = isRecord(client) && isRecord(client.elicitation);
		if (confirm && needsConfirmation(tool.operation) && canAsk) {
			const answer = inputResponse(ctx.mcpReq.inputResponses, CONFIRMATION_KEY);
			if (answer.kind === 'missing')
				return inputRequired({ inputRequests: { [CONFIRMATION_KEY]: inputRequired.elicit(confirmationForm(tool, args)) } });
			if (answer.kind !== 'elicit' || !isConfirmation(answer)) return notConfirmed(tool);
		}
		const signal = either([ctx.mcpReq.signal, options.closed]);
		if (runsAsModernTask(tool, args, ctx))
			return (await startModernTask(store, tasks, (taskSignal) =>
				callTool(options.executor, tool, args, { links, signal: taskSignal }),
			)) as never;
		const onProgress = progressReporter(request.params._meta?.progressToken, (notification) => ctx.mcpReq.notify(notification));
		return (await callTool(options.executor, tool, args, { links, signal, ...(onProgress ? { onProgress } : {}) })) as CallToolResult;
	});
	registerModernTasks(server, store);
	return server;
}
