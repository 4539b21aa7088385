/**
 * The trigger's webhook subscriptions on the service: one per chosen event type, all pointing at
 * this node's webhook URL with a secret query parameter (the service signs nothing, so the secret
 * in the URL is what tells real deliveries from forged ones).
 */
import { randomBytes } from 'crypto';
import type { IDataObject, IHookFunctions } from 'n8n-workflow';

import { ChatMessagingError } from '../../api';
import type { Executor } from '../../api';

/** What the trigger keeps in the node's static data between activation and deactivation. */
export interface SubscriptionState {
	subscriptionIds?: number[];
	secret?: string;
	events?: string[];
}

export interface Subscription {
	id: number;
	event_type: string;
	url: string;
	enabled: boolean;
}

export const SECRET_PARAMETER = 'secret';

export function newSecret(): string {
	return randomBytes(24).toString('hex');
}

export function urlWithSecret(webhookUrl: string, secret: string): string {
	return `${webhookUrl}${webhookUrl.includes('?') ? '&' : '?'}${SECRET_PARAMETER}=${encodeURIComponent(secret)}`;
}

/** The subscription URL without its secret, to recognise this node's subscriptions. */
export function urlWithoutSecret(url: string): string {
	const [base, query = ''] = url.split('?', 2);
	const kept = query.split('&').filter((pair) => pair && !pair.startsWith(`${SECRET_PARAMETER}=`));
	return kept.length ? `${base}?${kept.join('&')}` : base;
}

function toSubscription(value: unknown): Subscription | undefined {
	if (!value || typeof value !== 'object') return undefined;
	const record = value as IDataObject;
	const id = Number(record.id);
	if (!Number.isInteger(id) || typeof record.url !== 'string') return undefined;
	return { id, event_type: String(record.event_type ?? ''), url: record.url, enabled: record.enabled !== false };
}

export async function listSubscriptions(executor: Executor): Promise<Subscription[]> {
	const result = await executor.run('webhook:getAll');
	const list = Array.isArray(result) ? result : [];
	return list.map(toSubscription).filter((item): item is Subscription => item !== undefined);
}

export const isNotFound = (error: unknown): boolean => error instanceof ChatMessagingError && error.httpStatus === 404;

export function readState(context: IHookFunctions): SubscriptionState & IDataObject {
	return context.getWorkflowStaticData('node') as SubscriptionState & IDataObject;
}

/**
 * Makes the service hold exactly one enabled subscription per chosen event for this webhook URL:
 * reuses (and if needed re-points or re-enables) what exists, creates what is missing, deletes the
 * rest, so re-activation never piles up subscriptions (the service allows 10 per workspace).
 */
export async function syncSubscriptions(
	executor: Executor,
	webhookUrl: string,
	events: string[],
	secret: string,
): Promise<number[]> {
	const target = urlWithSecret(webhookUrl, secret);
	const mine = (await listSubscriptions(executor)).filter((item) => urlWithoutSecret(item.url) === webhookUrl);
	const kept: number[] = [];
	for (const event of events) {
		const existing = mine.find((item) => item.event_type === event && !kept.includes(item.id));
		if (existing) {
			if (existing.url !== target || !existing.enabled) {
				await executor.run('webhook:update', { id: existing.id, url: target, enabled: true });
			}
			kept.push(existing.id);
			continue;
		}
		const created = toSubscription(await executor.run('webhook:create', { event_type: event, url: target, enabled: true }));
		if (!created) {
			throw new ChatMessagingError('The service did not return the new webhook subscription', { kind: 'service', operation: 'webhook:create' });
		}
		kept.push(created.id);
	}
	for (const item of mine) {
		if (!kept.includes(item.id)) await deleteSubscription(executor, item.id);
	}
	return kept;
}

/** Deletes one subscription; one that is already gone (404) counts as deleted. */
export async function deleteSubscription(executor: Executor, id: number): Promise<void> {
	await executor.run('webhook:delete', { id }).then(
		() => undefined,
		async (error: unknown) => (isNotFound(error) ? undefined : await Promise.reject(error)),
	);
}
