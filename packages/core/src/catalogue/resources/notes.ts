/** Internal notes on a chat: visible to the team, never sent to the chat app. */
import { chatId, field } from '../fields';
import type { ResourceDescriptor } from '../types';

export const noteResource: ResourceDescriptor = {
	key: 'note',
	name: 'Chat Note',
	description: 'Internal annotations visible to the team, never sent to the chat app',
	toolset: 'notes',
	operations: [
		{
			resource: 'note',
			operation: 'add',
			name: 'Add',
			action: 'Add a note to a chat',
			description: 'Adds an internal note to the chat; it is never sent to the chat app',
			method: 'POST',
			path: '/chats/{chat_id}/notes',
			effect: 'create',
			fields: [chatId, field('body', 'text', 'Text', 'text', 'Text of the note', { required: true })],
		},
	],
};
