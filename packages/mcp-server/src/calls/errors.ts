/**
 * Failures as the client sees them. A tool's failure (bad input, a service error) is a tool error (`isError: true`)
 * the model can read and act on, its argument named as the tool names it; a request the server cannot take (a tool
 * or a link it does not have) is the protocol's invalid params, whose words are written here for both revisions.
 */
import { ChatMessagingError } from '@chat-messaging/core';
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

/** A protocol error's words: invalid params (-32602), its message and data. */
export interface InvalidParams {
	message: string;
	data: Record<string, unknown>;
}

/** A name the server has no tool of: the protocol's invalid params, not a tool's error (the tool never ran). */
export const unknownTool = (name: unknown): InvalidParams => ({
	message: `Unknown tool: ${JSON.stringify(name)}; list the tools to see their names`,
	data: { name },
});
