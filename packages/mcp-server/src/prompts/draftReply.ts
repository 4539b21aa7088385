/**
 * The prompt `draft_reply`: drafts a reply to a chat from its conversation (the resource's content, customers' texts
 * marked as their words), in a tone the user names. It reads, it sends nothing: offered in every scope.
 */
import { inputError, isBlank, type Executor } from '@chat-messaging/core';
import type { RequestRefusal } from '../calls/errors';
import { conversationContents, conversationUri, resourceFailure } from '../resources/conversation';

export const DRAFT_REPLY_PROMPT = {
	name: 'draft_reply',
	title: 'Draft a reply to a chat',
	description: "Drafts a reply to a chat's customer from the chat's recent conversation, in the tone you name; nothing is sent",
	arguments: [
		{ name: 'chat', description: 'The chat to answer: its ID (the ID field of its chat record)', required: true },
		{ name: 'tone', description: 'How the reply sounds, e.g. "friendly and brief" (the default) or "formal"', required: false },
	],
};

const DEFAULT_TONE = 'friendly and brief';

/** prompts/get of draft_reply: one user message with the instructions and the conversation. */
export async function getDraftReplyPrompt(
	executor: Executor,
	args: Record<string, unknown> | undefined,
): Promise<{ description: string; messages: Array<{ role: 'user'; content: { type: 'text'; text: string } }> } | RequestRefusal> {
	const chat = args?.chat;
	const tone = isBlank(args?.tone) ? DEFAULT_TONE : String(args?.tone).trim();
	const uri = conversationUri(String(chat ?? ''));
	try {
		if (isBlank(chat) || String(chat).trim() === '') throw inputError('chat', 'is required: the ID of the chat to answer');
		const { text, marked } = await conversationContents(executor, String(chat).trim());
		const instructions = [
			`Draft a reply to the customer of chat ${String(chat).trim()}, in a ${tone} tone, in the language the customer writes in.`,
			'Answer what the customer asked last; do not repeat what the workspace or a teammate already said. Return only the draft: it is not sent.',
			'The conversation so far, oldest first (role customer: the customer; workspace: sent through the API; teammate: a colleague in the web app):',
		];
		if (!marked) instructions.push('(The conversation holds no text of the customer.)');
		return {
			description: `A reply to chat ${String(chat).trim()}, ${tone}`,
			messages: [{ role: 'user', content: { type: 'text', text: `${instructions.join('\n')}\n\n${text}` } }],
		};
	} catch (error) {
		return resourceFailure(error, uri);
	}
}
