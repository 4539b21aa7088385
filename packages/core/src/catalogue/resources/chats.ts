/** Chats: GET /chats, GET /chats/{chat_id}, PATCH /chats/{chat_id}, and the friendly updates. */
import { chatId, field, page, triStateFilter } from '../fields';
import type { FieldDescriptor, OperationDescriptor, ResourceDescriptor } from '../types';

const responsibleEmail = (required: boolean): FieldDescriptor =>
	field('body', 'responsible', 'Responsible Email', 'email', 'Registration email of the team member to assign', {
		required,
		picker: 'teammate',
	});

/** PATCH /chats/{chat_id} with a fixed body: the friendly operations users expect by name. */
function chatUpdate(
	operation: string,
	name: string,
	action: string,
	description: string,
	fields: FieldDescriptor[],
	fixedBody?: Record<string, unknown>,
	wireNote?: string,
): OperationDescriptor {
	return {
		resource: 'chat',
		operation,
		name,
		action,
		description,
		method: 'PATCH',
		path: '/chats/{chat_id}',
		fields: [chatId, ...fields],
		fixedBody,
		...(wireNote ? { wireNote } : {}),
		effect: 'idempotent',
		friendlyOf: 'chat:update',
		returns: 'chat',
	};
}

export const chatResource: ResourceDescriptor = {
	key: 'chat',
	name: 'Chat',
	description: 'Conversations held over the chat app',
	toolset: 'chats',
	operations: [
		{
			resource: 'chat',
			operation: 'getAll',
			name: 'Get Many',
			action: 'Get many chats',
			description: 'List chats, newest message first (then by name). Filters combine with AND; comma-separated values match any of them',
			method: 'GET',
			path: '/chats',
			answer: { many: 'Chat', paged: true },
			effect: 'read',
			unwrap: 'chats',
			returns: 'chat',
			pagination: { itemsKey: 'chats', pageParam: 'page' },
			fields: [
				field('query', 'label', 'Labels', 'stringList', 'Chats having at least one of these labels', { picker: 'label' }),
				field(
					'query',
					'chatapp_account_id',
					'Chat-App Account IDs',
					'stringList',
					'Chats belonging to any of these accounts (wid values such as 123@c.us)',
					{ picker: 'account' },
				),
				triStateFilter(
					'group',
					'Group Chats',
					'Whether to list group chats, direct chats or both',
					'Group Chats Only',
					'Direct Chats Only',
				),
				field('query', 'responsible', 'Responsible Emails', 'stringList', 'Chats assigned to any of these team members', {
					picker: 'teammate',
				}),
				field(
					'query',
					'name',
					'Name Contains',
					'stringList',
					'Case-insensitive; chats whose name contains any of the comma-separated strings (a string with spaces matches as a whole)',
					{ placeholder: 'Alice, Support' },
				),
				field(
					'query',
					'phone',
					'Phone',
					'phoneFilter',
					'One number, direct chats only. With a leading + the match is exact; otherwise leading zeroes are dropped and it matches part of the phone',
					{ placeholder: '+14155550123', hint: 'Digits only: +14155550123 matches exactly, 4155550 matches part of a number' },
				),
				triStateFilter('read', 'Read', 'Whether to list read chats, unread chats or both', 'Read', 'Unread'),
				triStateFilter('closed', 'Closed', 'Whether to list open chats, closed chats or both', 'Closed', 'Open'),
				triStateFilter(
					'ai_autoresponse_enabled',
					'AI Auto-Response Enabled',
					'Whether to list chats with the AI auto-response on, off, or both',
					'AI Auto-Response On',
					'AI Auto-Response Off',
				),
				field('query', 'created_after', 'Created After', 'dateTime', 'Chats created after this time'),
				field('query', 'created_before', 'Created Before', 'dateTime', 'Chats created before this time'),
				page,
			],
		},
		{
			resource: 'chat',
			operation: 'get',
			name: 'Get',
			action: 'Get a chat',
			description: 'Full details of one chat',
			method: 'GET',
			path: '/chats/{chat_id}',
			answer: { one: 'Chat' },
			effect: 'read',
			returns: 'chat',
			fields: [chatId],
		},
		{
			resource: 'chat',
			operation: 'update',
			name: 'Update',
			action: 'Update a chat',
			description: 'Change any of the chat flags, its name or its responsible team member',
			method: 'PATCH',
			path: '/chats/{chat_id}',
			effect: 'idempotent',
			requiresChange: true,
			returns: 'chat',
			fields: [
				chatId,
				field('body', 'responsible', 'Responsible Email', 'email', 'Team member email to assign; an empty string unassigns', {
					allowEmpty: true,
					picker: 'teammate',
				}),
				field('body', 'closed', 'Closed', 'boolean', 'Whether the chat is closed: true closes it, false reopens it'),
				field('body', 'read', 'Read', 'boolean', 'Whether the chat is marked read (true) or unread (false)'),
				field('body', 'name', 'Name', 'string', 'New name; must be unique in the workspace'),
				field('body', 'ai_autoresponse_enabled', 'AI Auto-Response Enabled', 'boolean', 'Whether the AI auto-response is on for the chat'),
			],
		},
		{ ...chatUpdate('close', 'Close', 'Close a chat', 'Close the chat', [], { closed: true }, 'PATCH closed: true'), destructive: true },
		chatUpdate('reopen', 'Reopen', 'Reopen a chat', 'Reopen a closed chat', [], { closed: false }, 'PATCH closed: false'),
		chatUpdate('assign', 'Assign', 'Assign a chat', 'Make a team member responsible for the chat', [responsibleEmail(true)]),
		chatUpdate(
			'unassign',
			'Unassign',
			'Unassign a chat',
			'Remove the responsible team member',
			[],
			{ responsible: '' },
			'PATCH responsible: ""',
		),
		chatUpdate('markRead', 'Mark Read', 'Mark a chat as read', 'Mark the chat read', [], { read: true }, 'PATCH read: true'),
		chatUpdate('markUnread', 'Mark Unread', 'Mark a chat as unread', 'Mark the chat unread', [], { read: false }, 'PATCH read: false'),
		chatUpdate('rename', 'Rename', 'Rename a chat', 'Give the chat a new name, unique in the workspace', [
			field('body', 'name', 'New Name', 'string', 'New name of the chat; must be unique in the workspace', { required: true }),
		]),
		chatUpdate(
			'setAiAutoresponse',
			'Set AI Auto-Response',
			'Switch the AI autoresponse of a chat on or off',
			'Enable or disable the AI agent auto-response for the chat',
			[
				field('body', 'ai_autoresponse_enabled', 'AI Auto-Response Enabled', 'boolean', 'Whether the AI agent answers automatically', {
					required: true,
					default: true,
					sendDefault: true,
				}),
			],
		),
	],
};
