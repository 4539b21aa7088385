/** Messages: the four ways to send, a message's status and its timeline, and a chat's history. */
import { chatId, field, messageFileUid, messageLabel, messageReplyTo, messageText, messageUid, page, triStateFilter } from '../fields';
import type { FieldDescriptor, OperationDescriptor, ResourceDescriptor } from '../types';

const accountId = field(
	'body',
	'chatapp_account_id',
	'Sending Account ID',
	'wid',
	'Account (wid) that sends; by default the most recently connected one',
	{ picker: 'account' },
);

function send(
	operation: string,
	name: string,
	action: string,
	description: string,
	path: string,
	fields: FieldDescriptor[],
): OperationDescriptor {
	return {
		resource: 'message',
		operation,
		name,
		action,
		description: `${description}. Costs 1 credit, 2 with an attachment; messages are queued and paced by the service`,
		method: 'POST',
		path,
		answer: { one: 'SendAnswer' },
		effect: 'create',
		requireOneOf: ['text', 'file_uid'],
		sendsMessage: true,
		fields,
	};
}

export const messageResource: ResourceDescriptor = {
	key: 'message',
	name: 'Message',
	description: 'Send messages and track their delivery',
	toolset: 'messages',
	operations: [
		send(
			'sendToPhone',
			'Send to Phone Number',
			'Send a message to a phone number',
			'Send to a phone number, also one never messaged before (creates the chat)',
			'/messages',
			[
				field('body', 'phone', 'Phone Number', 'phone', 'Phone number of the recipient', { required: true, placeholder: '+4915112345678' }),
				messageText,
				messageFileUid,
				field('body', 'chat_name', 'New Chat Name', 'string', 'Name to give the chat when this number has none yet'),
				messageLabel,
				accountId,
			],
		),
		send('sendToChat', 'Send to Chat', 'Send a message into a chat', 'Send into an existing chat by its ID', '/chats/{chat_id}/messages', [
			chatId,
			messageText,
			messageFileUid,
			messageReplyTo,
			messageLabel,
		]),
		send(
			'sendToChatName',
			'Send to Chat Name',
			'Send a message to a chat by name',
			'Send into the chat with this exact name',
			'/messages/to_chat_name',
			[
				field('body', 'chat_name', 'Chat Name', 'string', 'Name of the chat (names are unique in the workspace)', {
					required: true,
					placeholder: 'Alice Example',
				}),
				messageText,
				messageFileUid,
			],
		),
		send(
			'sendToJid',
			'Send to JID',
			'Send a message to a JID',
			'Send by chat-app JID (groups, technical integrations)',
			'/messages/to_jid',
			[
				field('body', 'jid', 'JID', 'jid', 'Chat-app identifier (number@server), e.g. 4915112345678@c.us or a group JID', {
					required: true,
					placeholder: '4915112345678@c.us',
				}),
				messageText,
				messageFileUid,
				messageReplyTo,
			],
		),
		{
			resource: 'message',
			operation: 'get',
			name: 'Get',
			action: 'Get a message and its status',
			description: 'The message record with its current status (queued, sent, delivered, read or failed)',
			method: 'GET',
			path: '/messages/{message_uid}',
			answer: { one: 'Message' },
			effect: 'read',
			returns: 'message',
			fields: [messageUid],
		},
		{
			resource: 'message',
			operation: 'getStatusHistory',
			name: 'Get Status History',
			action: 'Get the status history of a message',
			description: 'The status timeline of a message, oldest first, with ISO 8601 UTC timestamps',
			method: 'GET',
			path: '/messages/{message_uid}/status_history',
			answer: { many: 'StatusHistoryItem' },
			effect: 'read',
			fields: [messageUid],
		},
		{
			resource: 'message',
			operation: 'getAll',
			name: 'Get Many',
			action: 'Get many messages of a chat',
			description: 'The message history of a chat, newest first',
			method: 'GET',
			path: '/chats/{chat_id}/messages',
			answer: { many: 'Message', paged: true },
			effect: 'read',
			unwrap: 'messages',
			returns: 'message',
			pagination: { itemsKey: 'messages', pageParam: 'page', parent: 'chat:get' },
			fields: [
				chatId,
				triStateFilter(
					'from_me',
					'From Me',
					'Whether to list the messages the workspace sent, the ones it received, or both',
					'Sent by the Workspace',
					'Received',
				),
				field('query', 'after', 'After', 'dateTime', 'Only messages after this time'),
				field('query', 'before', 'Before', 'dateTime', 'Only messages before this time'),
				field('query', 'after_message', 'After Message UID', 'string', 'Only messages newer than this message'),
				page,
			],
		},
	],
};
