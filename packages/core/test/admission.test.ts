/**
 * The one way in (runtime/events/admission.ts) and what follows it (runtime/events/deliveryStep.ts): the order of the
 * checks, the secret compared whatever its length, a verifier that alone decides, the size before and after reading,
 * a body a runtime parsed first; then the chosen events, redeliveries, and the filters and takeover that drop an event
 * or name why they could not be checked. No request reaches a service here: the events carry their chat.
 */
import {
	admitDelivery,
	DELIVERY_ANSWERS,
	deliveryAnswer,
	deliveryStep,
	Executor,
	HumanTakeover,
	INBOX_OFF,
	MAX_DELIVERY_BYTES,
	readEventFilter,
	secretOfUrl,
	SeenEvents,
	type ChatEvent,
	type DeliveryBody,
	type DeliveryRequest,
} from '../src';

const SECRET = 'f00d'.repeat(12);
const valid = JSON.stringify({ event_type: 'message:received:new', data: { chat_id: 3, message_uid: 'U-1', text: 'hi' } });

function request(overrides: Partial<DeliveryRequest> & { body?: DeliveryBody } = {}): DeliveryRequest & { reads: number } {
	const sent = {
		method: 'POST',
		secret: SECRET,
		reads: 0,
		readBody: async () => {
			sent.reads++;
			return overrides.body ?? { raw: valid };
		},
		...overrides,
	};
	return sent;
}

describe('admitDelivery', () => {
	it('admits a POST with the secret and a delivery, read from text or bytes or a parsed body', async () => {
		for (const body of [{ raw: valid }, { raw: new TextEncoder().encode(`\uFEFF${valid}`) }, { parsed: JSON.parse(valid), size: 80 }]) {
			const admission = await admitDelivery(request({ body }), { secret: SECRET });
			expect(admission).toMatchObject({ event: { event_type: 'message:received:new', chat_id: 3, message_uid: 'U-1' } });
		}
	});

	it('refuses in order: method, secret (body unread), size, JSON, shape', async () => {
		const wrongMethod = request({ method: 'GET', secret: 'wrong' });
		expect(await admitDelivery(wrongMethod, { secret: SECRET })).toEqual({ refused: DELIVERY_ANSWERS.wrongMethod });
		expect(DELIVERY_ANSWERS.wrongMethod).toMatchObject({ status: 405, headers: { Allow: 'POST' } });
		for (const secret of ['wrong', SECRET.slice(1), `${SECRET}0`, '', null, undefined]) {
			const sent = request({ secret });
			expect(await admitDelivery(sent, { secret: SECRET })).toEqual({ refused: DELIVERY_ANSWERS.wrongSecret });
			expect(sent.reads).toBe(0);
		}
		// No secret set: nobody is admitted, not even a delivery without one.
		for (const expected of [undefined, '']) {
			expect(await admitDelivery(request({ secret: '' }), { secret: expected })).toEqual({ refused: DELIVERY_ANSWERS.wrongSecret });
		}
		const declared = request({ declaredSize: MAX_DELIVERY_BYTES + 1 });
		expect(await admitDelivery(declared, { secret: SECRET })).toEqual({ refused: DELIVERY_ANSWERS.tooLarge });
		expect(declared.reads).toBe(0);
		for (const body of [
			{ tooLarge: true as const },
			{ raw: 'x'.repeat(MAX_DELIVERY_BYTES + 1) },
			{ parsed: {}, size: MAX_DELIVERY_BYTES + 1 },
		]) {
			expect(await admitDelivery(request({ body }), { secret: SECRET })).toEqual({ refused: DELIVERY_ANSWERS.tooLarge });
		}
		expect(await admitDelivery(request({ body: { raw: 'not json {' } }), { secret: SECRET })).toEqual({
			refused: DELIVERY_ANSWERS.notJson,
		});
		expect(await admitDelivery(request({ body: { raw: '{"data":{}}' } }), { secret: SECRET })).toEqual({
			refused: { status: 400, body: { status: 'error', message: 'Malformed delivery: the body must hold a string event_type' } },
		});
		expect(await admitDelivery(request({ body: { parsed: 'text', size: 4 } }), { secret: SECRET })).toEqual({
			refused: DELIVERY_ANSWERS.malformed('the body must be a JSON object'),
		});
	});

	it('with a verifier, the verifier alone decides, on the raw body: a throw or a falsy answer is 401', async () => {
		const seen: string[] = [];
		const admitted = await admitDelivery(request({ secret: null }), { verify: (raw) => seen.push(raw) });
		expect(admitted).toHaveProperty('event');
		expect(seen).toEqual([valid]);
		for (const verify of [
			() => false,
			() => null,
			async () => 0,
			() => Promise.reject(new Error('bad token')),
			() => {
				throw new Error('bad token');
			},
		]) {
			expect(await admitDelivery(request({ secret: SECRET }), { verify })).toEqual({ refused: DELIVERY_ANSWERS.notVerified });
		}
		// Still POST only, and never a body past the limit handed to it.
		const verify = jest.fn(() => true);
		expect(await admitDelivery(request({ method: 'PUT' }), { verify })).toEqual({ refused: DELIVERY_ANSWERS.wrongMethod });
		expect(await admitDelivery(request({ body: { tooLarge: true } }), { verify })).toEqual({ refused: DELIVERY_ANSWERS.tooLarge });
		expect(verify).not.toHaveBeenCalled();
	});

	it('reads the secret of a webhook URL, relative or not', () => {
		expect(secretOfUrl(`https://bot.example/hook?a=1&secret=${SECRET}`)).toBe(SECRET);
		expect(secretOfUrl(`/webhook/x?secret=abc`)).toBe('abc');
		expect(secretOfUrl('https://bot.example/hook')).toBeNull();
	});
});

const event = (chat: Record<string, unknown>, uid = 'M1'): ChatEvent => ({
	event_type: 'message:received:new',
	chat_id: 5,
	chat_name: 'x',
	text: 'hi',
	message_uid: uid,
	unattended: null,
	raw: { chat: { id: 5, labels: [], is_group: false, chatapp_account_id: 'a@c.us', ...chat }, message: { origin: 'Web' } },
});

/** An executor whose every request is refused (a 403 is never retried): a lookup asked of it could not be made. */
const unreachable = new Executor({
	baseUrl: 'http://127.0.0.1:9',
	token: 'unused',
	transport: async () => ({ status: 403, headers: {}, body: { status: 'error', message: 'no lookups here' } }),
	rateLimit: false,
	timing: { sleep: () => Promise.resolve(), now: () => 0, random: () => 0 },
});

describe('deliveryAnswer', () => {
	it('answers an unchosen event and a redelivery without taking them; a store that fails asks for the delivery again', async () => {
		const seen = new SeenEvents();
		const chosen = ['message:received:new'];
		expect(await deliveryAnswer(event({}), { chosen, seen })).toEqual({ answer: DELIVERY_ANSWERS.accepted, taken: true });
		expect(await deliveryAnswer(event({}), { chosen, seen })).toEqual({ answer: DELIVERY_ANSWERS.duplicate, taken: false });
		expect(await deliveryAnswer({ ...event({}, 'M2'), event_type: 'chat:created' }, { chosen, seen })).toEqual({
			answer: { status: 200, body: { status: 'ok', ignored: 'event chat:created is not chosen here' } },
			taken: false,
		});
		const failing = await deliveryAnswer(event({}, 'M3'), { chosen, seen: { remember: () => Promise.reject(new Error('redis down')) } });
		expect(failing).toMatchObject({ answer: { status: 503 }, taken: false, storeError: new Error('redis down') });
		// Without a store (or a key), every delivery is new.
		expect(await deliveryAnswer(event({}), { chosen })).toMatchObject({ taken: true });
	});
});

describe('deliveryStep', () => {
	const takeover = () => new HumanTakeover({ ...INBOX_OFF, skipAssigned: true }, () => 0);

	it('drops by filter, then by takeover; passes with no problem otherwise', async () => {
		const labels = readEventFilter({ labels: 'vip' });
		expect(await deliveryStep(unreachable, event({ labels: ['other'] }), { filter: labels, takeover: takeover() })).toEqual({
			passed: false,
			droppedBy: 'filter',
		});
		expect(
			await deliveryStep(unreachable, event({ labels: ['VIP'], responsible_email: 'ann@x.test' }), {
				filter: labels,
				takeover: takeover(),
			}),
		).toEqual({ passed: false, droppedBy: 'takeover', reason: 'assigned' });
		expect(
			await deliveryStep(unreachable, event({ labels: ['VIP'], responsible_email: '' }), { filter: labels, takeover: takeover() }),
		).toEqual({ passed: true, problems: {} });
		expect(await deliveryStep(unreachable, event({}), {})).toEqual({ passed: true, problems: {} });
	});

	it('a lookup that fails names its check and the event goes on; the other check is still made', async () => {
		const bare: ChatEvent = { ...event({}), raw: { data: { chat_id: 5 } } };
		const step = await deliveryStep(unreachable, bare, { filter: readEventFilter({ labels: 'vip' }), takeover: takeover() });
		expect(step).toMatchObject({ passed: true, problems: { filter: expect.any(String), takeover: expect.any(String) } });
		const carried = { ...bare, raw: { data: { chat_id: 5 }, chat: { responsible_email: 'ann@x.test' } } };
		expect(await deliveryStep(unreachable, carried, { filter: readEventFilter({ labels: 'vip' }), takeover: takeover() })).toEqual({
			passed: false,
			droppedBy: 'takeover',
			reason: 'assigned',
		});
	});
});
