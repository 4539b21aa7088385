/**
 * The bot's webhook subscriptions on the service, by the core's subscription sync: one enabled subscription per event
 * type at the adapter's public URL (with its secret), earlier ones of the same URL re-pointed or removed, so a bot
 * starts with one call and a restart never piles subscriptions up.
 */
import { deleteSubscriptions, syncSubscriptions } from '@chat-messaging/core';

import type { ChatMessagingAdapter } from './adapter';
import { SECRET_PARAMETER, WEBHOOK_EVENTS } from './webhook';

export { WEBHOOK_EVENTS };

/** Whether a subscription URL is this route's, whatever secret it carries. */
function ownedBy(publicUrl: string): (url: string) => boolean {
	const route = withoutSecret(publicUrl);
	return (url) => withoutSecret(url) === route;
}

function withoutSecret(address: string): string {
	try {
		const url = new URL(address);
		url.searchParams.delete(SECRET_PARAMETER);
		return url.toString();
	} catch {
		return address;
	}
}

export interface WebhookSubscriptions {
	/** The subscriptions' ids, one per event type. */
	ids: number[];
	/** Removes them (and any other subscription of this route). */
	remove(): Promise<void>;
}

/**
 * Makes the service deliver `events` to the adapter's public URL (option `publicUrl`, or the one given); returns the
 * subscriptions and how to remove them.
 */
export async function syncWebhooks(
	adapter: ChatMessagingAdapter,
	options: { publicUrl?: string; events?: readonly string[] } = {},
): Promise<WebhookSubscriptions> {
	const url = await adapter.webhookUrl(options.publicUrl);
	const ownsUrl = ownedBy(url);
	const ids = await syncSubscriptions(adapter.operations, { ownsUrl, url, events: options.events ?? WEBHOOK_EVENTS });
	return { ids, remove: () => deleteSubscriptions(adapter.operations, ids, ownsUrl) };
}

/** Removes every subscription of the adapter's public URL (a bot taken down for good). */
export async function removeWebhooks(adapter: ChatMessagingAdapter, publicUrl?: string): Promise<void> {
	await deleteSubscriptions(adapter.operations, [], ownedBy(await adapter.webhookUrl(publicUrl)));
}
