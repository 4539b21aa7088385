/**
 * resources/read, the same on either revision: the conversation of a chat (the template's URIs) or a file link the
 * caller was handed, else invalid params.
 */
import type { Executor } from '@chat-messaging/core';
import type { RequestRefusal } from '../calls/errors';
import { CONVERSATION_RESOURCE_TEMPLATE, conversationChatId, readConversationResource } from './conversation';
import type { OwnedLinks } from './fileLinks';
import { linkedFileContents } from './linkedFiles';

/** The resource templates the server lists. */
export const RESOURCE_TEMPLATES = [CONVERSATION_RESOURCE_TEMPLATE];

/** The resource a URI names, read in the caller's workspace and among its links; or why not. */
export async function readResource(
	parts: { executor: Executor; links: Pick<OwnedLinks, 'read'> },
	uri: string,
): Promise<
	{ contents: Array<{ uri: string; mimeType: string; text: string } | { uri: string; mimeType: string; blob: string }> } | RequestRefusal
> {
	if (conversationChatId(uri) !== undefined) return readConversationResource(parts.executor, uri);
	return linkedFileContents(parts.links, uri);
}
