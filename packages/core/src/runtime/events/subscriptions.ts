/**
 * A receiver's webhook subscriptions on the service: its secret, kept in sync (one enabled subscription
 * per event type, leftovers removed), deleted, and their addresses checked and redacted.
 */
import { createHmac } from 'crypto';
import { ChatMessagingError, isNotFound, unexpectedResponse } from '../errors';
import type { Executor } from '../executor';
import { receiverUrlProblem } from '../../catalogue/fields';
import { isRecord } from '../validation';

/**
 * A receiver's secret that survives restarts and redeploys without being stored: derived from the
 * token and a stable name of the receiver (a Node-RED node id). Deliveries the service retries
 * after a restart still carry it, so none is refused; a new token gives a new secret.
 */
export function receiverSecret(token: string, receiver: string): string {
	return createHmac('sha256', token).update(`chat-messaging receiver ${receiver}`).digest('hex').slice(0, 48);
}

/** One webhook subscription on the service. */
export interface Subscription {
	id: number;
	event_type: string;
	url: string;
	enabled: boolean;
}

function toSubscription(value: unknown): Subscription | undefined {
	if (!isRecord(value)) return undefined;
	const id = Number(value.id);
	if (!Number.isInteger(id) || typeof value.url !== 'string') return undefined;
	return { id, event_type: String(value.event_type ?? ''), url: value.url, enabled: value.enabled !== false };
}

async function listSubscriptions(executor: Executor): Promise<Subscription[]> {
	const list = await executor.run('webhook:getAll');
	if (!Array.isArray(list)) throw unexpectedResponse('GET /webhooks', 'a list of subscriptions', list, 'webhook:getAll');
	return list.map(toSubscription).filter((item): item is Subscription => item !== undefined);
}

async function subscriptionsOwned(executor: Executor, ownsUrl: (url: string) => boolean): Promise<Subscription[]> {
	return (await listSubscriptions(executor)).filter((item) => ownsUrl(item.url));
}

/** Subscriptions a workspace may hold (service notes: "at most 10 per workspace by default"). */
export const WEBHOOK_LIMIT = 10;

/**
 * Fails activation when the service could never deliver, by the receiver-URL rule (`receiverUrlProblem`).
 * `howToFix` is the platform's own advice; `field` names the setting that made the address.
 */
export function checkReceiverUrl(serviceBaseUrl: string, receiverUrl: string, howToFix: string, field = 'webhookUrl'): void {
	const problem = receiverUrlProblem(receiverUrl, serviceBaseUrl);
	if (!problem) return;
	let shown = receiverUrl;
	try {
		const receiver = new URL(receiverUrl);
		shown = `${receiver.origin}${receiver.pathname}`; // never its query, where a receiver may keep a secret
	} catch {
		// not a URL: shown as given
	}
	throw new ChatMessagingError(
		`The service can only deliver events to a public HTTPS address, and this receiver's address ${shown} ${problem}. ${howToFix}`,
		{ kind: 'input', field },
	);
}

/** A subscription URL fit to show: no query and no long path segment, where receivers keep their secrets. */
export function redactSubscriptionUrl(url: string): string {
	try {
		const parsed = new URL(url);
		const path = parsed.pathname
			.split('/')
			.map((segment) => (segment.length >= 16 && /^[\w-]+$/.test(segment) ? '…' : segment))
			.join('/');
		return `${parsed.origin}${path}${parsed.search ? '?…' : ''}`;
	} catch {
		return '(not a URL)';
	}
}

/** The record member of a webhook subscription that holds its receiver's address. */
const RECEIVER_URL_KEY = 'url';

/**
 * A result fit for an agent (an MCP tool's result, n8n's tool variant): the receiver addresses of webhook
 * subscriptions redacted as `redactSubscriptionUrl` does, since with a receiver's secret anyone can post fake
 * events to it. Results of other resources come back as they are; the value given is never changed.
 */
export function redactReceiverUrls(op: { resource: string }, result: unknown): unknown {
	if (op.resource !== 'webhook') return result;
	const redact = (value: unknown): unknown => {
		if (Array.isArray(value)) return value.map(redact);
		if (!isRecord(value)) return value;
		return Object.fromEntries(
			Object.entries(value).map(([key, member]) => [
				key,
				key === RECEIVER_URL_KEY && typeof member === 'string' ? redactSubscriptionUrl(member) : redact(member),
			]),
		);
	};
	return redact(result);
}

/**
 * A refused create, explained when the workspace is at its limit: how many subscriptions exist and
 * where they point, so the user knows which to delete. Otherwise the service's own error.
 */
async function explainRefusedCreate(executor: Executor, error: unknown): Promise<unknown> {
	if (!(error instanceof ChatMessagingError) || error.kind !== 'service') return error;
	let all: Subscription[];
	try {
		all = await listSubscriptions(executor);
	} catch {
		return error;
	}
	if (all.length < WEBHOOK_LIMIT) return error;
	const urls = [...new Set(all.map((item) => redactSubscriptionUrl(item.url)))];
	return error.with(
		`The workspace already holds ${all.length} webhook subscriptions, the service's limit of ${WEBHOOK_LIMIT} (${error.message}). ` +
			`They point at: ${urls.join(', ')}. Delete the ones no longer in use (Webhook → Delete, or in the web application), then activate again`,
		{ operation: 'webhook:create' },
	);
}

export interface SubscriptionTarget {
	/** Whether a subscription URL belongs to this receiver (any secret, any earlier run). */
	ownsUrl: (url: string) => boolean;
	/** Where this receiver wants deliveries now, secret included. */
	url: string;
	/** The event types to hold one subscription each for. */
	events: readonly string[];
}

/**
 * Makes the service hold exactly one enabled subscription at `url` per event type for this receiver:
 * reuses (re-pointing or re-enabling as needed) what the receiver owns, creates what is missing and
 * deletes the rest, leftovers of earlier runs included, so restarts never pile up subscriptions (the
 * service allows 10 per workspace). Returns the ids, in the order of `events`.
 */
export async function syncSubscriptions(executor: Executor, target: SubscriptionTarget): Promise<number[]> {
	const owned = await subscriptionsOwned(executor, target.ownsUrl);
	const kept: number[] = [];
	for (const eventType of new Set(target.events)) {
		const existing = owned.find((item) => item.event_type === eventType && !kept.includes(item.id));
		if (existing) {
			if (existing.url !== target.url || !existing.enabled) {
				await executor.run('webhook:update', { id: existing.id, url: target.url, enabled: true });
			}
			kept.push(existing.id);
			continue;
		}
		const created = toSubscription(
			await executor
				.run('webhook:create', { event_type: eventType, url: target.url, enabled: true })
				.catch(async (error: unknown) => await Promise.reject(await explainRefusedCreate(executor, error))),
		);
		if (!created) {
			throw new ChatMessagingError('The service did not return the new webhook subscription', {
				kind: 'service',
				operation: 'webhook:create',
			});
		}
		kept.push(created.id);
	}
	await deleteSubscriptions(
		executor,
		owned.filter((item) => !kept.includes(item.id)).map((item) => item.id),
	);
	return kept;
}

/**
 * Deletes the subscriptions with these ids and, given `ownsUrl`, every other one this receiver owns
 * (those whose ids were lost). One already gone (404) counts as deleted.
 */
export async function deleteSubscriptions(executor: Executor, ids: Iterable<number>, ownsUrl?: (url: string) => boolean): Promise<void> {
	const all = new Set(ids);
	if (ownsUrl) for (const item of await subscriptionsOwned(executor, ownsUrl)) all.add(item.id);
	for (const id of all) {
		try {
			await executor.run('webhook:delete', { id });
		} catch (error) {
			if (!isNotFound(error)) throw error;
		}
	}
}
