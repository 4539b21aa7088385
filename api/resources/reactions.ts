/** Emoji reactions on a message. */
import { field, messageUid } from '../fields';
import type { ResourceDescriptor } from '../types';

const reactionUid = { ...messageUid, name: 'uid' };

export const reactionResource: ResourceDescriptor = {
	key: 'reaction',
	name: 'Reaction',
	description: 'Emoji reactions on messages',
	operations: [
		{
			resource: 'reaction',
			operation: 'get',
			name: 'Get',
			action: 'Get the reactions of a message',
			description: 'The reactions map of a message, who reacted, and the total',
			method: 'GET',
			path: '/messages/{uid}/reactions',
			effect: 'read',
			fields: [reactionUid],
		},
		{
			resource: 'reaction',
			operation: 'set',
			name: 'Set',
			action: 'Set your reaction on a message',
			description: "Sets the workspace user's reaction; an empty reaction clears it",
			method: 'PUT',
			path: '/messages/{uid}/reactions',
			effect: 'idempotent',
			fields: [
				reactionUid,
				field('body', 'reaction', 'Reaction', 'string', 'One emoji, e.g. 👍; leave empty to clear your reaction', {
					default: '',
					sendDefault: true,
					allowEmpty: true,
				}),
			],
		},
	],
};
