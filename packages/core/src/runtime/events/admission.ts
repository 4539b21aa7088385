/**
 * The one way in for a webhook delivery, whichever platform received it (the n8n trigger, the Node-RED event node,
 * the chat adapter): the method, the secret its URL carries (or a verifier the platform was given), its size and its
 * body decide whether it is an event or a refusal, and every refusal is answered with the same status and words.
 *
 * The platforms keep their transport: where the request arrives, how its body is read (streamed with a cap, or
 * parsed by a runtime in front of the route), and when they answer (the service wants a 2xx within 5 seconds).
 * What an admitted event does next is deliveryStep.ts.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

import { parseDelivery, type ChatEvent } from './delivery';

/** The query parameter of a webhook URL that carries the secret (the service signs nothing: service notes). */
export const SECRET_PARAMETER = 'secret';

/** A delivery is a few kilobytes; a body past this is refused, unread where the transport allows. */
export const MAX_DELIVERY_BYTES = 1024 * 1024;

/** An answer to a delivery: its status, its JSON body and any header it needs. */
export interface DeliveryAnswer {
	status: number;
	body: Record<string, unknown>;
	headers?: Record<string, string>;
}

const refusal = (status: number, message: string, headers?: Record<string, string>): DeliveryAnswer => ({
	status,
	body: { status: 'error', message },
	...(headers ? { headers } : {}),
});

/** Every answer a delivery can get, in one place so that every platform says the same. */
export const DELIVERY_ANSWERS = {
	accepted: { status: 200, body: { status: 'ok' } } as DeliveryAnswer,
	/** A redelivery of an event already taken: 2xx, so the service stops sending it. */
	duplicate: { status: 200, body: { status: 'ok', duplicate: true } } as DeliveryAnswer,
	/** 2xx as well: the service would otherwise retry an event the receiver will never want. */
	notChosen: (eventType: string): DeliveryAnswer => ({
		status: 200,
		body: { status: 'ok', ignored: `event ${eventType} is not chosen here` },
	}),
	/** Not a refusal: the receiver cannot take the delivery now, and the service's retry will find it ready. */
	unavailable: (why: string): DeliveryAnswer => refusal(503, `Not ready for deliveries (${why}): retry`),
	wrongMethod: refusal(405, 'Method not allowed: deliveries are POST requests', { Allow: 'POST' }),
	wrongSecret: refusal(401, 'Unauthorized: missing or wrong secret'),
	notVerified: refusal(401, 'Unauthorized: the webhook verifier refused the delivery'),
	tooLarge: refusal(413, `Payload too large: a delivery is at most ${MAX_DELIVERY_BYTES} bytes`),
	notJson: refusal(400, 'Malformed delivery: the body is not JSON'),
	malformed: (why: string): DeliveryAnswer => refusal(400, `Malformed delivery: ${why}`),
};

/**
 * A body as the transport read it: its bytes or text; what a parser in front of the route made of it (n8n's, a
 * Node-RED middleware's), with the size it read; or word that it passed the limit given to the reader.
 */
export type DeliveryBody = { raw: string | Uint8Array } | { parsed: unknown; size: number } | { tooLarge: true };

export interface DeliveryRequest {
	method: string;
	/** The secret the delivery's URL carries, as the platform found it there; null or undefined when it carries none. */
	secret?: string | null;
	/** The size the request declares (its Content-Length), when it declares one. */
	declaredSize?: number;
	/** Reads the body, stopping once it passes `limit` bytes. Called only once the method and secret are right. */
	readBody(limit: number): Promise<DeliveryBody>;
}

/**
 * Who may deliver: whoever knows the secret of the webhook URL (undefined: no secret is set, so nobody), or whoever a
 * verifier the platform was given admits. A verifier, when given, alone decides: it gets the raw body, and a throw or
 * a falsy answer refuses.
 */
export type DeliveryGate = { secret: string | Uint8Array | undefined } | { verify(rawBody: string): unknown };

/** The event, or the answer that refuses the delivery. */
export type Admission = { event: ChatEvent } | { refused: DeliveryAnswer };

/** Constant time whatever the lengths: the digests are compared, never the secrets themselves. */
function sameSecret(given: string | null | undefined, expected: string | Uint8Array | undefined): boolean {
	if (typeof given !== 'string' || given === '' || expected === undefined || expected.length === 0) return false;
	const digest = (value: string | Uint8Array) => createHash('sha256').update(value).digest();
	return timingSafeEqual(digest(given), digest(expected));
}

const textOf = (raw: string | Uint8Array): string => (typeof raw === 'string' ? raw : Buffer.from(raw).toString('utf8'));
const sizeOf = (raw: string | Uint8Array): number => (typeof raw === 'string' ? Buffer.byteLength(raw) : raw.byteLength);

/**
 * Decides on one delivery, in this order: the method (POST), the secret (before anything of the body is read), the
 * declared then the actual size, the verifier (on the raw body), JSON, and the shape of a delivery.
 */
export async function admitDelivery(request: DeliveryRequest, gate: DeliveryGate): Promise<Admission> {
	if (request.method.toUpperCase() !== 'POST') return { refused: DELIVERY_ANSWERS.wrongMethod };
	if ('secret' in gate && !sameSecret(request.secret, gate.secret)) return { refused: DELIVERY_ANSWERS.wrongSecret };
	if (request.declaredSize !== undefined && request.declaredSize > MAX_DELIVERY_BYTES) return { refused: DELIVERY_ANSWERS.tooLarge };

	const read = await request.readBody(MAX_DELIVERY_BYTES);
	if ('tooLarge' in read || ('raw' in read ? sizeOf(read.raw) : read.size) > MAX_DELIVERY_BYTES) {
		return { refused: DELIVERY_ANSWERS.tooLarge };
	}
	if ('verify' in gate) {
		const rawBody = 'raw' in read ? textOf(read.raw) : JSON.stringify(read.parsed ?? null);
		let verified: unknown;
		try {
			verified = await gate.verify(rawBody);
		} catch {
			verified = false;
		}
		if (!verified) return { refused: DELIVERY_ANSWERS.notVerified };
	}

	let body: unknown;
	if ('raw' in read) {
		try {
			body = JSON.parse(textOf(read.raw).replace(/^\uFEFF/, ''));
		} catch {
			return { refused: DELIVERY_ANSWERS.notJson };
		}
	} else body = read.parsed;
	const delivery = parseDelivery(body);
	return 'malformed' in delivery ? { refused: DELIVERY_ANSWERS.malformed(delivery.malformed) } : { event: delivery.event };
}

/** The secret a webhook URL carries in its query (`?secret=`), or null. A URL that cannot be read carries none. */
export function secretOfUrl(url: string): string | null {
	try {
		return new URL(url, 'http://receiver.invalid').searchParams.get(SECRET_PARAMETER);
	} catch {
		return null;
	}
}
