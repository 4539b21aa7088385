/**
 * Failures as the client sees them. A tool's failure (bad input, a service error) is a tool error (`isError: true`)
 * the model can read and act on, its argument named as the tool names it; a request the server does not take (a tool
 * or a link it does not have, a tool outside the caller's scope) is a RequestRefusal, which each revision throws as its
 * SDK's protocol error, in the words written here for both.
 */
import { ChatMessagingError } from '@chat-messaging/core';
import { scopeFor, type ToolScope } from '../scopes';
import type { CatalogueTool } from '../tools';
import type { ToolResult } from './results';

/**
 * The message with the field named as the tool names its argument (chat_id), not by the editors' label (Chat ID);
 * a message that already starts with the argument ("chat_id 42: not found") keeps its words.
 */
function namedByArgument(error: ChatMessagingError): string {
	const { field, label, message } = error;
	if (!field) return message;
	if (label !== undefined && message.startsWith(`${label}: `)) return `${field}: ${message.slice(label.length + 2)}`;
	return message.startsWith(`${field}:`) || message.startsWith(`${field} `) ? message : `${field}: ${message}`;
}

/** The error as the model sees it: its message, the argument named as the tool names it, and its details. */
export function toolError(error: unknown): ToolResult {
	if (!(error instanceof ChatMessagingError)) {
		const message = error instanceof Error ? error.message : String(error);
		return { isError: true, content: [{ type: 'text', text: `Internal error of the MCP server: ${message}` }] };
	}
	const message = namedByArgument(error);
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

/** JSON-RPC's codes of a refusal, the same in both SDKs. */
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

/**
 * A request the server does not take: its JSON-RPC code, message and data, thrown by each revision as its SDK's
 * protocol error. A refusal for the caller's scope also names the least scope that would allow the call
 * (`insufficientScope`), so a transport that grants access by OAuth can answer it as HTTP 403 insufficient_scope
 * with that scope (admitCall in pipeline.ts gives the same refusal before a request reaches a server).
 */
export class RequestRefusal {
	constructor(
		readonly code: typeof INVALID_PARAMS | typeof INTERNAL_ERROR,
		readonly message: string,
		readonly data: Record<string, unknown>,
		readonly insufficientScope?: { tool: string; scope: ToolScope },
	) {}
}

const unknownToolMessage = (name: unknown) => `Unknown tool: ${JSON.stringify(name)}; list the tools to see their names`;

/** A name the server has no tool of: the protocol's invalid params, not a tool's error (the tool never ran). */
export const unknownTool = (name: unknown): RequestRefusal => new RequestRefusal(INVALID_PARAMS, unknownToolMessage(name), { name });

/**
 * A tool of the catalogue the caller's scope does not give. On the wire it reads as any unknown tool (a client with
 * no way to widen its access has no such tool: the same answer as before scopes could be widened); a transport that
 * can widen access reads insufficientScope.
 */
export const outsideScope = (tool: CatalogueTool): RequestRefusal =>
	new RequestRefusal(INVALID_PARAMS, unknownToolMessage(tool.name), { name: tool.name }, { tool: tool.name, scope: scopeFor(tool) });
