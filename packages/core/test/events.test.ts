/**
 * packages/core/src/runtime/events/ (delivery.ts, seenEvents.ts, subscriptions.ts): deliveries of both shapes flattened into one ChatEvent, malformed bodies named, the
 * redelivery key, the bounded memory of seen keys, and subscription management against the sandbox
 * over real HTTP (the same code the n8n trigger and the Node-RED event node run).
 */
import {
	checkReceiverUrl,
	deleteSubscriptions,
	EVENT_TYPES,
	eventAttachments,
	redactReceiverUrls,
	redactSubscriptionUrl,
	WEBHOOK_LIMIT,
	eventKey,
	Executor,
	parseDelivery,
	SEEN_EVENTS_LIMIT,
	SEEN_EVENTS_PERSISTED,
	SEEN_EVENTS_TTL_MS,
	SeenEvents,
	syncSubscriptions,
	type ChatEvent,
} from '../src';
import { startSandbox } from '@chat-messaging/sandbox';
import { ok, scripted, virtualTiming } from '../../../test/support/scripted-transport';
import { fetchTransport, realTiming } from '../../../test/support/fetch-transport';

const eventOf = (body: unknown): ChatEvent => {
	const parsed = parseDelivery(body);
	if (!('event' in parsed)) throw new Error(`malformed: ${parsed.malformed}`);
	return parsed.event;
};

describe('parseDelivery', () => {
	it("flattens the spec's shape {event_type, data{...}}", () => {
		const body = {
			event_type: 'message:received:new',
			data: {
				event_id: 'evt_1',
				chat_id: 1000001,
				chat_name: 'Anna Schmidt',
				text: 'Hallo!',
				message_uid: 'UID-1',
				unattended_customer: true,
			},
		};
		expect(parseDelivery(body)).toEqual({
			event: {
				event_type: 'message:received:new',
				chat_id: 1000001,
				chat_name: 'Anna Schmidt',
				text: 'Hallo!',
				message_uid: 'UID-1',
				unattended: true,
				raw: body,
			},
		});
	});

	it("flattens the live service's shape {event_type, chat{...}, message{...}}", () => {
		const body = {
			event_type: 'message:received:new',
			chat: {
				chat_id: 1000002,
				full_name: 'Jonas Weber',
				chat_url: 'https://app.example/chats/1000002',
				is_group: false,
				phone: '+4915112345678',
			},
			chatapp_account: { full_name: 'Shop', email: 'owner@shop.example', phone: '+4930123456' },
			message: { text: 'Is my order ready?', direction: 'inbound', message_uid: 'UID-LIVE-1', sender: { full_name: 'Jonas Weber' } },
		};
		expect(eventOf(body)).toEqual({
			event_type: 'message:received:new',
			chat_id: 1000002,
			chat_name: 'Jonas Weber',
			text: 'Is my order ready?',
			message_uid: 'UID-LIVE-1',
			unattended: null,
			raw: body,
		});
	});

	it('gives null for every value the delivery does not carry', () => {
		const body = { event_type: 'chat:created', data: { chat_id: 4, chat_name: 'Bob', unattended_customer: false } };
		expect(eventOf(body)).toEqual({
			event_type: 'chat:created',
			chat_id: 4,
			chat_name: 'Bob',
			text: null,
			message_uid: null,
			unattended: false,
			raw: body,
		});
		expect(eventOf({ event_type: 'chat:created', data: {} })).toMatchObject({
			chat_id: null,
			chat_name: null,
			text: null,
			message_uid: null,
			unattended: null,
		});
	});

	it('reads the alternative field spellings and ignores values of the wrong type', () => {
		expect(eventOf({ event_type: 'x', data: { chat: { id: 7, name: 'Nested' }, message: { uid: 'U', text: 'nested' } } })).toMatchObject({
			chat_id: 7,
			chat_name: 'Nested',
			message_uid: 'U',
			text: 'nested',
		});
		expect(
			eventOf({ event_type: 'x', chat: { chat_id: 'abc', chat_name: 'Named', unattended_customer: 'true' }, message: { chat_id: 9 } }),
		).toMatchObject({
			chat_id: 'abc',
			chat_name: 'Named',
			unattended: true,
		});
		expect(
			eventOf({ event_type: 'x', data: { chat_id: '', chat_name: 5, text: {}, message_uid: 12, unattended_customer: 'yes' } }),
		).toMatchObject({
			chat_id: null,
			chat_name: null,
			text: null,
			message_uid: null,
			unattended: null,
		});
		expect(eventOf({ event_type: 'x', data: { unattended: 'false' } }).unattended).toBe(false);
	});

	it.each([
		['null', null, 'JSON object'],
		['an array', [{ event_type: 'chat:created', data: {} }], 'JSON object'],
		['text', 'event_type=message:received:new', 'JSON object'],
		['no event_type', { data: { chat_id: 1 } }, 'event_type'],
		['a numeric event_type', { event_type: 7, data: {} }, 'event_type'],
		['an empty event_type', { event_type: '', data: {} }, 'event_type'],
		['no data, chat or message', { event_type: 'message:received:new' }, 'data object'],
		['a data that is not an object', { event_type: 'message:received:new', data: 'text' }, 'data object'],
	])('names what is wrong with %s', (_, body, reason) => {
		const parsed = parseDelivery(body);
		expect(parsed).toEqual({ malformed: expect.stringContaining(reason) });
	});
});

describe('eventKey', () => {
	it('keys message events by type and message uid', () => {
		expect(eventKey(eventOf({ event_type: 'message:sent:new', data: { chat_id: 1, message_uid: 'A' } }))).toBe('message:sent:new|A');
		expect(eventKey(eventOf({ event_type: 'message:received:new', data: { chat_id: 1, message_uid: 'A' } }))).toBe(
			'message:received:new|A',
		);
		expect(eventKey(eventOf({ event_type: 'message:received:new', message: { message_uid: 'L' }, chat: { chat_id: 2 } }))).toBe(
			'message:received:new|L',
		);
	});

	it('keys chat:created by its chat id', () => {
		expect(eventKey(eventOf({ event_type: 'chat:created', data: { chat_id: 9, event_id: 'evt_9' } }))).toBe('chat:created|9');
		expect(eventKey(eventOf({ event_type: 'chat:created', data: {} }))).toBeUndefined();
	});

	// Every kind the trigger and the event node accept, in both payload shapes, wherever the id may sit.
	const deliveries: Array<[string, string, Record<string, unknown>, string]> = [
		['message:received:new', 'spec', { data: { chat_id: 1, message_uid: 'R1', text: 'hi' } }, 'R1'],
		['message:received:new', 'live', { chat: { chat_id: 1 }, message: { message_uid: 'R2', text: 'hi' } }, 'R2'],
		['message:received:new', 'live, uid', { chat: { chat_id: 1 }, message: { uid: 'R3' } }, 'R3'],
		['message:sent:new', 'spec', { data: { chat_id: 1, message_uid: 'S1' } }, 'S1'],
		['message:sent:new', 'live', { chat: { chat_id: 1 }, message: { message_uid: 'S2' } }, 'S2'],
		['chat:created', 'spec, data.chat_id', { data: { chat_id: 41, chat_name: 'Ada' } }, '41'],
		['chat:created', 'spec, the chat as data', { data: { id: 42, name: 'Ada' } }, '42'],
		['chat:created', 'live, chat.id', { chat: { id: 43, full_name: 'Ada' } }, '43'],
		['chat:created', 'live, chat.chat_id', { chat: { chat_id: 44, full_name: 'Ada' } }, '44'],
	];
	it.each(deliveries)('keys %s in the %s shape', (eventType, _, body, subject) => {
		const event = eventOf({ event_type: eventType, ...body });
		expect(eventKey(event)).toBe(`${eventType}|${subject}`);
		// A redelivery, even re-serialised, has the same key.
		expect(eventKey(eventOf(JSON.parse(JSON.stringify({ event_type: eventType, ...body }))))).toBe(eventKey(event));
	});

	it('covers every event kind the nodes accept', () => {
		expect(new Set(deliveries.map(([eventType]) => eventType))).toEqual(new Set(EVENT_TYPES.map((option) => option.value)));
	});

	it('reads the chat record of a chat:created delivery as its chat', () => {
		expect(eventOf({ event_type: 'chat:created', data: { id: 42, name: 'Ada' } })).toMatchObject({ chat_id: 42, chat_name: 'Ada' });
		// In a message event data.id is not taken for the chat.
		expect(eventOf({ event_type: 'message:received:new', data: { id: 5, message_uid: 'M' } }).chat_id).toBeNull();
	});

	it("falls back to the delivery's event id, and is undefined without one (never taken for a redelivery)", () => {
		expect(eventKey(eventOf({ event_type: 'message:received:new', data: { chat_id: 1, event_id: 'evt_7' } }))).toBe(
			'message:received:new|evt_7',
		);
		// A message event without a uid is not keyed by its chat: two such messages in one chat are different events.
		expect(eventKey(eventOf({ event_type: 'message:received:new', data: { chat_id: 1 } }))).toBeUndefined();
	});
});

describe('eventAttachments', () => {
	it("reads the live shape's message.attachments[]", () => {
		const event = eventOf({
			event_type: 'message:received:new',
			chat: { chat_id: 1 },
			message: {
				message_uid: 'M',
				attachments: [
					{ temporary_download_url: 'https://cdn.example/a.jpg?sig=1', filename: 'a.jpg', mimetype: 'image/jpeg', size: 12 },
					{ filename: 'no link' },
				],
			},
		});
		expect(eventAttachments(event)).toEqual([
			{ url: 'https://cdn.example/a.jpg?sig=1', filename: 'a.jpg', mimeType: 'image/jpeg', size: 12 },
		]);
	});

	it("reads a message record's attachment_url inside data, and gives [] without any", () => {
		const event = eventOf({
			event_type: 'message:received:new',
			data: { message_uid: 'M', attachment_url: 'https://x/y.pdf', attachment_filename: 'y.pdf' },
		});
		expect(eventAttachments(event)).toEqual([{ url: 'https://x/y.pdf', filename: 'y.pdf' }]);
		expect(eventAttachments(eventOf({ event_type: 'message:received:new', data: { message_uid: 'M' } }))).toEqual([]);
	});
});

describe('SeenEvents', () => {
	const clock = () => {
		const state = { now: 1_000_000 };
		return { state, now: () => state.now };
	};
	const keysOf = (entries: Array<[string, number]>) => entries.map(([key]) => key);

	it(`remembers a key for ${SEEN_EVENTS_TTL_MS / 60_000} minutes, then forgets it`, () => {
		const { state, now } = clock();
		const seen = new SeenEvents({ now });
		expect(seen.remember('a')).toBe(true);
		state.now += SEEN_EVENTS_TTL_MS - 1;
		expect(seen.remember('a')).toBe(false);
		state.now += 1;
		expect(seen.remember('a')).toBe(true); // first seen a whole horizon ago: a new event
	});

	it('catches every late duplicate of a flood within the horizon, at any rate', () => {
		// 5,000 deliveries, 1,500 of them repeating one delivered up to 3,000 earlier (the flood).
		const { state, now } = clock();
		const seen = new SeenEvents({ now });
		let through = 0;
		for (let index = 0; index < 5000; index++) {
			state.now += 2; // 500 deliveries a second
			const key = index % 10 < 3 && index >= 3000 ? `e${index - 3000}` : `e${index}`;
			if (seen.remember(key) && key !== `e${index}`) through++;
		}
		expect(through).toBe(0);
	});

	it('is bounded by a limit whatever the rate, forgetting the oldest first', () => {
		const seen = new SeenEvents({ limit: 3 });
		expect(['a', 'b', 'c', 'a'].map((key) => seen.remember(key))).toEqual([true, true, true, false]);
		expect(seen.remember('d')).toBe(true);
		expect(seen.size).toBe(3);
		expect(keysOf(seen.snapshot())).toEqual(['b', 'c', 'd']);
		expect(seen.remember('a')).toBe(true); // 'a' was the oldest and was forgotten
		expect(SEEN_EVENTS_LIMIT).toBeGreaterThanOrEqual(100_000);
	});

	it('is restored from a snapshot with the times keys were seen (bare keys of older snapshots count as seen now)', () => {
		const { state, now } = clock();
		const seen = new SeenEvents({ now });
		seen.remember('x');
		state.now += 60_000;
		seen.remember('y');
		const snapshot = seen.snapshot();
		expect(snapshot).toEqual([
			['x', 1_000_000],
			['y', 1_060_000],
		]);
		state.now = 1_000_000 + SEEN_EVENTS_TTL_MS; // 'x' expires now, 'y' a minute later
		const restored = new SeenEvents({ now, seed: [...snapshot, 'old', 5] });
		expect(keysOf(restored.snapshot())).toEqual(['y', 'old']);
		expect(restored.remember('y')).toBe(false);
		expect(restored.remember('x')).toBe(true);
	});

	it('merge takes in the keys another process recorded, skipping known and expired ones', () => {
		const { state, now } = clock();
		const seen = new SeenEvents({ now, limit: 4 });
		seen.remember('mine');
		const elsewhere = [
			['theirs', state.now - 1000],
			['mine', state.now - 5000],
			['expired', state.now - SEEN_EVENTS_TTL_MS],
			['not an entry'],
			'bare',
		];
		expect(seen.merge(elsewhere)).toBe(1);
		expect(seen.remember('theirs')).toBe(false);
		expect(seen.remember('expired')).toBe(true);
		// A merged key is kept at least for its own time, counted from when the other process saw it.
		state.now += SEEN_EVENTS_TTL_MS - 1001;
		expect(seen.remember('theirs')).toBe(false);
		state.now += 1001;
		expect(seen.remember('theirs')).toBe(true);
		// The bound holds after a merge too: the oldest go first.
		expect(
			seen.merge([
				['a', state.now],
				['b', state.now],
				['c', state.now],
				['d', state.now],
			]),
		).toBe(4);
		expect(seen.size).toBe(4);
		expect(keysOf(seen.snapshot())).toEqual(['a', 'b', 'c', 'd']);
	});

	it(`persists only the newest ${SEEN_EVENTS_PERSISTED} keys`, () => {
		const seen = new SeenEvents();
		for (let index = 0; index < SEEN_EVENTS_PERSISTED + 5; index++) seen.remember(`k${index}`);
		expect(seen.snapshot()).toHaveLength(SEEN_EVENTS_PERSISTED);
		expect(seen.snapshot()[0][0]).toBe('k5');
	});
});

describe('checkReceiverUrl', () => {
	const HELP = 'Do this.';
	it.each([
		['https://api.chat-messaging.example', 'https://n8n.example.com/webhook/x'],
		['http://127.0.0.1:4010', 'http://127.0.0.1:5678/webhook/x'],
		['http://localhost:4010', 'http://localhost:1880/chat-messaging/events/n1/'],
		['http://192.168.1.5:4010', 'https://192.168.1.7:5678/webhook/x'],
	])('lets a service at %s deliver to %s', (service, receiver) => {
		expect(() => checkReceiverUrl(service, receiver, HELP)).not.toThrow();
	});

	it.each([
		['http://127.0.0.1:4010', 'http://example.com/webhook/x'],
		['http://192.168.1.5:4010', 'http://192.168.1.7:5678/webhook/x'],
	])('refuses a service at %s (the sandbox, which takes plain http on this machine only) delivering to %s', (service, receiver) => {
		expect(() => checkReceiverUrl(service, receiver, HELP)).toThrow(
			expect.objectContaining({ kind: 'input', message: expect.stringMatching(/is plain http away from this machine .*\. Do this\.$/) }),
		);
	});

	it.each([
		['http://n8n.example.com/webhook/x', 'is not HTTPS'],
		['http://localhost:5678/webhook/x', 'is not HTTPS'],
		['https://localhost:5678/webhook/x', 'is on this machine or a private network'],
		['https://127.0.0.1/webhook/x', 'is on this machine or a private network'],
		['https://10.0.0.3/webhook/x', 'is on this machine or a private network'],
		['https://172.20.1.1/webhook/x', 'is on this machine or a private network'],
		['https://[::1]:5678/webhook/x', 'is on this machine or a private network'],
		['https://n8n:5678/webhook/x', 'is on this machine or a private network'],
		['https://box.local/webhook/x', 'is on this machine or a private network'],
	])('refuses %s for a public service: it %s', (receiver, problem) => {
		expect(() => checkReceiverUrl('https://api.chat-messaging.example', receiver, HELP)).toThrow(
			expect.objectContaining({ kind: 'input', message: expect.stringMatching(new RegExp(`${problem}\\. Do this\\.$`)) }),
		);
	});

	it('names the address without its query (where a secret may be)', () => {
		expect(() => checkReceiverUrl('https://api.chat-messaging.example', 'http://localhost:5678/webhook/x?secret=abc', HELP)).toThrow(
			/address http:\/\/localhost:5678\/webhook\/x is not HTTPS/,
		);
	});

	it('redacts secrets from subscription URLs', () => {
		expect(redactSubscriptionUrl('https://n8n.example.com/webhook/abc/chat-messaging?secret=0123456789abcdef0123')).toBe(
			'https://n8n.example.com/webhook/abc/chat-messaging?…',
		);
		expect(redactSubscriptionUrl(`https://red.example/chat-messaging/events/n1/${'f'.repeat(48)}`)).toBe(
			'https://red.example/chat-messaging/events/n1/…',
		);
	});
});

describe('receiver addresses in what an agent reads', () => {
	const n8n = 'https://n8n.example.com/webhook/4b1e6a52-0c3d-4f7e-9a8b-2d5c6e7f8a9b/chat-messaging?secret=0123456789abcdef0123';
	const nodeRed = `https://red.example/chat-messaging/events/n1/${'f'.repeat(48)}`;

	it("masks every webhook record's url, one record or a list, and leaves the rest and the value given as they were", () => {
		const record = { id: 3, event_type: 'chat:created', url: n8n, enabled: true };
		expect(redactReceiverUrls({ resource: 'webhook' }, record)).toEqual({
			...record,
			url: 'https://n8n.example.com/webhook/…/chat-messaging?…',
		});
		expect(record.url).toBe(n8n);
		expect(redactReceiverUrls({ resource: 'webhook' }, [record, { ...record, url: nodeRed }])).toEqual([
			{ ...record, url: 'https://n8n.example.com/webhook/…/chat-messaging?…' },
			{ ...record, url: 'https://red.example/chat-messaging/events/n1/…' },
		]);
		expect(redactReceiverUrls({ resource: 'webhook' }, { deleted: true })).toEqual({ deleted: true });
	});

	it('leaves results of other resources as they are (a file link is what the agent asked for)', () => {
		const file = { uid: 'f1', url: 'https://files.example/f1?signature=abc' };
		expect(redactReceiverUrls({ resource: 'file' }, file)).toBe(file);
	});
});

describe('subscriptions: the GET /webhooks answer', () => {
	const RECEIVER = 'https://receiver.example/hooks/node-1/';
	const target = { ownsUrl: (url: string) => url.startsWith(RECEIVER), url: `${RECEIVER}s1`, events: ['chat:created'] };
	const listed = { id: 3, event_type: 'chat:created', url: `${RECEIVER}s1`, enabled: true };
	const executorAnswering = (list: unknown) => {
		const script = scripted((request) => (request.method === 'GET' ? ok(list) : ok({ ...listed, id: 4 })));
		return { script, executor: new Executor({ baseUrl: 'https://api.example', transport: script.transport, timing: virtualTiming() }) };
	};

	it.each([
		['an array', [listed]],
		['an object holding webhooks', { webhooks: [listed] }],
	])('is read when data is %s', async (_, list) => {
		const { script, executor } = executorAnswering(list);
		await expect(syncSubscriptions(executor, target)).resolves.toEqual([3]);
		expect(script.requests.map((request) => request.method)).toEqual(['GET']);
	});

	it.each([
		['another key', { subscriptions: [listed] }, 'an object with subscriptions'],
		['webhooks not a list', { webhooks: { 3: listed } }, 'an object'],
		['no data', null, 'no data'],
		['text', 'OK', 'a string'],
	])('in an unknown shape (%s) is an error naming it, and nothing is created', async (_, list, shape) => {
		const { script, executor } = executorAnswering(list);
		await expect(syncSubscriptions(executor, target)).rejects.toThrow(`The service answered GET /webhooks without`);
		await expect(syncSubscriptions(executor, target)).rejects.toThrow(shape);
		expect(script.requests.every((request) => request.method === 'GET')).toBe(true);
	});
});

describe('subscriptions against the sandbox', () => {
	type Sandbox = Awaited<ReturnType<typeof startSandbox>>;
	interface Hook {
		id: number;
		event_type: string;
		url: string;
		enabled: boolean;
	}
	let sandbox: Sandbox;
	let executor: Executor;
	/** Method and path of every request the executor sent. */
	const sent: string[] = [];
	const RECEIVER = 'https://receiver.example/hooks/node-1/';
	const ownsUrl = (url: string) => url.startsWith(RECEIVER);
	const target = (secret: string, events: string[]) => ({ ownsUrl, url: `${RECEIVER}${secret}`, events });

	beforeAll(async () => {
		sandbox = await startSandbox({ paceMs: 20, webhookRetryMs: 20, seed: 11, chats: 3, tokens: ['events-api-token'] });
		const recording: typeof fetchTransport = (request) => {
			sent.push(`${request.method} ${new URL(request.url).pathname}`);
			return fetchTransport(request);
		};
		executor = new Executor({
			baseUrl: `${sandbox.url}/`,
			transport: recording,
			timing: realTiming,
			token: sandbox.tokens[0],
			retry: { baseDelayMs: 20 },
		});
	});
	afterAll(() => sandbox.stop());
	afterEach(async () => {
		for (const hook of await hooks()) await executor.run('webhook:delete', { id: hook.id });
	});

	const hooks = async () => (await executor.run('webhook:getAll')) as Hook[];
	const mine = async () => (await hooks()).filter((hook) => ownsUrl(hook.url));
	const create = (event_type: string, url: string, enabled = true) =>
		executor.run('webhook:create', { event_type, url, enabled }) as Promise<Hook>;

	it('creates one enabled subscription per event, in the order of the events, once even if an event repeats', async () => {
		const ids = await syncSubscriptions(executor, target('s1', ['message:received:new', 'chat:created', 'message:received:new']));
		expect(ids).toHaveLength(2);
		const held = await mine();
		expect(held.map((hook) => [hook.id, hook.event_type, hook.url, hook.enabled])).toEqual([
			[ids[0], 'message:received:new', `${RECEIVER}s1`, true],
			[ids[1], 'chat:created', `${RECEIVER}s1`, true],
		]);
	});

	it('reuses what it owns: re-points to a new secret, re-enables, and changes nothing that is already right', async () => {
		const first = await syncSubscriptions(executor, target('s1', ['message:received:new', 'chat:created']));
		sent.length = 0;
		expect(await syncSubscriptions(executor, target('s1', ['message:received:new', 'chat:created']))).toEqual(first);
		expect(sent).toEqual(['GET /webhooks']);

		await executor.run('webhook:update', { id: first[1], enabled: false });
		const again = await syncSubscriptions(executor, target('s2', ['chat:created', 'message:received:new']));
		expect(again).toEqual([first[1], first[0]]);
		expect((await mine()).every((hook) => hook.url === `${RECEIVER}s2` && hook.enabled)).toBe(true);
	});

	it('deletes extras and leftovers of earlier runs, and keeps other receivers’ subscriptions', async () => {
		const foreign = await create('message:received:new', 'https://elsewhere.example/hook');
		const leftovers = [
			await create('message:received:new', `${RECEIVER}crashed-run`),
			await create('message:received:new', `${RECEIVER}older-run`, false),
		];
		const unchosen = await create('message:sent:new', `${RECEIVER}crashed-run`);

		const ids = await syncSubscriptions(executor, target('s3', ['message:received:new']));
		expect(ids).toHaveLength(1);
		expect(leftovers.map((hook) => hook.id)).toContain(ids[0]);
		const all = await hooks();
		expect(all.map((hook) => hook.id).sort()).toEqual([foreign.id, ids[0]].sort());
		expect(all.find((hook) => hook.id === unchosen.id)).toBeUndefined();
		expect(all.find((hook) => hook.id === foreign.id)?.url).toBe('https://elsewhere.example/hook');

		// No events: the receiver owns nothing afterwards.
		expect(await syncSubscriptions(executor, target('s3', []))).toEqual([]);
		expect((await hooks()).map((hook) => hook.id)).toEqual([foreign.id]);
	});

	it('deleteSubscriptions deletes by id, and with ownsUrl also the ones whose ids were lost; 404 counts as deleted', async () => {
		const foreign = await create('chat:created', 'https://elsewhere.example/hook');
		const [kept, lost] = await syncSubscriptions(executor, target('s4', ['message:received:new', 'chat:created']));
		await executor.run('webhook:delete', { id: kept }); // deleted by someone else meanwhile
		await deleteSubscriptions(executor, [kept]);
		expect((await mine()).map((hook) => hook.id)).toEqual([lost]);

		await deleteSubscriptions(executor, [kept, 987654], ownsUrl);
		expect(await mine()).toEqual([]);
		expect((await hooks()).map((hook) => hook.id)).toEqual([foreign.id]);
		await deleteSubscriptions(executor, [], ownsUrl);
	});

	it(`at the workspace's limit of ${WEBHOOK_LIMIT} the error says how many exist and where they point`, async () => {
		for (let index = 0; index < WEBHOOK_LIMIT; index++)
			await create('chat:created', `https://other-${index % 3}.example/hook?token=${index}`);
		const error = (await syncSubscriptions(executor, target('s1', ['chat:created'])).catch((caught: unknown) => caught)) as Error;
		expect(error.message).toMatch(
			`The workspace already holds ${WEBHOOK_LIMIT} webhook subscriptions, the service's limit of ${WEBHOOK_LIMIT}`,
		);
		expect(error.message).toMatch(
			'They point at: https://other-0.example/hook?…, https://other-1.example/hook?…, https://other-2.example/hook?….',
		);
		expect(error.message).not.toMatch(/token=/);
		expect(await mine()).toEqual([]);
	});

	it('passes on errors other than 404', async () => {
		const rejected = new Executor({
			baseUrl: `${sandbox.url}/`,
			transport: fetchTransport,
			timing: realTiming,
			token: 'not-a-valid-token',
			retry: { baseDelayMs: 20 },
		});
		await expect(syncSubscriptions(rejected, target('s5', ['chat:created']))).rejects.toMatchObject({
			name: 'ChatMessagingError',
			httpStatus: 401,
		});
		const [id] = await syncSubscriptions(executor, target('s5', ['chat:created']));
		await expect(deleteSubscriptions(rejected, [id])).rejects.toMatchObject({ httpStatus: 401 });
		expect((await mine()).map((hook) => hook.id)).toEqual([id]);
	});
});
