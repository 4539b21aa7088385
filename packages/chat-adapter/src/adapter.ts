/**
 * The Chat SDK adapter: the SDK's `Adapter` over the core. Deliveries come in by the core's way in and deliveryStep,
 * as at the n8n trigger and the Node-RED event node (webhook.ts); sends, reads and reactions are the catalogue's
 * operations run by the one executor (pacing, 429 back-off, send-in-doubt lookup, uploads before the send). What the
 * service cannot do (edits, deletes) is the SDK's `NotImplementedError`. Credentials may be functions, asked at each
 * use (credentials.ts).
 */
import {
	DELIVERY_ANSWERS,
	eventPassesFilter,
	inputError,
	parseDelivery,
	receiverSecret,
	type ChatEvent,
	type EventAttachment,
	type Executor,
} from '@chat-messaging/core';
import {
	ConsoleLogger,
	NotImplementedError,
	defaultEmojiResolver,
	type Adapter,
	type AdapterPostableMessage,
	type ChatInstance,
	type EmojiValue,
	type FetchOptions,
	type FetchResult,
	type FormattedContent,
	type Logger,
	type Message,
	type RawMessage,
	type StreamChunk,
	type ThreadInfo,
	stringifyMarkdown,
} from 'chat';

import { gathered, sendToThread } from './sends';
import { fetchMessagesPage, fetchOneMessage, readThread } from './reads';
import { admitRequest, answerDelivery, gateOf, json, SECRET_PARAMETER, type WebhookCounts } from './webhook';
import {
	ENVIRONMENT,
	resolveConfiguration,
	type ChatMessagingAdapterOptions,
	type Credential,
	type ResolvedConfiguration,
	type WebhookVerifier,
} from './configuration';
import { askFor, executorFor } from './credentials';
import {
	ADAPTER_NAME,
	checkMessageId,
	customerAuthor,
	decodeThreadId,
	deliveredMessage,
	deliveryDetails,
	encodeThreadId,
} from './messages';

export interface TeammateMessage {
	threadId: string;
	message: Message;
}

export interface ChatCreated {
	threadId: string;
	chatId: number | string;
	chatName: string | null;
	event: ChatEvent;
}

export class ChatMessagingAdapter implements Adapter<{ chatId: number }, unknown> {
	readonly name = ADAPTER_NAME;
	/** Each chat is its own conversation: messages of one chat are handled one at a time. */
	readonly lockScope = 'thread' as const;
	readonly counts: WebhookCounts = { accepted: 0, redeliveries: 0, refused: 0 };

	private chat: ChatInstance | null = null;
	private logger: Logger;
	private readonly configuration: Omit<ResolvedConfiguration, 'token'>;
	// Truly private (#): what holds the token or the webhook secret stays out of JSON.stringify and util.inspect of
	// the adapter, which a handler reaches through `thread.adapter`.
	readonly #executor: Executor;
	readonly #secret: Credential | undefined;
	readonly #verifier: WebhookVerifier | undefined;
	private readonly explicitUserName?: string;
	private readonly groupChats = new Map<string, boolean>();
	private readonly teammateHandlers: Array<(event: TeammateMessage) => unknown> = [];
	private readonly chatCreatedHandlers: Array<(event: ChatCreated) => unknown> = [];

	constructor(options: ChatMessagingAdapterOptions = {}) {
		const { baseUrl, token, publicUrl } = resolveConfiguration(options);
		this.configuration = { baseUrl, publicUrl };
		this.#executor = executorFor(baseUrl, token);
		this.#verifier = options.webhookVerifier;
		this.#secret = options.webhookSecret ?? (typeof token === 'string' ? receiverSecret(token, 'chat-sdk-adapter') : undefined);
		this.explicitUserName = options.userName;
		this.logger = new ConsoleLogger('info', ADAPTER_NAME);
	}

	get userName(): string {
		return this.explicitUserName ?? this.chat?.getUserName() ?? 'bot';
	}

	/** The service's base URL (never the token). */
	get baseUrl(): string {
		return this.configuration.baseUrl;
	}

	/** The public webhook route's address, as configured. */
	get publicUrl(): string | undefined {
		return this.configuration.publicUrl;
	}

	/** The address the service delivers to: the public URL with the secret (as it is now, when a function gives it). */
	async webhookUrl(publicUrl = this.configuration.publicUrl): Promise<string> {
		if (!publicUrl)
			throw inputError('publicUrl', `is not set (option publicUrl or ${ENVIRONMENT.publicUrl}): the public address of the webhook route`);
		const url = new URL(publicUrl);
		// With a verifier alone, whatever stands in front of the bot (a gateway) vouches for deliveries: no secret.
		if (this.#secret !== undefined) url.searchParams.set(SECRET_PARAMETER, await askFor(this.#secret));
		return url.toString();
	}

	/** The executor the adapter runs on, for what the SDK has no method for (the catalogue's other operations). */
	get operations(): Executor {
		return this.#executor;
	}

	async initialize(chat: ChatInstance): Promise<void> {
		this.chat = chat;
		this.logger = chat.getLogger(ADAPTER_NAME);
	}

	/** Messages a teammate writes into a chat from the web app (`message:sent:new`): the bot's own sends are left out. */
	onTeammateMessage(handler: (event: TeammateMessage) => unknown): void {
		this.teammateHandlers.push(handler);
	}

	/** A chat the service created (`chat:created`): a new customer. */
	onChatCreated(handler: (event: ChatCreated) => unknown): void {
		this.chatCreatedHandlers.push(handler);
	}

	async handleWebhook(request: Request, options?: Parameters<Adapter['handleWebhook']>[1]): Promise<Response> {
		const admission = await admitRequest(request, await gateOf(request, this.#secret, this.#verifier), this.counts, this.logger);
		if ('refused' in admission) return json(admission.refused);
		// Not ready: a non-2xx answer makes the service deliver again later.
		if (!this.chat) return json(DELIVERY_ANSWERS.unavailable('the bot is starting'));
		const { event } = admission;
		const { answer, taken } = await answerDelivery(this.chat, event, this.counts, this.logger);
		if (!taken) return json(answer);
		this.counts.accepted++;
		// Answered at once (the service wants a 2xx within 5 seconds); the handlers run after.
		const task = this.dispatch(event, options).catch((error: unknown) =>
			this.logger.error('Handling a delivery failed', { error: String(error), eventType: event.event_type }),
		);
		options?.waitUntil?.(task);
		return json(answer);
	}

	private async dispatch(event: ChatEvent, options: Parameters<Adapter['handleWebhook']>[1]): Promise<void> {
		const chat = this.chat;
		if (!chat || event.chat_id === null) return;
		const threadId = encodeThreadId(event.chat_id);
		const details = deliveryDetails(event);
		if (details.isGroup !== undefined) this.groupChats.set(threadId, details.isGroup);
		const download = (file: EventAttachment) => this.#executor.download(file.url, file).then((downloaded) => downloaded.data);
		switch (event.event_type) {
			case 'message:received:new': {
				if (!event.message_uid) return;
				// A customer writing to the business addresses it: in a direct chat every message is for the bot.
				const message = deliveredMessage(event, customerAuthor(details, event), download, details.isGroup !== true);
				await chat.processMessage(this, threadId, message, options);
				return;
			}
			case 'message:sent:new': {
				if (!event.message_uid || !this.teammateHandlers.length) return;
				// The bot's own sends (and any other sent through the API) are not a teammate's: the core's filter.
				if (!(await eventPassesFilter(this.#executor, event, { ignoreApiSent: true }))) return;
				const name = details.senderName ?? 'teammate';
				const message = deliveredMessage(
					event,
					{ userId: `teammate:${name}`, userName: name, fullName: name, isBot: false, isMe: false },
					download,
					false,
				);
				for (const handler of this.teammateHandlers) await handler({ threadId, message });
				return;
			}
			case 'chat:created':
				for (const handler of this.chatCreatedHandlers)
					await handler({ threadId, chatId: event.chat_id, chatName: event.chat_name, event });
				return;
			default:
				this.logger.debug('Delivery of an event the adapter does not map', { eventType: event.event_type });
		}
	}

	postMessage(threadId: string, message: AdapterPostableMessage): Promise<RawMessage<unknown>> {
		return sendToThread(this.#executor, threadId, message);
	}

	/** A reply quoting the message (the service's `reply_to`). */
	reply(threadId: string, messageId: string, message: AdapterPostableMessage): Promise<RawMessage<unknown>> {
		return sendToThread(this.#executor, threadId, message, messageId);
	}

	/** The service cannot edit a sent message, so a stream is gathered and sent as one message when it ends. */
	async stream(threadId: string, textStream: AsyncIterable<string | StreamChunk>): Promise<RawMessage<unknown>> {
		decodeThreadId(threadId);
		return this.postMessage(threadId, { markdown: await gathered(textStream) });
	}

	async editMessage(): Promise<RawMessage<unknown>> {
		throw new NotImplementedError('The Chat Messaging Service cannot edit a sent message: post a new one', 'editMessage');
	}

	async deleteMessage(): Promise<void> {
		throw new NotImplementedError('The Chat Messaging Service cannot delete a sent message', 'deleteMessage');
	}

	/** The service has no typing indicator; like other adapters without one, this does nothing. */
	async startTyping(threadId: string): Promise<void> {
		decodeThreadId(threadId);
	}

	async addReaction(threadId: string, messageId: string, emoji: EmojiValue | string): Promise<void> {
		decodeThreadId(threadId);
		await this.#executor.run('reaction:set', { uid: checkMessageId(messageId), reaction: defaultEmojiResolver.toGChat(emoji) });
	}

	/** The workspace holds one reaction per message: removing clears it, whichever emoji it is. */
	async removeReaction(threadId: string, messageId: string, _emoji?: EmojiValue | string): Promise<void> {
		decodeThreadId(threadId);
		await this.#executor.run('reaction:remove', { uid: checkMessageId(messageId) });
	}

	/**
	 * A page of the chat's conversation, oldest first. Backward (the default): the latest `limit`, the cursor leading
	 * to older ones; forward: from the oldest of the latest 500 on.
	 */
	async fetchMessages(threadId: string, options: FetchOptions = {}): Promise<FetchResult<unknown>> {
		return fetchMessagesPage(this.#executor, threadId, options, this.userName);
	}

	/** One message of the chat by its uid, as the conversation shows it; null when it belongs to another chat. */
	async fetchMessage(threadId: string, messageId: string): Promise<Message | null> {
		return fetchOneMessage(this.#executor, threadId, messageId, this.userName);
	}

	/** The chat: its name, whether it is a group, and a group's members by name. */
	async fetchThread(threadId: string): Promise<ThreadInfo> {
		const thread = await readThread(this.#executor, threadId);
		this.groupChats.set(threadId, !thread.isDM);
		return thread;
	}

	/** A chat is its own channel: the service has no thread inside a chat. */
	channelIdFromThreadId(threadId: string): string {
		decodeThreadId(threadId);
		return threadId;
	}

	/** Direct unless a delivery or a read showed the chat is a group. */
	isDM(threadId: string): boolean {
		return this.groupChats.get(threadId) !== true;
	}

	encodeThreadId(platformData: { chatId: number }): string {
		return encodeThreadId(platformData.chatId);
	}

	decodeThreadId(threadId: string): { chatId: number } {
		return decodeThreadId(threadId);
	}

	parseMessage(raw: unknown): Message {
		const delivery = parseDelivery(raw);
		if ('malformed' in delivery) throw inputError('raw', `is not a delivery: ${delivery.malformed}`);
		const event = delivery.event;
		const download = (file: EventAttachment) => this.#executor.download(file.url, file).then((downloaded) => downloaded.data);
		return deliveredMessage(event, customerAuthor(deliveryDetails(event), event), download, deliveryDetails(event).isGroup !== true);
	}

	renderFormatted(content: FormattedContent): string {
		return stringifyMarkdown(content);
	}
}

/** A Chat SDK adapter for the Chat Messaging Service; options not given are read from the environment. */
export function createChatMessagingAdapter(options: ChatMessagingAdapterOptions = {}): ChatMessagingAdapter {
	return new ChatMessagingAdapter(options);
}
