/**
 * The server for protocol revision 2026-07-28, on the MCP SDK's v2 (@modelcontextprotocol/server): every request
 * stands alone (no session, the client's capabilities in the request's own `_meta`), so the server is built per
 * request (or per stdio connection) from its caller's parts. What a request does is written once (calls/pipeline.ts,
 * resources/read.ts, prompts/prompts.ts); this file gives v2's ways: a confirmation is the revision's input-required
 * result (the form goes back as the call's answer and the client calls again with the user's answer in
 * inputResponses); a task is the tasks extension's (2026-07-28-tasks.ts); a cancel (notifications/cancelled, or over
 * HTTP a closed response stream) aborts the call's signal, which stops a wait as it does on 2025-11-25.
 */
import {
	inputRequired,
	inputResponse,
	ProtocolError,
	Server,
	type InputRequiredResult,
	type ListToolsResult,
	type ServerContext,
} from '@modelcontextprotocol/server';
import * as z from 'zod';

import { isRecord } from '@chat-messaging/core';
import { RequestRefusal } from '../calls/errors';
import { answerToolCall } from '../calls/pipeline';
import type { TaskRecord } from '../calls/taskStore';
import { getPrompt, PROMPTS } from '../prompts/prompts';
import { listedResources } from '../resources/linkedFiles';
import { readResource, RESOURCE_TEMPLATES } from '../resources/read';
import { listedTools, SERVER_INFO, SERVER_INSTRUCTIONS, type ServerParts } from './common';
import { clientCapabilitiesOf, registerTasks, taskHook, TASKS_EXTENSION, type TaskAnswer } from './2026-07-28-tasks';

/** The key of the confirmation among a call's input requests (and of the user's answer among its input responses). */
const CONFIRMATION_KEY = 'confirm';

const either = (signals: Array<AbortSignal | undefined>): AbortSignal => AbortSignal.any(signals.filter((signal) => signal !== undefined));

/** The answer, or the refusal thrown as the SDK's protocol error. */
function answered<T>(outcome: T | RequestRefusal): T {
	if (outcome instanceof RequestRefusal) throw new ProtocolError(outcome.code, outcome.message, outcome.data);
	return outcome;
}

/**
 * tools/call's params as the handler reads them. Registered with its own schema (the SDK checks the request against
 * the revision's tools/call first), so the handler may answer a task as well as a tool's result.
 */
const CallParams = z.looseObject({
	name: z.string(),
	arguments: z.record(z.string(), z.unknown()).optional(),
	_meta: z.looseObject({ progressToken: z.union([z.string(), z.number()]).optional() }).optional(),
});

/**
 * The 2026-07-28 server of one caller's parts; `closed` is aborted when the HTTP client closes the response stream (the
 * call stops as if cancelled).
 */
export function server2026(parts: ServerParts, closed?: AbortSignal): Server {
	const server = new Server(SERVER_INFO(parts.version), {
		capabilities: { tools: {}, resources: {}, prompts: {}, extensions: { [TASKS_EXTENSION]: {} } },
		instructions: SERVER_INSTRUCTIONS,
	});
	// The tools' JSON Schemas are the catalogue's, typed loosely (JsonSchema); the SDK's type spells JSON out.
	server.setRequestHandler('tools/list', () => ({ tools: listedTools(parts) as ListToolsResult['tools'] }));
	server.setRequestHandler('resources/list', () => ({ resources: listedResources(parts.links) }));
	server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
	server.setRequestHandler('prompts/list', () => ({ prompts: PROMPTS }));
	server.setRequestHandler('prompts/get', async ({ params }) => answered(await getPrompt(parts.executor, params.name, params.arguments)));
	server.setRequestHandler('resources/read', async ({ params }) => answered(await readResource(parts, params.uri)));
	server.setRequestHandler('tools/call', { params: CallParams }, async ({ name, arguments: args, _meta }, ctx: ServerContext) => {
		const task = taskHook(parts, ctx);
		const outcome = await answerToolCall<InputRequiredResult | TaskAnswer, TaskRecord>(
			parts,
			{ name, args, progressToken: _meta?.progressToken },
			{
				signal: either([ctx.mcpReq.signal, closed]),
				notify: (notification) => ctx.mcpReq.notify(notification),
				// Asked by answering: the form goes back as an input-required result, the user's answer comes with the next call.
				...(isRecord(clientCapabilitiesOf(ctx).elicitation)
					? {
							ask: (form) => {
								const answer = inputResponse(ctx.mcpReq.inputResponses, CONFIRMATION_KEY);
								if (answer.kind === 'missing')
									return Promise.resolve({ pending: inputRequired({ inputRequests: { [CONFIRMATION_KEY]: inputRequired.elicit(form) } }) });
								return Promise.resolve(answer.kind === 'elicit' ? answer : undefined);
							},
						}
					: {}),
				...(task ? { task } : {}),
			},
		);
		return answered(outcome);
	});
	registerTasks(server, parts);
	return server;
}
