/**
 * What both revisions answer the same way, whichever SDK serves them: the tools as tools/list shows them, the file
 * links as resources, a link read, and the words of the protocol errors (unknown tool, unknown link).
 */
import { isComposite, type FileLinks } from '@chat-messaging/core';
import type { CatalogueTool } from './tools';

export const base64 = (data: Uint8Array) => Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');

/** Whether a tool may run as a task: the ones that can take long (a wait, many pages). */
export const runsAsTask = (tool: CatalogueTool): boolean => isComposite(tool.operation) || tool.operation.pagination !== undefined;

/** Whether tools/list carries each tool's outputSchema (on unless the server is told to leave them out, to save a model's tokens). */
export interface ListingOptions {
	outputSchemas?: boolean;
}

/** A tool as tools/list shows it. */
export function listedTool(tool: CatalogueTool, listing: ListingOptions = {}) {
	const { name, title, description, inputSchema, outputSchema, annotations } = tool;
	return {
		name,
		title,
		description,
		inputSchema,
		...(listing.outputSchemas === false ? {} : { outputSchema }),
		annotations,
		...(runsAsTask(tool) ? { execution: { taskSupport: 'optional' as const } } : {}),
	};
}

/** The downloads handed out as links, each readable until it expires. */
export const listedResources = (links: FileLinks) =>
	links.list().map(({ uri, name, mimeType, size, expiresAt }) => ({
		uri,
		name,
		mimeType,
		size,
		description: `A downloaded file, readable until ${expiresAt}`,
	}));

/** A protocol error's words: invalid params (-32602), its message and data. */
export interface InvalidParams {
	message: string;
	data: Record<string, unknown>;
}

/** resources/read of a link: its bytes, or why not (invalid params, as SEP-2164 settles it, not the older -32002). */
export function linkedFileContents(
	links: FileLinks,
	uri: string,
): { contents: Array<{ uri: string; mimeType: string; blob: string }> } | { notFound: InvalidParams } {
	const file = links.read(uri);
	if (!file)
		return {
			notFound: {
				message: `Resource not found: ${uri} is no file link of this server, or it has expired; download the file again`,
				data: { uri },
			},
		};
	return { contents: [{ uri, mimeType: file.mimeType, blob: base64(file.data) }] };
}

/** A name the server has no tool of: the protocol's invalid params, not a tool's error (the tool never ran). */
export const unknownTool = (name: unknown): InvalidParams => ({
	message: `Unknown tool: ${JSON.stringify(name)}; list the tools to see their names`,
	data: { name },
});
