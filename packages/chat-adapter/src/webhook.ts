/** The webhook route's first look at a delivery: its method, the secret in its URL, its size and its body. */
import { timingSafeEqual } from 'node:crypto';

import { SEEN_EVENTS_TTL_MS, eventKey, parseDelivery, type ChatEvent } from '@chat-messaging/core';
import type { ChatInstance, Logger } from 'chat';

import { ADAPTER_NAME } from './messages';

/** The query parameter of the webhook URL that carries the secret (the service signs nothing: service notes). */
export const SECRET_PARAMETER = 'secret';
/** A delivery body is a few kilobytes; anything past this is refused unread. */
const MAX_BODY_BYTES = 1024 * 1024;

/** What the adapter counted since it started: deliveries taken, redeliveries recognised, refusals. */
export interface WebhookCounts {
	accepted: number;
	redeliveries: number;
	refused: number;
}

export const json = (status: number, body: Record<string, unknown>): Response =>
	new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

function sameSecret(given: string, expected: string): boolean {
	const a = Buffer.from(given);
	const b = Buffer.from(expected);
	return a.length === b.length && timingSafeEqual(a, b);
}

/** The delivery's event, or the answer that refuses it (counted when its secret is wrong). */
export async function readDelivery(request: Request, secret: string, counts: WebhookCounts, logger: Logger): Promise<ChatEvent | Response> {
	if (request.method !== 'POST') return json(405, { status: 'error', message: 'POST only' });
	let given = '';
	try {
		given = new URL(request.url).searchParams.get(SECRET_PARAMETER) ?? '';
	} catch {
		// a relative URL carries no query we can read: refused below
	}
	if (!sameSecret(given, secret)) {
		counts.refused++;
		logger.warn('Delivery refused: no or wrong secret in the webhook URL');
		return json(401, { status: 'error', message: 'Unknown secret' });
	}
	if (Number(request.headers.get('content-length')) > MAX_BODY_BYTES) return json(413, { status: 'error', message: 'Body too large' });
	let body: unknown;
	try {
		const text = await request.text();
		if (Buffer.byteLength(text) > MAX_BODY_BYTES) return json(413, { status: 'error', message: 'Body too large' });
		body = JSON.parse(text);
	} catch {
		return json(400, { status: 'error', message: 'Malformed delivery: the body is not JSON' });
	}
	const delivery = parseDelivery(body);
	if ('malformed' in delivery) return json(400, { status: 'error', message: `Malformed delivery: ${delivery.malformed}` });
	return delivery.event;
}

/** The answer to a delivery already taken (by this instance or another sharing the state), or null for a first one. */
export async function refuseRedelivery(
	chat: ChatInstance,
	event: ChatEvent,
	counts: WebhookCounts,
	logger: Logger,
): Promise<Response | null> {
	const key = eventKey(event);
	if (key) {
		let first: boolean;
		try {
			// In the SDK's state, so every instance sharing it (Redis) recognises a redelivery another one took.
			first = await chat.getState().setIfNotExists(`${ADAPTER_NAME}:event:${key}`, true, SEEN_EVENTS_TTL_MS);
		} catch (error) {
			logger.warn('Could not record the delivery in the state: asking for a redelivery', { error: String(error) });
			return json(503, { status: 'error', message: 'State unavailable: retry' });
		}
		if (!first) {
			counts.redeliveries++;
			return json(200, { status: 'ok', duplicate: true });
		}
	}
	return null;
}
