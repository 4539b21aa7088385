/**
 * Get Conversation: a chat's recent conversation as the service holds it, for an AI agent's memory (n8n's
 * memory sub-node, Node-RED's event node, the MCP server's resource and prompt) and for anyone reading a
 * chat. A composite: it reads the chat and as many pages of its messages as the window needs
 * (runtime/composites/conversation.ts runs it), and returns one model every surface translates:
 *
 * - the window: the last `lastMessages` messages and/or those of the last `lastMinutes` minutes, oldest first;
 * - each message with a role: `customer` (inbound; in a group, the member who wrote it), `workspace` (sent
 *   through the API: a workflow, an agent), `teammate` (outbound but not through the API: a person in the web
 *   app, with their name); its text; its attachment described (file name and type, never the bytes);
 * - the messages a turn answers (its prompt) left out: by uid, or one message and every later one.
 */
import { chatId, field } from './fields';
import type { JsonSchema } from './records';
import type { Effect, FieldDescriptor, ResourceKey } from './types';

/** Who wrote a message of the conversation. */
export type ConversationRole = 'customer' | 'workspace' | 'teammate';

export const CONVERSATION_ROLES: readonly ConversationRole[] = ['customer', 'workspace', 'teammate'];

/** A file sent with a message, described: what an agent may know of it without the bytes. */
export interface ConversationAttachment {
	/** The file's name, null when the service gives none. */
	filename: string | null;
	/** The message type the service gives (`image`, `document`, `audio`, …), null when none. */
	type: string | null;
}

/** One message of the conversation. */
export interface ConversationMessage {
	message_uid: string;
	role: ConversationRole;
	/** Who wrote it: the customer (in a group, the member), the teammate; for the workspace, the sending account's name. */
	sender_name: string | null;
	sender_phone: string | null;
	/** The text; empty for a file sent alone. */
	text: string;
	attachment: ConversationAttachment | null;
	/** ISO 8601 UTC; null when the service gave no readable time. */
	timestamp: string | null;
}

/** A member of a group chat. */
export interface ConversationMember {
	name: string | null;
	phone: string | null;
}

/** What Get Conversation returns. */
export interface Conversation {
	chat_id: number | string;
	chat_name: string | null;
	is_group: boolean;
	/** A group's members (the chat record's `group_members`); empty for a one-to-one chat. */
	members: ConversationMember[];
	/** Oldest first. */
	messages: ConversationMessage[];
}

/** One message of the OpenAI chat-messages shape (what n8n's and Node-RED's OpenAI nodes take). */
export interface ChatModelMessage {
	role: 'user' | 'assistant';
	content: string;
}

/** The window when none is given: enough context for a reply, one page of the service's list. */
export const DEFAULT_CONVERSATION_MESSAGES = 20;
/** The most messages one window holds (ten pages of the service's 50): a bound on what one turn costs. */
export const MAX_CONVERSATION_MESSAGES = 500;

/** Get Conversation's inputs, by name (adapters name their parameters after these). */
export const conversationInputs = {
	chatId,
	lastMessages: field(
		'body',
		'lastMessages',
		'Last Messages',
		'integer',
		`How many of the latest messages; 0: no count limit (Last Minutes bounds it, at most ${MAX_CONVERSATION_MESSAGES})`,
		{ default: DEFAULT_CONVERSATION_MESSAGES, min: 0, max: MAX_CONVERSATION_MESSAGES },
	),
	lastMinutes: field('body', 'lastMinutes', 'Last Minutes', 'integer', 'Only messages of the last this many minutes; 0: any time', {
		default: 0,
		min: 0,
	}),
	excludeMessageUids: field(
		'body',
		'excludeMessageUids',
		'Exclude Message UIDs',
		'stringList',
		'Messages to leave out: those the turn answers (its prompt)',
	),
	excludeFromMessageUid: field(
		'body',
		'excludeFromMessageUid',
		'Exclude From Message UID',
		'string',
		'Leave out this message and every later one',
	),
} as const satisfies Record<string, FieldDescriptor>;

const nullable = (type: string): JsonSchema => ({ type: [type, 'null'] });

/** The JSON Schema of a Conversation (the MCP tool's output schema and the resource's content). */
export const CONVERSATION_SCHEMA: JsonSchema = {
	type: 'object',
	required: ['chat_id', 'chat_name', 'is_group', 'members', 'messages'],
	properties: {
		chat_id: { type: ['integer', 'string'] },
		chat_name: nullable('string'),
		is_group: { type: 'boolean' },
		members: {
			type: 'array',
			items: { type: 'object', required: ['name', 'phone'], properties: { name: nullable('string'), phone: nullable('string') } },
		},
		messages: {
			type: 'array',
			description: 'Oldest first',
			items: {
				type: 'object',
				required: ['message_uid', 'role', 'sender_name', 'sender_phone', 'text', 'attachment', 'timestamp'],
				properties: {
					message_uid: { type: 'string' },
					role: { enum: [...CONVERSATION_ROLES] },
					sender_name: nullable('string'),
					sender_phone: nullable('string'),
					text: { type: 'string' },
					attachment: {
						anyOf: [
							{ type: 'null' },
							{ type: 'object', required: ['filename', 'type'], properties: { filename: nullable('string'), type: nullable('string') } },
						],
					},
					timestamp: { anyOf: [{ type: 'null' }, { type: 'string', format: 'date-time' }] },
				},
			},
		},
	},
};

/**
 * The composite's descriptor (a CompositeDescriptor, which composites.ts checks where it lists it: this file does not
 * import composites.ts, which imports it).
 */
export const CONVERSATION_COMPOSITE = {
	kind: 'composite' as const,
	resource: 'message' as ResourceKey,
	operation: 'getConversation',
	name: 'Get Conversation',
	action: 'Get the conversation of a chat',
	description:
		"A chat's recent messages, oldest first, each with its role (customer; workspace: sent through the API; teammate: from the web app, named), text and attachment described",
	effect: 'read' as Effect,
	fields: [{ field: chatId, variants: [] as string[] }],
	options: [
		conversationInputs.lastMessages,
		conversationInputs.lastMinutes,
		conversationInputs.excludeMessageUids,
		conversationInputs.excludeFromMessageUid,
	],
	steps: [
		'chat:get (the chat: its name, whether a group, its members)',
		'message:getAll, newest first, page by page until the window is full',
	],
	returns:
		'Returns chat_id, chat_name, is_group, members and messages (oldest first; each: message_uid, role, sender_name, sender_phone, text, attachment, timestamp)',
	recoversLostSend: false,
};
