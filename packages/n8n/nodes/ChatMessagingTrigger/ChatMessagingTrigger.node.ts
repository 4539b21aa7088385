/**
 * The Chat Messaging Trigger: an n8n adapter over the core's events. What is n8n's sits beside it: its
 * parameters (description.ts), its webhook lifecycle in the service, with the secret on the URL n8n gives
 * it (subscriptions.ts), and what a delivery at that URL becomes (delivery.ts).
 */
import { NodeConnectionTypes } from 'n8n-workflow';
import type { IHookFunctions, INodeType, INodeTypeDescription, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../shared/transport';
import { handleDelivery } from './delivery';
import { CHAT_TYPE_VERSION, friendlyEventsExpression, triggerProperties } from './description';
import { subscribe, subscriptionsExist, unsubscribe } from './subscriptions';

export class ChatMessagingTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Chat Messaging Trigger',
		name: 'chatMessagingTrigger',
		icon: { light: 'file:../../icons/chat-messaging.svg', dark: 'file:../../icons/chat-messaging.dark.svg' },
		group: ['trigger'],
		version: [1, CHAT_TYPE_VERSION],
		defaultVersion: CHAT_TYPE_VERSION,
		// Event names as the Events list shows them ("Message Received"), not the wire values.
		subtitle: `={{${friendlyEventsExpression}}}`,
		description: 'Starts the workflow when the Chat Messaging Service reports a message or a new chat',
		defaults: {
			name: 'Chat Messaging Trigger',
		},
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: CREDENTIAL_TYPE,
				required: true,
			},
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				path: 'chat-messaging',
			},
		],
		properties: triggerProperties,
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return await subscriptionsExist(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return await subscribe(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await unsubscribe(this);
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await handleDelivery(this);
	}
}
