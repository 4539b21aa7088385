/** Webhook subscriptions that push events to an HTTPS endpoint. */
import { EVENT_TYPES, field, webhookId } from '../fields';
import type { ResourceDescriptor } from '../types';

const webhookUrl = (required: boolean) =>
	field('body', 'url', 'URL', 'receiverUrl', 'Public HTTPS address the service delivers the events to', {
		required,
		placeholder: 'https://example.com/hook',
	});

export const webhookResource: ResourceDescriptor = {
	key: 'webhook',
	name: 'Webhook',
	description: 'Subscriptions that push events to an HTTPS endpoint (at most 10 per workspace)',
	toolset: 'webhooks',
	administrative: true,
	operations: [
		{
			resource: 'webhook',
			operation: 'create',
			name: 'Create',
			action: 'Create a webhook subscription',
			description: 'Subscribe an HTTPS endpoint to one event type',
			method: 'POST',
			path: '/webhooks',
			answer: { one: 'Webhook' },
			effect: 'create',
			fields: [
				field('body', 'event_type', 'Event Type', 'options', 'Event to deliver', {
					required: true,
					options: EVENT_TYPES,
					default: 'message:received:new',
				}),
				webhookUrl(true),
				field('body', 'enabled', 'Enabled', 'boolean', 'Whether deliveries are made', { default: true, sendDefault: true }),
			],
		},
		{
			resource: 'webhook',
			operation: 'getAll',
			name: 'Get Many',
			action: 'Get many webhook subscriptions',
			description: 'List the webhook subscriptions',
			method: 'GET',
			path: '/webhooks',
			answer: { many: 'Webhook', member: 'webhooks' },
			effect: 'read',
			// The spec does not show this response: `data` may be the array itself or hold `webhooks`.
			unwrap: 'webhooks',
			fields: [],
		},
		{
			resource: 'webhook',
			operation: 'get',
			name: 'Get',
			action: 'Get a webhook subscription',
			description: 'One subscription, with its errors_counter',
			method: 'GET',
			path: '/webhooks/{id}',
			// The spec: one subscription "includes `errors_counter`".
			answer: { one: 'Webhook', required: ['errors_counter'] },
			effect: 'read',
			fields: [webhookId],
		},
		{
			resource: 'webhook',
			operation: 'update',
			irreversible: true,
			name: 'Update',
			action: 'Update a webhook subscription',
			description: 'Enable or disable a subscription or change its URL',
			method: 'PUT',
			path: '/webhooks/{id}',
			effect: 'idempotent',
			requiresChange: true,
			fields: [webhookId, field('body', 'enabled', 'Enabled', 'boolean', 'Whether deliveries are made'), webhookUrl(false)],
		},
		{
			resource: 'webhook',
			operation: 'delete',
			irreversible: true,
			destructive: true,
			name: 'Delete',
			action: 'Delete a webhook subscription',
			description: 'Delete a subscription',
			method: 'DELETE',
			path: '/webhooks/{id}',
			effect: 'idempotent',
			fields: [webhookId],
		},
	],
};
