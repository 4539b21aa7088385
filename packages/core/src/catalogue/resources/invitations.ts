/** Invitations of new team members. */
import { field, pathId } from '../fields';
import type { ResourceDescriptor } from '../types';

export const ROLES = [
	{ value: 'admin', name: 'Admin' },
	{ value: 'team_supervisor', name: 'Team Supervisor' },
	{ value: 'teammate', name: 'Teammate' },
	{ value: 'agent', name: 'Agent' },
	{ value: 'collaborator', name: 'Collaborator' },
] as const;

export const invitationResource: ResourceDescriptor = {
	key: 'invitation',
	name: 'Invitation',
	description: 'Invite people to the workspace or revoke invitations',
	toolset: 'team',
	administrative: true,
	operations: [
		{
			resource: 'invitation',
			operation: 'create',
			name: 'Create',
			action: 'Invite a teammate',
			description: 'Invite someone to the workspace by email',
			method: 'POST',
			path: '/workspace/invitations',
			effect: 'create',
			fields: [
				field('body', 'email', 'Email', 'email', 'Email address of the person to invite', { required: true }),
				field('body', 'first_name', 'First Name', 'string', 'First name of the person to invite'),
				field('body', 'last_name', 'Last Name', 'string', 'Last name of the person to invite'),
				field('body', 'team_title', 'Team', 'string', 'Team to join; the service uses "Default team" when empty'),
				field('body', 'role', 'Role', 'options', 'Role of the new member', {
					options: ROLES,
					default: 'teammate',
					serviceIgnoresCase: true,
				}),
			],
		},
		{
			resource: 'invitation',
			operation: 'revoke',
			irreversible: true,
			destructive: true,
			name: 'Revoke',
			action: 'Revoke an invitation',
			description: 'Revoke a pending invitation',
			method: 'DELETE',
			path: '/workspace/invitations/{user_id}',
			effect: 'idempotent',
			fields: [{ ...pathId('user_id', 'User ID', 'string', 'User ID of the invited person'), picker: 'invitation' }],
		},
	],
};
