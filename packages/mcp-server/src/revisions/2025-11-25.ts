/**
 * The server for protocol revision 2025-11-25, on the MCP SDK's v1 (@modelcontextprotocol/sdk). v1 stays for this
 * revision because the v2 SDK has no runtime for its tasks: v2 answers a 2025-11-25 client's tools/call only with a
 * CallToolResult (a task result is refused as "content is required when the body carries 'task'") and offers
 * tasks/get, tasks/result, tasks/list and tasks/cancel to no handler of its typed surface (see the README's Protocol revisions).
 * What a request does is written once (calls/pipeline.ts, resources/read.ts, prompts/prompts.ts); this file gives
 * v1's ways: elicitation within the call (the confirmation), a task the client asks for, progress and cancel over a
 * session or stdio, and v1's protocol errors.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
	CallToolRequestSchema,
	GetPromptRequestSchema,
	ListPromptsRequestSchema,
	ListResourcesRequestSchema,
	ListResourceTemplatesRequestSchema,
	ListToolsRequestSchema,
	ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

import { RequestRefusal } from '../calls/errors';
import { answerToolCall } from '../calls/pipeline';
import { TASK_POLL_INTERVAL_MS, TASK_TTL_MS } from '../calls/tasks';
import { getPrompt, PROMPTS } from '../prompts/prompts';
import { listedResources } from '../resources/linkedFiles';
import { readResource, RESOURCE_TEMPLATES } from '../resources/read';
import { sdkTaskStore } from './2025-11-25-tasks';
import { listedTools, SERVER_INFO, SERVER_INSTRUCTIONS, serverParts, type ServerOptions, type ServerParts } from './common';

/**
 * The answer, or the refusal thrown as the SDK sends a JSON-RPC error (its code, message and data); unlike McpError,
 * whose message starts "MCP error <code>: ", which the client's McpError then prefixes once more.
 */
function answered<T>(outcome: T | RequestRefusal): T {
	if (outcome instanceof RequestRefusal) throw Object.assign(new Error(outcome.message), { code: outcome.code, data: outcome.data });
	return outcome;
}

/**
 * tools/call as the handler is registered: any params (made from the SDK's own schema, so of the SDK's zod), so a request that is not a tools/call (arguments that are no
 * object) reaches the SDK's own check of CallToolRequestSchema, which answers invalid params (-32602) rather than
 * the internal error (-32603) a failed parse of the handler's schema gives.
 */
const AnyCallToolRequestSchema = CallToolRequestSchema.pick({ method: true }).passthrough();

/** A 2025-11-25 server (not yet connected to a transport) with one tool per catalogue operation of its scope. */
export const createServer = (options: ServerOptions): Server => server2025(serverParts(options));

/** The 2025-11-25 server of one caller's parts. */
export function server2025(parts: ServerParts): Server {
	const server = new Server(SERVER_INFO(parts.version), {
		capabilities: { tools: {}, resources: {}, prompts: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
		taskStore: sdkTaskStore(parts.tasks, parts.owner),
		instructions: SERVER_INSTRUCTIONS,
	});
	server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listedTools(parts) }));
	server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: listedResources(parts.links) }));
	server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
	server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: PROMPTS }));
	server.setRequestHandler(GetPromptRequestSchema, async ({ params }) =>
		answered(await getPrompt(parts.executor, params.name, params.arguments)),
	);
	server.setRequestHandler(ReadResourceRequestSchema, async ({ params }) => answered(await readResource(parts, params.uri)));
	server.setRequestHandler(AnyCallToolRequestSchema, async (anyRequest, extra) => {
		// Checked by the SDK (Server's tools/call wrapper) before this runs.
		const { name, arguments: args, task: asTask, _meta } = CallToolRequestSchema.parse(anyRequest).params;
		const taskStore = extra.taskStore;
		const outcome = await answerToolCall(
			parts,
			{ name, args, progressToken: _meta?.progressToken },
			{
				signal: extra.signal,
				notify: extra.sendNotification,
				// Asked within the call: the client answers the elicitation, then the call goes on.
				...(server.getClientCapabilities()?.elicitation?.form ? { ask: (form) => server.elicitInput(form, { signal: extra.signal }) } : {}),
				// A task when the client asks for one, kept through the request's store (which tells the session its status).
				...(asTask && taskStore
					? {
							task: () => ({
								create: () => taskStore.createTask({ ttl: asTask.ttl ?? TASK_TTL_MS, pollInterval: TASK_POLL_INTERVAL_MS }),
								store: (taskId, status, result) => taskStore.storeTaskResult(taskId, status, result),
								answer: (task) => ({ task }),
							}),
						}
					: {}),
			},
		);
		return answered(outcome);
	});
	return server;
}
