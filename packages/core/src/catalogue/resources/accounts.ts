/** Connected chat-app accounts (phone numbers). */
import type { ResourceDescriptor } from '../types';

export const accountResource: ResourceDescriptor = {
	key: 'account',
	name: 'Chat-App Account',
	description: 'Chat-app numbers connected to the workspace',
	toolset: 'workspace',
	operations: [
		{
			resource: 'account',
			operation: 'getAll',
			name: 'Get Many',
			action: 'Get many chat app accounts',
			description: 'List the connected chat-app accounts',
			method: 'GET',
			path: '/chatapp_accounts',
			answer: { many: 'Account', member: 'chatapp_accounts' },
			effect: 'read',
			unwrap: 'chatapp_accounts',
			returns: 'account',
			fields: [],
		},
	],
};
