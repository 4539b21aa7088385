/** The workspace itself: info, plan and quota utilisation. */
import type { ResourceDescriptor } from '../types';

export const workspaceResource: ResourceDescriptor = {
	key: 'workspace',
	name: 'Workspace',
	description: 'Workspace info, plan and quota utilisation',
	toolset: 'workspace',
	operations: [
		{
			resource: 'workspace',
			operation: 'get',
			name: 'Get',
			action: 'Get the workspace',
			description: 'Workspace info, plan and message quota utilisation',
			method: 'GET',
			path: '/workspace',
			answer: { one: 'Workspace' },
			effect: 'read',
			fields: [],
		},
	],
};
