/**
 * The trigger's webhook lifecycle in the service: its subscriptions, one per chosen event, point at the
 * webhook URL n8n gives the node with a secret query parameter on it (the service signs nothing, so the
 * secret is what tells real deliveries from forged ones); ids, secret and events are kept in the node's
 * static data.
 */
import { randomBytes } from 'crypto';
import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import {
	checkReceiverUrl,
	deleteSubscriptions,
	isNotFound,
	SECRET_PARAMETER,
	syncSubscriptions,
	type SeenEntry,
} from '@chat-messaging/core';
import { toNodeError } from '../shared/errors';
import { createExecutor } from '../shared/transport';

/** What the trigger keeps in the node's static data. */
export interface TriggerState extends IDataObject {
	subscriptionIds?: number[];
	secret?: string;
	events?: string[];
	/**
	 * SeenEvents' snapshot (`[key, seenAt]`; bare keys from older versions), so a restart, or another webhook
	 * process, still recognises redeliveries — where n8n saves it: 2.41.1 does not save static data written
	 * in webhook() (docs/queue-mode.md).
	 */
	seenEvents?: Array<SeenEntry | string>;
}

const PUBLIC_URL_HELP =
	"Set n8n's public webhook URL (the WEBHOOK_URL environment variable) to an https address the internet reaches, for example " +
	'through a tunnel such as cloudflared or ngrok; to try the trigger locally, point the credentials at the sandbox instead';

function urlWithSecret(webhookUrl: string, secret: string): string {
	return `${webhookUrl}${webhookUrl.includes('?') ? '&' : '?'}${SECRET_PARAMETER}=${encodeURIComponent(secret)}`;
}

/** The subscription URL without its secret, to recognise this node's subscriptions. */
function urlWithoutSecret(url: string): string {
	const [base, query = ''] = url.split('?', 2);
	const kept = query.split('&').filter((pair) => pair && !pair.startsWith(`${SECRET_PARAMETER}=`));
	return kept.length ? `${base}?${kept.join('&')}` : base;
}

const ownedBy = (webhookUrl: string) => (url: string) => urlWithoutSecret(url) === webhookUrl;

export function readState(context: IHookFunctions | IWebhookFunctions): TriggerState {
	return context.getWorkflowStaticData('node') as TriggerState;
}

export function chosenEvents(context: IHookFunctions | IWebhookFunctions): string[] {
	const events = context.getNodeParameter('events', []) as string[];
	return Array.isArray(events) ? events.map(String) : [];
}

/** Whether the subscriptions kept in static data still exist in the service as this node would make them. */
export async function subscriptionsExist(context: IHookFunctions): Promise<boolean> {
	const state = readState(context);
	const webhookUrl = context.getNodeWebhookUrl('default');
	const events = chosenEvents(context);
	if (!webhookUrl || !state.secret || !state.subscriptionIds?.length) return false;
	if ([...(state.events ?? [])].sort().join() !== [...events].sort().join()) return false;
	const expectedUrl = urlWithSecret(webhookUrl, state.secret);
	const executor = await createExecutor(context);
	for (const id of state.subscriptionIds) {
		try {
			const subscription = (await executor.run('webhook:get', { id })) as IDataObject;
			if (subscription.url !== expectedUrl || subscription.enabled === false) return false;
		} catch (error) {
			if (isNotFound(error)) {
				context.logger.debug(`Chat Messaging webhook subscription ${id} no longer exists; it will be registered again`);
				return false;
			}
			throw toNodeError(context.getNode(), error);
		}
	}
	return true;
}

/** Subscribes the node's webhook URL (with its secret) to the chosen events. */
export async function subscribe(context: IHookFunctions): Promise<boolean> {
	const webhookUrl = context.getNodeWebhookUrl('default');
	if (!webhookUrl) throw new NodeOperationError(context.getNode(), 'n8n did not provide a webhook URL for this trigger');
	const events = chosenEvents(context);
	if (!events.length) throw new NodeOperationError(context.getNode(), 'events: choose at least one event');
	const state = readState(context);
	const secret = state.secret ?? randomBytes(24).toString('hex');
	try {
		const executor = await createExecutor(context);
		checkReceiverUrl(executor.baseUrl, webhookUrl, PUBLIC_URL_HELP);
		const target = { ownsUrl: ownedBy(webhookUrl), url: urlWithSecret(webhookUrl, secret), events };
		state.subscriptionIds = await syncSubscriptions(executor, target);
	} catch (error) {
		throw toNodeError(context.getNode(), error);
	}
	state.secret = secret;
	state.events = events;
	return true;
}

/** Removes the node's subscriptions; the secret stays. */
export async function unsubscribe(context: IHookFunctions): Promise<boolean> {
	const state = readState(context);
	const webhookUrl = context.getNodeWebhookUrl('default');
	try {
		const executor = await createExecutor(context);
		// Subscriptions whose ids were lost (static data not saved) are found by their URL.
		await deleteSubscriptions(executor, state.subscriptionIds ?? [], webhookUrl ? ownedBy(webhookUrl) : undefined);
	} catch (error) {
		context.logger.warn(`Could not delete the Chat Messaging webhook subscriptions: ${(error as Error).message}`);
		return false;
	}
	delete state.subscriptionIds;
	delete state.events;
	// The secret stays: the service retries deliveries that failed while the workflow was inactive, and a
	// reactivation subscribes with the same secret, so those retries still get in.
	return true;
}
