/**
 * @chat-messaging/core: the operation catalogue and the runtime that executes it. Imports neither n8n
 * nor Node-RED; the platform packages, the client and the MCP server are built on this surface alone
 * (they import `@chat-messaging/core`, never a file inside it).
 */
import { registerCompositeHandlers } from './runtime/operations/composites';

export * from './catalogue/types';
export * from './catalogue/catalogue';
export * from './catalogue/fields';
export * from './catalogue/defaults';
export * from './catalogue/send';
export * from './catalogue/output';
export * from './catalogue/records';
export * from './catalogue/toolResults';
export * from './catalogue/toolDescription';
export * from './catalogue/composites';
export * from './catalogue/conversation';
export * from './catalogue/agents';
export * from './runtime/errors';
export * from './runtime/executor';
export {
	compositeVariantOf,
	registerCompositeHandlers,
	runSend,
	runSendAndWaitForReply,
	planSendAndWaitForReply,
	planSendAndWait,
	runSendAndWait,
	type SendAndWaitPlan,
	type CompositeRunOptions,
	type ReplyWaitPlan,
	type ReplyWaitResult,
} from './runtime/operations/composites';
export {
	conversationChatMessages,
	conversationMessageOf,
	conversationRole,
	planConversation,
	runGetConversation,
	sentThroughApi,
	type ConversationPlan,
} from './runtime/operations/conversation';
// The composites' handlers, each registered on its descriptor, before any executor runs one.
registerCompositeHandlers();
export { burstToAnswer, type BurstTurn } from './runtime/operations/burst';
export * from './runtime/pacing';
export * from './runtime/events';
export * from './runtime/eventFilter';
export * from './runtime/polling';
export * from './runtime/replies';
export * from './runtime/waiting';
export * from './runtime/lookups';
export * from './runtime/fileLinks';
export { prepareRequest, coerceField, isBlank, isRecord } from './runtime/validation';
export * from './catalogue/inbox';
export * from './catalogue/eventFilters';
export * from './runtime/inbox';
