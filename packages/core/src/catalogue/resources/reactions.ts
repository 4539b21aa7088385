/** Emoji reactions on a message. */
import { field, messageUid } from '../fields';
import type { ResourceDescriptor } from '../types';

const reactionUid = { ...messageUid, name: 'uid' };

export const reactionResource: ResourceDescriptor = {
	key: 'reaction',
	name: 'Reaction',
	description: 'Emoji reactions on messages',
	toolset: 'reactions',
	operations: [
		{
			resource: 'reaction',
			operation: 'get',
			name: 'Get',
			action: 'Get the reactions of a message',
			description: 'The reactions map of a message, who reacted, and the total',
			method: 'GET',
			path: '/messages/{uid}/reactions',
			answer: { one: 'Reactions' },
			effect: 'read',
			fields: [reactionUid],
		},
		{
			resource: 'reaction',
			operation: 'set',
			name: 'Set',
			action: 'Set your reaction on a message',
			description: "Sets the workspace user's reaction (to take it back, use Remove)",
			method: 'PUT',
			path: '/messages/{uid}/reactions',
			methodAliases: ['PATCH'],
			effect: 'idempotent',
			fields: [
				reactionUid,
				// Required: an empty value used to clear the reaction silently; removing is its own operation.
				field('body', 'reaction', 'Reaction', 'string', 'One emoji, e.g. 👍', {
					required: true,
					default: '',
					requiredMessage: 'is required (to take your reaction back, use the Remove operation)',
					// One emoji (a pictograph or a flag, with its modifiers), no spaces.
					pattern: /^(?=[\s\S]*[\p{Extended_Pictographic}\p{Regional_Indicator}])\S{1,32}$/u,
					patternMessage: 'must be one emoji, e.g. 👍',
				}),
			],
		},
		{
			resource: 'reaction',
			operation: 'remove',
			destructive: true,
			name: 'Remove',
			action: 'Remove your reaction from a message',
			description: "Clears the workspace user's reaction on a message",
			method: 'PUT',
			path: '/messages/{uid}/reactions',
			effect: 'idempotent',
			friendlyOf: 'reaction:set',
			fixedBody: { reaction: '' },
			fields: [reactionUid],
		},
	],
};
