/** The event node's English texts (locales/en-US/index.json, namespace `chat-messaging-event`). */
import { EVENT_FILTER_OPTIONS, INBOX_OPTIONS } from '@chat-messaging/core';
import { CHOICES } from '../../generate/catalogue';
import { messageKey } from '../../generate/html';
import { CONVERSATION_OPTIONS } from './conversation';
import { EVENT_MODES } from './settings';

export const eventMessages = () => ({
	label: {
		events: 'Events',
		downloadAttachments: 'Attachments',
		mode: 'Mode',
		pollSeconds: 'Poll every',
		seconds: 'seconds',
		minutes: 'minutes',
		skipAssigned: 'Takeover',
		teammateQuietMinutes: 'Teammate wrote',
		burstQuietSeconds: 'Burst',
		labels: 'Labels',
		accountIds: 'Accounts',
		chatType: 'Chats',
		ignoreOwnMessages: 'API sends',
		addConversation: 'Conversation',
		conversationLastMessages: 'Last messages',
		conversationLastMinutes: 'Last minutes',
	},
	conversation: Object.fromEntries(
		CONVERSATION_OPTIONS.map((option) => [option.name, { label: option.displayName, help: option.description }]),
	),
	filter: Object.fromEntries(
		EVENT_FILTER_OPTIONS.map((option) => [
			option.name,
			{
				label: option.displayName,
				help: option.description.replace(/^Whether to s/, 'S'),
				...Object.fromEntries((option.options ?? []).map((choice) => [messageKey(choice.value), choice.name])),
			},
		]),
	),
	events: Object.fromEntries(CHOICES.events.map((event) => [messageKey(event.value), event.name])),
	mode: Object.fromEntries(EVENT_MODES.map((mode) => [mode.value, mode.name])),
	pollHelp: 'Each poll costs one request while nothing is new, plus one per chat with new messages (the service allows about 30 a second).',
	inbox: Object.fromEntries(
		INBOX_OPTIONS.map((option) => [option.name, { label: option.displayName, help: option.description.replace(/^Whether to s/, 'S') }]),
	),
	pollTip:
		'Polling needs no public URL and no webhook subscription: the node reads what is new since its cursor, which is stored in ' +
		'<code>&lt;user dir&gt;/chat-messaging/</code>, so each event is emitted once across redeploys and restarts. ' +
		'The first deploy starts from now.',
	downloadAttachments: 'download into <code>msg.attachments</code> (their links expire after about 15 minutes)',
	tip:
		'On deploy the node subscribes at <code>&lt;public URL&gt;&lt;HTTP node root&gt;/chat-messaging/events/&lt;node id&gt;/&lt;secret&gt;</code> ' +
		'(set the public URL in the service configuration). The subscriptions and their secret outlive redeploys and restarts, ' +
		'so no event is lost meanwhile; they are deleted when the node is removed.',
});
