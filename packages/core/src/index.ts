/**
 * @chat-messaging/core: the operation catalogue and the runtime that executes it. Imports neither n8n
 * nor Node-RED; the platform packages, the client and the MCP server are built on this surface alone
 * (they import `@chat-messaging/core`, never a file inside it).
 */
import { registerCompositeHandlers } from './runtime/composites/compositeHandlers';

export * from './catalogue/types';
export * from './catalogue/endpoints';
export * from './catalogue/catalogue';
export * from './catalogue/fields';
export * from './catalogue/defaults';
export * from './catalogue/send';
export * from './catalogue/output';
export * from './catalogue/records';
export * from './catalogue/toolDescription';
export * from './catalogue/composites';
export * from './catalogue/conversation';
export * from './catalogue/agents';
export * from './runtime/errors';
export * from './runtime/executor';
export { compositeVariantOf } from './runtime/composites/compositeInput';
export { runSendAndWaitForReply, type CompositeRunOptions, type ReplyWaitResult } from './runtime/composites/compositeHandlers';
export {
	conversationChatMessages,
	conversationInputFor,
	conversationMessageOf,
	conversationWindow,
	runGetConversation,
} from './runtime/composites/conversation';
// The composites' handlers, each registered on its descriptor, before any executor runs one.
registerCompositeHandlers();
export { burstToAnswer, downloadBurstAttachments } from './runtime/composites/burst';
export * from './runtime/pacing';
export * from './runtime/events/delivery';
export * from './runtime/events/seenEvents';
export * from './runtime/events/subscriptions';
export * from './runtime/events/eventFilter';
export * from './runtime/events/polling';
export {
	POLL_EVENT_TYPES,
	POLL_SOURCES,
	CATCH_UP_HORIZON_MS,
	pollSourceOf,
	cursorAfterDelivery,
	mergeCursors,
	deliveredKeysOf,
	type PollSource,
	type PollCursor,
} from './runtime/events/cursor';
export * from './runtime/events/replies';
export * from './runtime/composites/replySubscription';
export * from './runtime/waiting';
export * from './runtime/lookups';
export { isBlank, isRecord } from './runtime/validation';
export * from './catalogue/inboxOptions';
export * from './catalogue/eventFilterOptions';
export * from './runtime/events/inbox';
export * from './runtime/events/takeover';
export * from './runtime/events/bursts';
export * from './runtime/events/agentInput';
export * from './runtime/events/pollStep';
export * from './runtime/events/admission';
export * from './runtime/events/deliveryStep';
