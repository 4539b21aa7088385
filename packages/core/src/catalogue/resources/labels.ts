/**
 * Chat labels: GET, PUT (adds, keeps existing) and POST (replaces the whole set) on
 * /chats/{chat_id}/labels, plus "remove", which reads the set and replaces it without the given labels.
 * The names say which is which, since PUT-adds versus POST-replaces is easy to confuse.
 */
import { chatId, labelsBody } from '../fields';
import type { ResourceDescriptor } from '../types';

const labelsToRemove = labelsBody('Labels to remove; the chat keeps its other labels');

/** The current set as the service returned it: compared exactly, as strings. */
const currentLabels = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);

export const labelResource: ResourceDescriptor = {
	key: 'label',
	name: 'Chat Label',
	description: 'Labels that organise chats; unknown labels are created when used',
	toolset: 'labels',
	operations: [
		{
			resource: 'label',
			operation: 'get',
			name: 'Get',
			action: 'Get the labels of a chat',
			description: 'The labels of one chat',
			method: 'GET',
			path: '/chats/{chat_id}/labels',
			answer: { many: { type: 'string' }, member: 'labels', inMember: true },
			effect: 'read',
			unwrap: 'labels',
			fields: [chatId],
		},
		{
			resource: 'label',
			operation: 'add',
			additive: true,
			name: 'Add (Keep Existing)',
			action: 'Add labels to a chat and keep existing ones',
			description: 'Adds the labels and keeps the ones the chat already has',
			wireNote: 'PUT adds',
			method: 'PUT',
			path: '/chats/{chat_id}/labels',
			effect: 'idempotent',
			fields: [chatId, labelsBody('Labels to add; the chat keeps its other labels')],
		},
		{
			resource: 'label',
			operation: 'replace',
			irreversible: true,
			destructive: true,
			name: 'Replace All',
			action: 'Replace all labels of a chat',
			description: 'Sets exactly these labels: labels not listed are removed',
			wireNote: 'POST replaces',
			method: 'POST',
			path: '/chats/{chat_id}/labels',
			// Replacing with the same set twice gives the same state, so this POST is safe to retry.
			effect: 'idempotent',
			// No empty set: a blank value (an expression that evaluated to "") would silently wipe every label.
			// Removing them all is its own operation, Remove All.
			fields: [
				chatId,
				{
					...labelsBody('The complete new label set of the chat (at least one label); to remove every label, use Remove All'),
					requiredMessage: 'is empty: Replace All needs at least one label (to remove every label, choose the Remove All operation)',
				},
			],
		},
		{
			resource: 'label',
			operation: 'removeAll',
			irreversible: true,
			destructive: true,
			name: 'Remove All',
			action: 'Remove all labels from a chat',
			description: 'Removes every label of the chat',
			wireNote: 'POST replaces with an empty set',
			method: 'POST',
			path: '/chats/{chat_id}/labels',
			effect: 'idempotent',
			friendlyOf: 'label:replace',
			fixedBody: { labels: [] },
			fields: [chatId],
		},
		{
			resource: 'label',
			operation: 'remove',
			destructive: true,
			name: 'Remove',
			action: 'Remove labels from a chat',
			description: 'Removes these labels and keeps the others',
			wireNote: 'reads the set with GET, then replaces it with POST',
			method: 'POST',
			path: '/chats/{chat_id}/labels',
			effect: 'idempotent',
			friendlyOf: 'label:replace',
			fields: [chatId, labelsToRemove],
			readModifyWrite: {
				read: 'label:get',
				// Removing the last labels leaves an empty set: that write is Remove All, Replace All refuses it.
				write: (combined) => (Array.isArray(combined.labels) && combined.labels.length === 0 ? 'label:removeAll' : 'label:replace'),
				combine: (input, current, body) => {
					// The labels as the request itself reads them: a list or one comma-separated string.
					const remove = new Set(body.labels as string[]);
					return { chat_id: input.chat_id, labels: currentLabels(current).filter((label) => !remove.has(label)) };
				},
			},
		},
	],
};
