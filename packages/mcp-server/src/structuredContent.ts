/**
 * An operation's result as a tool returns it to an agent: MCP's `structuredContent`, which must be an object. The
 * shape is written once here and described by outputSchemas.ts (what a tool's outputSchema promises).
 */
import { isRecord, type DownloadedFile } from '@chat-messaging/core';

/** The members a list tool's result holds: the records, and where the next ones start when more follow. */
export const TOOL_LIST_ITEMS = 'items';
export const TOOL_LIST_NEXT_CURSOR = 'nextCursor';
/** The member a result that is neither a record nor a list is put in. */
const TOOL_VALUE = 'result';

/** A downloaded file (File → Download): its bytes travel beside the structured result, not in it. */
export function isDownloadedFile(value: unknown): value is DownloadedFile {
	return isRecord(value) && value.data instanceof Uint8Array && typeof value.filename === 'string';
}

/**
 * What a tool says about a download in its structured result: the file's name, type, size and record, not its
 * bytes; for a file handed out as a link (resources/fileLinks.ts), where to read it and until when.
 */
export function describeDownload(file: DownloadedFile, link?: { uri: string; expiresAt: string }): Record<string, unknown> {
	const { data, ...about } = file;
	return { ...about, size: data.length, ...(link ? { uri: link.uri, expiresAt: link.expiresAt } : {}) };
}

/**
 * A result as a tool's structured content: a record as it is, a list as `{items}`, a download described
 * (describeDownload), anything else (a bare value, or nothing) as `{result}`.
 */
export function toolStructuredContent(result: unknown): Record<string, unknown> {
	if (isDownloadedFile(result)) return describeDownload(result);
	if (isRecord(result)) return result;
	if (Array.isArray(result)) return { [TOOL_LIST_ITEMS]: result };
	return { [TOOL_VALUE]: result ?? null };
}

/** One part of a long list: its records and, when more follow, the cursor to pass back for them. */
export function toolListResult(items: readonly unknown[], nextCursor?: string): Record<string, unknown> {
	return { [TOOL_LIST_ITEMS]: items, ...(nextCursor ? { [TOOL_LIST_NEXT_CURSOR]: nextCursor } : {}) };
}
