/**
 * Webhook events, shared by the n8n trigger and the Node-RED event node: a delivery of either
 * payload shape flattened into one ChatEvent, the key that recognises a redelivery, a bounded
 * memory of seen keys, and the receiver's webhook subscriptions on the service.
 *
 * The platforms keep what is theirs: where deliveries arrive, how the secret is checked, where
 * the seen keys are stored.
 */
import { createHmac } from 'crypto';
import { ChatMessagingError, isNotFound, unexpectedResponse } from '../errors';
import type { Executor } from '../executor';
import { receiverUrlProblem } from '../../catalogue/fields';
import type { DownloadedFile } from '../../catalogue/types';
import { isRecord } from '../validation';

/** One delivery, flattened. Values a delivery does not carry are null. */
export type ChatEvent = {
	event_type: string;
	chat_id: number | string | null;
	chat_name: string | null;
	text: string | null;
	message_uid: string | null;
	unattended: boolean | null;
	/** The delivery as received. */
	raw: Record<string, unknown>;
};

const first = (...values: unknown[]): unknown => values.find((value) => value !== undefined && value !== null);

const asId = (value: unknown): number | string | null =>
	typeof value === 'number' || (typeof value === 'string' && value !== '') ? value : null;

const asText = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function asFlag(value: unknown): boolean | null {
	if (typeof value === 'boolean') return value;
	if (value === 'true' || value === 'false') return value === 'true';
	return null;
}

/**
 * Reads a webhook body of either shape: the spec's `{event_type, data: {chat_id, chat_name, text,
 * message_uid, unattended_customer}}` or the live service's `{event_type, chat: {chat_id, full_name, ...},
 * message: {text, message_uid, ...}}` (service notes). A body that is neither names what is wrong.
 */
export function parseDelivery(body: unknown): { event: ChatEvent } | { malformed: string } {
	if (!isRecord(body)) return { malformed: 'the body must be a JSON object' };
	if (typeof body.event_type !== 'string' || !body.event_type) return { malformed: 'the body must hold a string event_type' };
	if (!isRecord(body.data) && !isRecord(body.chat) && !isRecord(body.message)) {
		return { malformed: 'the body must hold a data object (or chat and message objects)' };
	}
	const data = isRecord(body.data) ? body.data : {};
	const chat = isRecord(body.chat) ? body.chat : isRecord(data.chat) ? data.chat : {};
	const message = isRecord(body.message) ? body.message : isRecord(data.message) ? data.message : {};
	// A chat:created delivery may carry the chat record itself as `data` (its id is `id`); in a message
	// event `data.id` could be the message's, so it is read only here.
	const isChat = body.event_type === 'chat:created';
	return {
		event: {
			event_type: body.event_type,
			chat_id: asId(first(data.chat_id, isChat ? data.id : undefined, chat.chat_id, chat.id, message.chat_id)),
			chat_name: asText(first(data.chat_name, isChat ? data.name : undefined, chat.chat_name, chat.full_name, chat.name)),
			text: asText(first(data.text, message.text)),
			message_uid: asText(first(data.message_uid, message.message_uid, message.uid)),
			unattended: asFlag(
				first(data.unattended_customer, body.unattended_customer, data.unattended, chat.unattended_customer, chat.unattended),
			),
			raw: body,
		},
	};
}

/** A file attached to an inbound message: its short-lived link (about 15 minutes) and what is known about it. */
export interface EventAttachment {
	url: string;
	filename?: string;
	mimeType?: string;
	size?: number;
}

/**
 * The attachments a delivery links to, in either shape: the live `message.attachments[]`
 * (`temporary_download_url`, `filename`, `mimetype`, `size`), or the message record's
 * `attachment_url`/`attachment_filename` inside `data` (or `data.attachments[]`). Download them with
 * `executor.download(attachment.url, attachment)`.
 */
export function eventAttachments(event: ChatEvent): EventAttachment[] {
	const raw = event.raw;
	const data = isRecord(raw.data) ? raw.data : {};
	const message = isRecord(raw.message) ? raw.message : isRecord(data.message) ? data.message : {};
	const listed = [message.attachments, data.attachments].find(Array.isArray) ?? [];
	const out: EventAttachment[] = [];
	for (const item of listed) {
		if (!isRecord(item)) continue;
		const url = first(item.temporary_download_url, item.url, item.download_url);
		if (typeof url !== 'string' || !url) continue;
		out.push({
			url,
			filename: asText(first(item.filename, item.name)) ?? undefined,
			mimeType: asText(first(item.mimetype, item.mime_type, item.content_type)) ?? undefined,
			size: typeof item.size === 'number' ? item.size : undefined,
		});
	}
	const single = first(data.attachment_url, message.attachment_url);
	if (!out.length && typeof single === 'string' && single) {
		out.push({ url: single, filename: asText(first(data.attachment_filename, message.attachment_filename)) ?? undefined });
	}
	return out;
}

/**
 * Whether the delivery says the message has an attachment: `has_attachment` (the sandbox's spec-shaped
 * bodies), or the live shape's `message.attachments` list (empty: none). Undefined when it does not say,
 * as in the spec's own event (`chat_id`, `chat_name`, `text`, `message_uid`).
 */
function deliverySaysAttachment(event: ChatEvent): boolean | undefined {
	const data = isRecord(event.raw.data) ? event.raw.data : {};
	const message = isRecord(event.raw.message) ? event.raw.message : isRecord(data.message) ? data.message : {};
	const flag = first(data.has_attachment, message.has_attachment);
	if (typeof flag === 'boolean') return flag;
	if (Array.isArray(message.attachments)) return message.attachments.length > 0;
	return undefined;
}

/**
 * Downloads the attachments of a message event (their links live about 15 minutes, so a flow that wants
 * the bytes must fetch them at once). The live shape links them in the delivery. The spec's event names
 * no attachment at all, so unless the delivery says there is none, the message is read (one request) and
 * the file its `attachment_url` links to is fetched. A message whose record says it has an attachment but
 * links none fails, naming the message: a file is never skipped in silence.
 */
export async function downloadEventAttachments(executor: Executor, event: ChatEvent): Promise<DownloadedFile[]> {
	let attachments = eventAttachments(event);
	if (!attachments.length && event.message_uid && deliverySaysAttachment(event) !== false) {
		const record = await executor.run('message:get', { message_uid: event.message_uid });
		if (isRecord(record) && typeof record.attachment_url === 'string' && record.attachment_url) {
			attachments = [{ url: record.attachment_url, filename: asText(record.attachment_filename) ?? undefined }];
		} else if (isRecord(record) && record.has_attachment === true) {
			throw new ChatMessagingError(
				`message ${event.message_uid} has an attachment, but its record gives no attachment_url to download it from`,
				{ kind: 'service', operation: 'message:get' },
			);
		}
	}
	const files: DownloadedFile[] = [];
	for (const attachment of attachments) files.push(await executor.download(attachment.url, attachment));
	return files;
}

/**
 * What makes two deliveries the same event: the chat for `chat:created`; otherwise the message uid,
 * or the delivery's `data.event_id` (the same on a redelivery). Undefined when the delivery carries
 * none of them: such an event is never taken for a redelivery.
 */
export function eventKey(event: ChatEvent): string | undefined {
	const data = isRecord(event.raw.data) ? event.raw.data : {};
	const subject = event.event_type === 'chat:created' ? event.chat_id : first(event.message_uid, asId(data.event_id));
	return subject === undefined || subject === null ? undefined : `${event.event_type}|${String(subject)}`;
}

/**
 * How long a delivered event is remembered. The service retries a failed delivery twice, within
 * minutes; 15 minutes covers that horizon with room, at any rate of events.
 */
export const SEEN_EVENTS_TTL_MS = 15 * 60_000;
/** A bound on memory whatever the rate (about 10 MB of keys at most); reached only above ~100 events/s. */
export const SEEN_EVENTS_LIMIT = 100_000;
/** Keys kept in a platform's persisted state (n8n static data) for restarts: the newest ones. */
export const SEEN_EVENTS_PERSISTED = 1000;

/** One remembered key and when it was first seen, as persisted: `[key, epoch ms]`. */
export type SeenEntry = [string, number];

/**
 * Event keys seen in the last `ttlMs` (bounded by `limit`), oldest first. `seed` restores a snapshot:
 * `[key, seenAt]` pairs, or bare keys (an older snapshot), taken as seen now.
 */
export class SeenEvents {
	private readonly keys = new Map<string, number>();
	private readonly ttlMs: number;
	private readonly limit: number;
	private readonly now: () => number;

	constructor(options: { ttlMs?: number; limit?: number; now?: () => number; seed?: readonly unknown[] } = {}) {
		this.ttlMs = options.ttlMs ?? SEEN_EVENTS_TTL_MS;
		this.limit = Math.max(1, options.limit ?? SEEN_EVENTS_LIMIT);
		this.now = options.now ?? (() => Date.now());
		const now = this.now();
		for (const entry of options.seed ?? []) {
			if (typeof entry === 'string') this.keys.set(entry, now);
			else if (Array.isArray(entry) && typeof entry[0] === 'string' && typeof entry[1] === 'number') this.keys.set(entry[0], entry[1]);
		}
		this.forgetOld(now);
	}

	/** Records the key; false when it was seen within the time kept (a redelivery). */
	remember(key: string): boolean {
		const now = this.now();
		this.forgetOld(now);
		if (this.keys.has(key)) return false;
		this.keys.set(key, now);
		if (this.keys.size > this.limit) this.keys.delete(this.keys.keys().next().value as string);
		return true;
	}

	/**
	 * Takes in keys another process recorded (a snapshot read back from shared storage, such as n8n's
	 * static data in queue mode, where each webhook process has its own memory). Keys already known or
	 * past the time kept are skipped; returns how many were new. New keys go to the back even when
	 * older than some already there: such a key is then forgotten a little later than its time, never
	 * earlier, so a redelivery is still recognised.
	 */
	merge(entries: readonly unknown[]): number {
		const now = this.now();
		let added = 0;
		for (const entry of entries) {
			if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'number') continue;
			const [key, seenAt] = entry as SeenEntry;
			if (this.keys.has(key) || now - seenAt >= this.ttlMs) continue;
			this.keys.set(key, seenAt);
			added++;
		}
		while (this.keys.size > this.limit) this.keys.delete(this.keys.keys().next().value as string);
		return added;
	}

	/** The newest `max` entries, oldest first: what the constructor's `seed` takes back. */
	snapshot(max = SEEN_EVENTS_PERSISTED): SeenEntry[] {
		return [...this.keys].slice(-max);
	}

	get size(): number {
		return this.keys.size;
	}

	/** Keys are kept in the order they were first seen, so the expired ones are at the front. */
	private forgetOld(now: number): void {
		for (const [key, seenAt] of this.keys) {
			if (now - seenAt < this.ttlMs) break;
			this.keys.delete(key);
		}
	}
}

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
