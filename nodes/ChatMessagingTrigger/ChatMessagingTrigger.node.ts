import { timingSafeEqual } from 'crypto';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { EVENT_TYPES } from '../../api';
import { toNodeError } from '../shared/errors';
import { CREDENTIAL_TYPE, createExecutor } from '../shared/transport';
import { eventKey, malformedReason, SEEN_EVENTS_LIMIT, SeenEvents, toEvent } from './events';
import {
	deleteSubscription,
	isNotFound,
	listSubscriptions,
	newSecret,
	readState,
	SECRET_PARAMETER,
	syncSubscriptions,
	urlWithoutSecret,
	urlWithSecret,
} from './subscriptions';

const seenEvents = new SeenEvents();

function chosenEvents(context: IHookFunctions | IWebhookFunctions): string[] {
	const events = context.getNodeParameter('events', []) as string[];
	return Array.isArray(events) ? events.map(String) : [];
}

function sameSecret(given: unknown, expected: string): boolean {
	if (typeof given !== 'string') return false;
	const a = Buffer.from(given);
	const b = Buffer.from(expected);
	return a.length === b.length && timingSafeEqual(a, b);
}

function nodeKey(context: IWebhookFunctions): string {
	return `${context.getWorkflow().id ?? ''}|${context.getNode().id ?? context.getNode().name}`;
}

export class ChatMessagingTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Chat Messaging Trigger',
		name: 'chatMessagingTrigger',
		icon: { light: 'file:chat-messaging.svg', dark: 'file:chat-messaging.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["events"].join(", ")}}',
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
		properties: [
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				required: true,
				options: EVENT_TYPES.map((event) => ({ name: event.name, value: event.value, description: event.description })),
				default: ['message:received:new'],
				description: 'The events that start the workflow; one webhook subscription is registered per event',
			},
		],
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const state = readState(this);
				const webhookUrl = this.getNodeWebhookUrl('default');
				const events = chosenEvents(this);
				if (!webhookUrl || !state.secret || !state.subscriptionIds?.length) return false;
				if ([...(state.events ?? [])].sort().join() !== [...events].sort().join()) return false;
				const expectedUrl = urlWithSecret(webhookUrl, state.secret);
				const executor = await createExecutor(this);
				for (const id of state.subscriptionIds) {
					try {
						const subscription = (await executor.run('webhook:get', { id })) as IDataObject;
						if (subscription.url !== expectedUrl || subscription.enabled === false) return false;
					} catch (error) {
						if (isNotFound(error)) {
							this.logger.debug(`Chat Messaging webhook subscription ${id} no longer exists; it will be registered again`);
							return false;
						}
						throw toNodeError(this.getNode(), error);
					}
				}
				return true;
			},

			async create(this: IHookFunctions): Promise<boolean> {
				const webhookUrl = this.getNodeWebhookUrl('default');
				if (!webhookUrl) throw new NodeOperationError(this.getNode(), 'n8n did not provide a webhook URL for this trigger');
				const events = chosenEvents(this);
				if (!events.length) throw new NodeOperationError(this.getNode(), 'events: choose at least one event');
				const state = readState(this);
				const secret = state.secret ?? newSecret();
				try {
					const executor = await createExecutor(this);
					state.subscriptionIds = await syncSubscriptions(executor, webhookUrl, events, secret);
				} catch (error) {
					throw toNodeError(this.getNode(), error);
				}
				state.secret = secret;
				state.events = events;
				return true;
			},

			async delete(this: IHookFunctions): Promise<boolean> {
				const state = readState(this);
				const webhookUrl = this.getNodeWebhookUrl('default');
				try {
					const executor = await createExecutor(this);
					const ids = new Set(state.subscriptionIds ?? []);
					// Subscriptions whose ids were lost (static data not saved) are found by their URL.
					if (webhookUrl) {
						for (const item of await listSubscriptions(executor)) {
							if (urlWithoutSecret(item.url) === webhookUrl) ids.add(item.id);
						}
					}
					for (const id of ids) await deleteSubscription(executor, id);
				} catch (error) {
					this.logger.warn(`Could not delete the Chat Messaging webhook subscriptions: ${(error as Error).message}`);
					return false;
				}
				delete state.subscriptionIds;
				delete state.secret;
				delete state.events;
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const response = this.getResponseObject();
		const state = this.getWorkflowStaticData('node') as IDataObject;
		const query = this.getQueryData() as IDataObject;
		if (typeof state.secret !== 'string' || !sameSecret(query[SECRET_PARAMETER], state.secret)) {
			response.status(401).json({ status: 'error', message: 'Unauthorized: missing or wrong secret' });
			return { noWebhookResponse: true };
		}

		const body: unknown = this.getBodyData();
		const problem = malformedReason(body);
		if (problem) {
			response.status(400).json({ status: 'error', message: `Malformed delivery: ${problem}` });
			return { noWebhookResponse: true };
		}

		const event = toEvent(body as IDataObject);
		if (!chosenEvents(this).includes(event.event_type)) {
			return { webhookResponse: { status: 'ok', ignored: `event ${event.event_type} is not chosen in this trigger` } };
		}

		const key = eventKey(event);
		if (key) {
			const persisted = Array.isArray(state.seenEvents) ? (state.seenEvents as string[]) : [];
			if (!seenEvents.remember(nodeKey(this), key, persisted)) {
				return { webhookResponse: { status: 'ok', duplicate: true } };
			}
			state.seenEvents = seenEvents.recent(nodeKey(this)).slice(-SEEN_EVENTS_LIMIT);
		}

		return { workflowData: [[{ json: event }]] };
	}
}
