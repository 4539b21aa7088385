/** The server's prompts, listed and got by name, the same on either revision. */
import type { Executor } from '@chat-messaging/core';
import { INVALID_PARAMS, RequestRefusal } from '../calls/errors';
import { DRAFT_REPLY_PROMPT, getDraftReplyPrompt } from './draftReply';

export const PROMPTS = [DRAFT_REPLY_PROMPT];

/** prompts/get: the prompt by its name, for the caller's workspace; invalid params for a name the server has no prompt of. */
export async function getPrompt(executor: Executor, name: string, args: Record<string, unknown> | undefined) {
	if (name !== DRAFT_REPLY_PROMPT.name) return new RequestRefusal(INVALID_PARAMS, `Unknown prompt: ${JSON.stringify(name)}`, { name });
	return getDraftReplyPrompt(executor, args);
}
