/**
 * A call's answer as the protocol carries it, the same on either revision: structuredContent as
 * structuredContent.ts wraps it (the shape the tool's outputSchema describes), and the same as text for clients that
 * read only content. A download's bytes go beside it, as an image or an embedded resource; above the inline limit
 * they are kept (resources/fileLinks.ts) and the result holds a resource_link to read them through resources/read.
 */
import type { DownloadedFile } from '@chat-messaging/core';
import { describeDownload, isDownloadedFile, toolStructuredContent } from '../structuredContent';
import { markedResult } from './untrusted';

type Content =
	| { type: 'text'; text: string }
	| { type: 'image'; data: string; mimeType: string }
	| { type: 'resource'; resource: { uri: string; mimeType: string; blob: string } }
	| { type: 'resource_link'; uri: string; name: string; mimeType: string; description: string };

/** What tools/call answers: written here once, the SDKs' own types on either side accept it. */
export interface ToolResult {
	[member: string]: unknown;
	content: Content[];
	structuredContent?: Record<string, unknown>;
	isError?: boolean;
}

/** A kept file as a result names it: where to read it, until when, and what it is. */
export interface FileLink {
	uri: string;
	name: string;
	mimeType: string;
	size: number;
	/** ISO time after which the link reads nothing. */
	expiresAt: string;
}

/** Where a download too large to return inline is kept for resources/read (resources/fileLinks.ts keeps them). */
export interface DownloadLinks {
	/** Whether a download goes out as a link rather than inline. */
	linksFile(file: Pick<DownloadedFile, 'data'>): boolean;
	/** Keeps the file and returns its link. */
	keep(file: DownloadedFile): FileLink;
}

export const base64 = (data: Uint8Array) => Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');

export function toolResult(result: unknown, links?: DownloadLinks): ToolResult {
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
	// What a customer wrote comes back marked as their words (untrusted.ts).
	if (!isDownloadedFile(result)) return markedResult(structured);
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
