/**
 * What is the adapter's own in taking a delivery: the Request it reads (its body streamed with a cap), the Response it
 * writes, and the SDK's state as the store of delivered events. The method, the secret or the verifier, the size and
 * the body are the core's way in (admitDelivery), the chosen events and redeliveries its deliveryAnswer.
 */
import {
	admitDelivery,
	deliveryAnswer,
	SECRET_PARAMETER,
	SEEN_EVENTS_TTL_MS,
	secretOfUrl,
	type Admission,
	type ChatEvent,
	type DeliveryAnswer,
	type DeliveryBody,
	type DeliveryGate,
} from '@chat-messaging/core';
import type { ChatInstance, Logger } from 'chat';

import { askFor } from './credentials';
import type { Credential, WebhookVerifier } from './configuration';
import { ADAPTER_NAME } from './messages';

export { SECRET_PARAMETER };

/** The events a bot hears: customers' messages, teammates' messages, new chats. */
export const WEBHOOK_EVENTS = ['message:received:new', 'message:sent:new', 'chat:created'] as const;

/** What the adapter counted since it started: deliveries taken, redeliveries recognised, refusals. */
export interface WebhookCounts {
	accepted: number;
	redeliveries: number;
	refused: number;
}

export const json = (sent: DeliveryAnswer): Response =>
	new Response(JSON.stringify(sent.body), { status: sent.status, headers: { 'content-type': 'application/json', ...sent.headers } });

/** The body, read chunk by chunk until it passes `limit` (then the rest is left unread). */
async function readBody(request: Request, limit: number): Promise<DeliveryBody> {
	if (!request.body) return { raw: '' };
	const reader = request.body.getReader();
	const chunks: Uint8Array[] = [];
	let size = 0;
	for (;;) {
		const { done, value } = await reader.read();
		if (done) return { raw: Buffer.concat(chunks) };
		size += value.byteLength;
		if (size > limit) {
			await reader.cancel();
			return { tooLarge: true };
		}
		chunks.push(value);
	}
}

/** Who may deliver: the verifier alone when one is given (with the request), else whoever knows the webhook secret. */
export async function gateOf(
	request: Request,
	secret: Credential | undefined,
	verifier: WebhookVerifier | undefined,
): Promise<DeliveryGate> {
	if (verifier) return { verify: (body) => verifier(request, body) };
	return { secret: secret === undefined ? undefined : await askFor(secret) };
}

/** The core's way in for a Request; a refused secret or verifier is counted and logged. */
export async function admitRequest(request: Request, gate: DeliveryGate, counts: WebhookCounts, logger: Logger): Promise<Admission> {
	const declared = Number(request.headers.get('content-length') ?? undefined);
	const admission = await admitDelivery(
		{
			method: request.method,
			secret: secretOfUrl(request.url),
			declaredSize: Number.isFinite(declared) ? declared : undefined,
			readBody: (limit) => readBody(request, limit),
		},
		gate,
	);
	if ('refused' in admission && admission.refused.status === 401) {
		counts.refused++;
		logger.warn('verify' in gate ? 'Delivery refused by the webhook verifier' : 'Delivery refused: no or wrong secret in the webhook URL');
	}
	return admission;
}

/**
 * The answer to an admitted delivery, and whether the bot takes it: an event type it does not hear is ignored, and a
 * redelivery of one taken (by this instance or another sharing the state: Redis) is answered as such.
 */
export async function answerDelivery(
	chat: ChatInstance,
	event: ChatEvent,
	counts: WebhookCounts,
	logger: Logger,
): Promise<{ answer: DeliveryAnswer; taken: boolean }> {
	const state = chat.getState();
	const step = await deliveryAnswer(event, {
		chosen: WEBHOOK_EVENTS,
		seen: { remember: (key) => state.setIfNotExists(`${ADAPTER_NAME}:event:${key}`, true, SEEN_EVENTS_TTL_MS) },
	});
	if (step.storeError !== undefined) {
		logger.warn('Could not record the delivery in the state: asking for a redelivery', { error: String(step.storeError) });
	}
	if (step.answer.body.duplicate === true) counts.redeliveries++;
	return step;
}
