/**
 * The server for protocol revision 2026-07-28, on the MCP SDK's v2 (@modelcontextprotocol/server): every request
 * stands alone (no session, the client's capabilities in the request's own `_meta`), so the server is built per
 * request (or per stdio connection) from the same tools, the same executor, file links and tasks as the 2025-11-25
 * server. A confirmation is the revision's input-required result: the form goes back as the call's answer and the
 * client calls again with the user's answer in inputResponses. A cancel (notifications/cancelled, or over HTTP a
 * closed response stream) aborts the call's signal, which stops a wait as it does on 2025-11-25.
 */
import {
	inputRequired,
	inputResponse,
	ProtocolError,
	ProtocolErrorCode,
	Server,
	type ListToolsResult,
	type ServerContext,
} from '@modelcontextprotocol/server';
import * as z from 'zod';

import { isRecord, needsConfirmation } from '@chat-messaging/core';
import { callTool } from '../calls/callTool';
import { confirmationForm, isConfirmation, notConfirmed } from '../calls/confirmation';
import { unknownTool } from '../calls/errors';
import { progressReporter } from '../calls/progress';
import { DRAFT_REPLY_PROMPT, getDraftReplyPrompt } from '../prompts/draftReply';
import {
	CONVERSATION_RESOURCE_TEMPLATE,
	conversationChatId,
	readConversationResource,
	type ResourceFailure,
} from '../resources/conversation';
import { linkedFileContents, listedResources } from '../resources/linkedFiles';
import { listedTool, SERVER_INFO, SERVER_INSTRUCTIONS, serverParts, type ServerOptions } from './common';
import { clientCapabilitiesOf, registerTasks, runsAsTaskFor, startTask, TASKS_EXTENSION } from './2026-07-28-tasks';

/** The key of the confirmation among a call's input requests (and of the user's answer among its input responses). */
const CONFIRMATION_KEY = 'confirm';

export interface Server2026Options extends ServerOptions {
	/** Aborted when the HTTP client closes the response stream: the call stops as if cancelled. */
	closed?: AbortSignal;
}

const either = (signals: Array<AbortSignal | undefined>): AbortSignal => AbortSignal.any(signals.filter((signal) => signal !== undefined));

/**
 * tools/call's params as the handler reads them. Registered with its own schema (the SDK checks the request against
 * the revision's tools/call first), so the handler may answer a task as well as a tool's result.
 */
const CallParams = z.looseObject({
	name: z.string(),
	arguments: z.record(z.string(), z.unknown()).optional(),
	_meta: z.looseObject({ progressToken: z.union([z.string(), z.number()]).optional() }).optional(),
});

const failedRead = (failure: ResourceFailure): Error =>
	new ProtocolError(
		failure.invalidParams ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError,
		failure.message,
		failure.data,
	);

/** A 2026-07-28 server (v2 SDK, low-level) with one tool per catalogue operation of its scope. */
export function createServer2026(options: Server2026Options): Server {
	const { tools, byName, confirm, links, tasks, ownedTasks } = serverParts(options);
	const server = new Server(SERVER_INFO(options.version), {
		capabilities: { tools: {}, resources: {}, prompts: {}, extensions: { [TASKS_EXTENSION]: {} } },
		instructions: SERVER_INSTRUCTIONS,
	});
	// The tools' JSON Schemas are the catalogue's, typed loosely (JsonSchema); the SDK's type spells JSON out.
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
	server.setRequestHandler('tools/call', { params: CallParams }, async ({ name, arguments: args, _meta }, ctx: ServerContext) => {
		const tool = byName.get(name);
		if (!tool) {
			const unknown = unknownTool(name);
			throw new ProtocolError(ProtocolErrorCode.InvalidParams, unknown.message, unknown.data);
		}
		if (confirm && needsConfirmation(tool.operation) && isRecord(clientCapabilitiesOf(ctx).elicitation)) {
			const answer = inputResponse(ctx.mcpReq.inputResponses, CONFIRMATION_KEY);
			if (answer.kind === 'missing')
				return inputRequired({ inputRequests: { [CONFIRMATION_KEY]: inputRequired.elicit(confirmationForm(tool, args)) } });
			if (answer.kind !== 'elicit' || !isConfirmation(answer)) return notConfirmed(tool);
		}
		if (runsAsTaskFor(tool, args, ctx))
			return startTask(ownedTasks, tasks, (taskSignal) => callTool(options.executor, tool, args, { links, signal: taskSignal }));
		const signal = either([ctx.mcpReq.signal, options.closed]);
		const onProgress = progressReporter(_meta?.progressToken, (notification) => ctx.mcpReq.notify(notification));
		return callTool(options.executor, tool, args, { links, signal, ...(onProgress ? { onProgress } : {}) });
	});
	registerTasks(server, ownedTasks);
	return server;
}
