/** Team members of the workspace. */
import type { ResourceDescriptor } from '../types';

export const teammateResource: ResourceDescriptor = {
	key: 'teammate',
	name: 'Teammate',
	description: 'Members of the workspace team',
	toolset: 'team',
	operations: [
		{
			resource: 'teammate',
			operation: 'getAll',
			name: 'Get Many',
			action: 'Get many teammates',
			description: 'List the team members of the workspace',
			method: 'GET',
			path: '/workspace/teammates',
			answer: { many: 'Teammate', member: 'teammates' },
			effect: 'read',
			unwrap: 'teammates',
			returns: 'teammate',
			fields: [],
		},
	],
};
