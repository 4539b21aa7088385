/**
 * Chat Messaging Memory: an AI memory sub-node (n8n's AI Agent, through @n8n/ai-node-sdk) whose history is the
 * chat's conversation as the service holds it: the customer's messages, what this workspace sent (the agent's
 * earlier replies, other workflows) and what teammates wrote in the web app. Nothing is stored in n8n, so the
 * memory is the same on every queue-mode worker and after a restart.
 *
 * The core's Get Conversation composite reads the window and renders it as chat-model messages; this node only
 * translates them into the SDK's messages. Saving a turn writes nothing: the workflow's send puts the agent's
 * reply into the service's history, where the next turn reads it. A conversation that cannot be read fails the
 * agent's turn with an error naming the chat, never an empty memory that would let the agent answer blind.
 */
import { BaseChatHistory, BaseChatMemory, supplyMemory, type ChatHistory, type Message } from '@n8n/ai-node-sdk';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import type { INode, INodeType, INodeTypeDescription, ISupplyDataFunctions, SupplyData } from 'n8n-workflow';

import {
	conversationChatMessages,
	conversationInputs,
	DEFAULT_CONVERSATION_MESSAGES,
	MAX_CONVERSATION_MESSAGES,
	runGetConversation,
	type Executor,
} from '@chat-messaging/core';
import { toNodeError } from '../shared/errors';
import { CREDENTIAL_TYPE, createExecutor } from '../shared/transport';

/** What one turn reads: the chat, the window, and the messages the turn answers (its prompt, left out). */
interface ConversationRequest {
	chat_id: number | string;
	lastMessages: number;
	lastMinutes: number;
	excludeMessageUids: string[];
}

/** The chat's conversation as the SDK's messages, read once per turn (the agent may ask more than once). */
class ServiceChatHistory extends BaseChatHistory {
	private read?: Promise<Message[]>;

	constructor(
		private readonly executor: Executor,
		private readonly request: ConversationRequest,
		private readonly node: INode,
	) {
		super();
	}

	async getMessages(): Promise<Message[]> {
		this.read ??= this.readConversation();
		return await this.read;
	}

	private async readConversation(): Promise<Message[]> {
		try {
			const conversation = await runGetConversation(this.executor, { ...this.request });
			return conversationChatMessages(conversation).map((message): Message => ({
				role: message.role,
				content: [{ type: 'text', text: message.content }],
			}));
		} catch (error) {
			const cause = toNodeError(this.node, error);
			// The core names the chat in what it could not read; an input error (the window) gets it named here.
			const chat = `chat ${this.request.chat_id}`;
			const message = cause.message.includes(chat)
				? `The agent's memory could not be read: ${cause.message}`
				: `The agent's memory of ${chat} could not be read: ${cause.message}`;
			throw new NodeOperationError(this.node, message, { description: cause.description ?? undefined });
		}
	}

	/** The workflow's send puts the reply into the service's history: nothing is written twice. */
	async addMessage(): Promise<void> {}

	/** The conversation is the service's record of the chat, not the memory's to delete. */
	async clear(): Promise<void> {}
}

/** The conversation as it stands; a turn saved is already in the service's history once the workflow sends it. */
class ServiceChatMemory extends BaseChatMemory {
	constructor(readonly chatHistory: ChatHistory) {
		super();
	}

	async loadMessages(): Promise<Message[]> {
		return await this.chatHistory.getMessages();
	}

	async saveTurn(): Promise<void> {}

	async clear(): Promise<void> {}
}

const { lastMessages, lastMinutes } = conversationInputs;

export class ChatMessagingMemory implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Chat Messaging Memory',
		name: 'chatMessagingMemory',
		icon: { light: 'file:../../icons/chat-messaging.svg', dark: 'file:../../icons/chat-messaging.dark.svg' },
		group: ['transform'],
		// 1.1: the chat comes from the item's sessionId by default, as n8n's own chat memories read their session.
		version: [1, 1.1],
		subtitle: `={{ "Last " + ($parameter["options"]["lastMessages"] ?? ${DEFAULT_CONVERSATION_MESSAGES}) + " messages of the chat" }}`,
		description: "The chat's conversation as the Chat Messaging service holds it, as an AI agent's memory: nothing to host",
		defaults: {
			name: 'Chat Messaging Memory',
		},
		inputs: [],
		outputs: [NodeConnectionTypes.AiMemory],
		outputNames: ['Memory'],
		credentials: [
			{
				name: CREDENTIAL_TYPE,
				required: true,
			},
		],
		properties: [
			{
				displayName:
					"The agent remembers what the service holds for the chat: the customer's messages, this workspace's replies (the workflow's send puts them there) and teammates' messages. Nothing is stored in n8n.",
				name: 'memoryNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Chat ID',
				name: 'chatId',
				type: 'string',
				required: true,
				default: '={{ $json.chat_id }}',
				description: "The chat whose conversation the agent remembers; by default the triggering item's chat_id",
				displayOptions: { show: { '@version': [1] } },
			},
			{
				displayName: 'Chat ID',
				name: 'chatId',
				type: 'string',
				required: true,
				default: '={{ $json.sessionId }}',
				description:
					"The chat whose conversation the agent remembers; by default the item's sessionId, the chat as the Chat Messaging triggers and Get Burst to Answer give it (n8n's chat memories read the same field)",
				displayOptions: { show: { '@version': [{ _cnd: { gte: 1.1 } }] } },
			},
			{
				displayName: 'Messages the Turn Answers',
				name: 'answeredMessageUids',
				type: 'string',
				default: '={{ $json.message_uids ?? $json.message_uid }}',
				description:
					"Message UIDs left out of the memory because the agent gets them as its prompt: by default the burst's (Get Burst to Answer) or the triggering message's",
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: lastMessages.displayName,
						name: 'lastMessages',
						type: 'number',
						typeOptions: { minValue: 0, maxValue: MAX_CONVERSATION_MESSAGES },
						default: DEFAULT_CONVERSATION_MESSAGES,
						description: lastMessages.description,
					},
					{
						displayName: lastMinutes.displayName,
						name: 'lastMinutes',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 0,
						description: lastMinutes.description,
					},
				],
			},
		],
	};

	async supplyData(this: ISupplyDataFunctions, itemIndex: number): Promise<SupplyData> {
		const node = this.getNode();
		const chat = String(this.getNodeParameter('chatId', itemIndex, '') ?? '').trim();
		if (!chat) {
			throw new NodeOperationError(node, 'Chat ID: is required: the chat whose conversation the agent remembers', {
				itemIndex,
				description: "Map the trigger's chat, e.g. {{ $json.sessionId }} or {{ $json.chat_id }}",
			});
		}
		const options = this.getNodeParameter('options', itemIndex, {}) as { lastMessages?: number; lastMinutes?: number };
		const answered: unknown = this.getNodeParameter('answeredMessageUids', itemIndex, '');
		const excludeMessageUids = (Array.isArray(answered) ? answered : String(answered ?? '').split(','))
			.map((uid) => String(uid).trim())
			.filter(Boolean);
		const request: ConversationRequest = {
			chat_id: /^\d+$/.test(chat) ? Number(chat) : chat,
			lastMessages: Number(options.lastMessages ?? DEFAULT_CONVERSATION_MESSAGES),
			lastMinutes: Number(options.lastMinutes ?? 0),
			excludeMessageUids,
		};
		const executor = await createExecutor(this);
		return supplyMemory(this, new ServiceChatMemory(new ServiceChatHistory(executor, request, node)));
	}
}
