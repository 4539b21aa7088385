/**
 * @chat-messaging/chat-adapter: a Chat SDK adapter for the Chat Messaging Service. A thread is a chat; deliveries,
 * sends, history, reactions and webhook subscriptions are the core's, translated to the SDK's types.
 */
export { ChatMessagingAdapter, createChatMessagingAdapter } from './adapter';
export type { ChatCreated, TeammateMessage } from './adapter';
export { SECRET_PARAMETER, type WebhookCounts } from './webhook';
export { ENVIRONMENT, type ChatMessagingAdapterOptions, type Credential, type WebhookVerifier } from './configuration';
export { ADAPTER_NAME, decodeThreadId, encodeThreadId } from './messages';
export { removeWebhooks, syncWebhooks, WEBHOOK_EVENTS, type WebhookSubscriptions } from './subscriptions';
export { serveWebhooks, type WebhookHandler, type WebhookServer } from './server';
