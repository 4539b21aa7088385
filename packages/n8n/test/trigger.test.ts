/**
 * The Chat Messaging Trigger: subscription lifecycle against the sandbox over real HTTP, the
 * webhook's answers (secret, malformed bodies, unchosen events, duplicates, both payload shapes),
 * and real deliveries from the sandbox to an HTTP endpoint that runs the node's webhook().
 */
import type { IDataObject } from 'n8n-workflow';

import { SEEN_EVENTS_PERSISTED } from '@chat-messaging/core';
import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';
import type { Credentials } from './support/n8n-context';
import { sandboxCall } from './support/run-action';
import { callWebhook, hookContext, lifecycle, startWebhookServer, trigger, type TriggerSetup } from './support/trigger-context';
import { waitFor } from '../../../test/support/harness';

const TOKEN = 'n8n-trigger-test-token-5d1e';

let sandbox: RunningSandbox;
let credentials: Credentials;

interface Hook {
	id: number;
	url: string;
	event_type: string;
	enabled: boolean;
}

const api = (method: string, path: string, body?: unknown) => sandboxCall(sandbox.url, TOKEN, method, path, body);
const hooks = async () => ((await api('GET', '/webhooks')).webhooks as unknown as Hook[]) ?? [];
const hooksFor = async (webhookUrl: string) => (await hooks()).filter((hook) => hook.url.split('?')[0] === webhookUrl);

beforeAll(async () => {
	sandbox = await startSandbox({ tokens: [TOKEN], seed: 11, chats: 5, paceMs: 20, webhookRetryMs: 50 });
	credentials = { baseUrl: sandbox.url, apiToken: TOKEN };
});

afterAll(async () => {
	await sandbox?.stop();
});

const setupFor = (name: string, events: string[], staticData: IDataObject = {}): TriggerSetup => ({
	credentials,
	webhookUrl: `http://127.0.0.1:5678/webhook/${name}/chat-messaging`,
	events,
	staticData,
	workflowId: name,
});

describe('subscription lifecycle', () => {
	it('create registers one subscription per event with a secret; checkExists and delete follow the service', async () => {
		const unrelated = await api('POST', '/webhooks', { event_type: 'chat:created', url: 'https://elsewhere.example/hook' });
		const setup = setupFor('lifecycle', ['message:received:new', 'chat:created']);

		expect(await lifecycle.checkExists(setup)).toBe(false);
		expect(await lifecycle.create(setup)).toBe(true);
		const state = setup.staticData as { subscriptionIds: number[]; secret: string };
		expect(state.secret).toMatch(/^[0-9a-f]{48}$/);
		const mine = await hooksFor(setup.webhookUrl);
		expect(mine.map((hook) => hook.event_type).sort()).toEqual(['chat:created', 'message:received:new']);
		expect(mine.every((hook) => hook.url === `${setup.webhookUrl}?secret=${state.secret}` && hook.enabled)).toBe(true);
		expect([...state.subscriptionIds].sort()).toEqual(mine.map((hook) => hook.id).sort());
		expect(await lifecycle.checkExists(setup)).toBe(true);

		// Activating again reuses what exists: no duplicates.
		expect(await lifecycle.create(setup)).toBe(true);
		expect(await hooksFor(setup.webhookUrl)).toHaveLength(2);

		// Static data lost (never saved): the subscriptions are found by URL and re-pointed at a new secret.
		const fresh: TriggerSetup = { ...setup, staticData: {} };
		expect(await lifecycle.checkExists(fresh)).toBe(false);
		await lifecycle.create(fresh);
		const repointed = await hooksFor(setup.webhookUrl);
		expect(repointed.map((hook) => hook.id).sort()).toEqual(mine.map((hook) => hook.id).sort());
		expect(repointed.every((hook) => hook.url.endsWith(`secret=${String(fresh.staticData.secret)}`))).toBe(true);

		// Disabled or deleted behind n8n's back: checkExists says so and create repairs it.
		await api('PUT', `/webhooks/${repointed[0].id}`, { enabled: false });
		expect(await lifecycle.checkExists(fresh)).toBe(false);
		await lifecycle.create(fresh);
		expect((await hooksFor(setup.webhookUrl)).every((hook) => hook.enabled)).toBe(true);
		expect(await lifecycle.checkExists(fresh)).toBe(true);
		await api('DELETE', `/webhooks/${repointed[1].id}`);
		expect(await lifecycle.checkExists(fresh)).toBe(false);
		await lifecycle.create(fresh);
		expect(await hooksFor(setup.webhookUrl)).toHaveLength(2);

		// Fewer events: the unchosen subscription goes.
		const fewer = { ...fresh, events: ['chat:created'] };
		expect(await lifecycle.checkExists(fewer)).toBe(false);
		await lifecycle.create(fewer);
		expect((await hooksFor(setup.webhookUrl)).map((hook) => hook.event_type)).toEqual(['chat:created']);

		expect(await lifecycle.delete(fewer)).toBe(true);
		expect(await hooksFor(setup.webhookUrl)).toHaveLength(0);
		expect(fewer.staticData).not.toHaveProperty('subscriptionIds');
		// The secret outlives a deactivation: reactivating subscribes with it again, so the service's retries of
		// deliveries that failed meanwhile still get in.
		const secretBefore = fewer.staticData.secret;
		expect(secretBefore).toMatch(/^[0-9a-f]{48}$/);
		await lifecycle.create(fewer);
		expect((await hooksFor(setup.webhookUrl)).map((hook) => hook.url)).toEqual([`${setup.webhookUrl}?secret=${String(secretBefore)}`]);
		expect(await lifecycle.delete(fewer)).toBe(true);
		// Deleting again finds nothing to delete and still succeeds.
		expect(await lifecycle.delete(fewer)).toBe(true);

		expect((await hooks()).map((hook) => hook.id)).toContain(unrelated.id);
		await api('DELETE', `/webhooks/${String(unrelated.id)}`);
	});

	it('a subscription removed by someone else still lets delete succeed (404 counts as gone)', async () => {
		const setup = setupFor('gone', ['message:sent:new']);
		await lifecycle.create(setup);
		const [hook] = await hooksFor(setup.webhookUrl);
		await api('DELETE', `/webhooks/${hook.id}`);
		expect(await lifecycle.delete(setup)).toBe(true);
		expect(setup.staticData).not.toHaveProperty('subscriptionIds');
	});

	it('create fails with a NodeApiError when the token is rejected, and registers nothing', async () => {
		const setup = { ...setupFor('rejected', ['chat:created']), credentials: { ...credentials, apiToken: 'rejected-token-value-99' } };
		await expect(lifecycle.create(setup)).rejects.toMatchObject({ name: 'NodeApiError', httpCode: '401' });
		expect(await hooksFor(setup.webhookUrl)).toHaveLength(0);
	});
});

describe('activation with a public service', () => {
	it.each([
		['loopback', 'http://localhost:5678/webhook/abc/chat-messaging', /is not HTTPS/],
		['private https', 'https://192.168.1.20/webhook/abc/chat-messaging', /on this machine or a private network/],
	])('fails for a %s webhook URL, saying how to fix it, before any request', async (_, webhookUrl, problem) => {
		const setup: TriggerSetup = {
			credentials: { baseUrl: 'https://api.chat-messaging.example', apiToken: 'never-sent-token' },
			webhookUrl,
			events: ['chat:created'],
			staticData: {},
		};
		const { context, requests } = hookContext(setup);
		const error = (await trigger.webhookMethods.default.create.call(context).catch((caught: unknown) => caught)) as Error;
		expect(error.message).toMatch(problem);
		expect(error.message).toMatch(/WEBHOOK_URL/);
		expect(requests).toHaveLength(0);
		expect(setup.staticData).toEqual({});
	});
});

describe('webhook()', () => {
	const secret = 'a'.repeat(48);
	const deliver = (
		body: unknown,
		query: IDataObject = { secret },
		events = ['message:received:new', 'chat:created'],
		staticData: IDataObject = { secret },
		workflowId = 'webhook-cases',
	) => callWebhook({ body, query, events, staticData, workflowId });

	const specShape = (uid: string) => ({
		event_type: 'message:received:new',
		data: { chat_id: 1000001, chat_name: 'Anna Schmidt', text: 'Hallo!', message_uid: uid, unattended_customer: true },
	});

	it('a delivery with the right secret starts the workflow with one flat item', async () => {
		const answer = await deliver(specShape('UID-SPEC-1'));
		expect(answer.items).toEqual([
			{
				event_type: 'message:received:new',
				chat_id: 1000001,
				chat_name: 'Anna Schmidt',
				text: 'Hallo!',
				message_uid: 'UID-SPEC-1',
				unattended: true,
				raw: specShape('UID-SPEC-1'),
				// What n8n's AI Agent and chat memories read by default, as n8n's Chat Trigger names them.
				chatInput: 'Hallo!',
				sessionId: '1000001',
			},
		]);
		expect(answer.status).toBe(200);
	});

	it("the live service's shape (chat and message objects) gives the same flat item", async () => {
		const live = {
			event_type: 'message:received:new',
			chat: {
				chat_id: 1000002,
				full_name: 'Jonas Weber',
				chat_url: 'https://app.example/chats/1000002',
				is_group: false,
				phone: '+4915112345678',
			},
			chatapp_account: { full_name: 'Shop', email: 'owner@shop.example', phone: '+4930123456' },
			message: {
				text: 'Is my order ready?',
				direction: 'inbound',
				message_uid: 'UID-LIVE-1',
				sender: { full_name: 'Jonas Weber', phone: '+4915112345678' },
			},
		};
		const answer = await deliver(live);
		expect(answer.items).toEqual([
			{
				event_type: 'message:received:new',
				chat_id: 1000002,
				chat_name: 'Jonas Weber',
				text: 'Is my order ready?',
				message_uid: 'UID-LIVE-1',
				unattended: null,
				raw: live,
				chatInput: 'Is my order ready?',
				sessionId: '1000002',
			},
		]);
	});

	it.each([
		['a wrong secret', { secret: 'b'.repeat(48) }],
		['no secret', {}],
		['a secret of another length', { secret: 'a' }],
	])('%s is answered 401 and starts nothing', async (_, query) => {
		const answer = await deliver(specShape('UID-401'), query);
		expect(answer.status).toBe(401);
		expect(answer.result).toEqual({ noWebhookResponse: true });
		expect(answer.items).toEqual([]);
	});

	it('a trigger without a registered secret rejects every delivery', async () => {
		const answer = await deliver(specShape('UID-NOSECRET'), { secret: '' }, undefined, {});
		expect(answer.status).toBe(401);
	});

	it.each([
		['an array', [specShape('UID-400')]],
		['text', 'event_type=message:received:new'],
		['no event_type', { data: { chat_id: 1 } }],
		['a numeric event_type', { event_type: 7, data: {} }],
		['no data, chat or message', { event_type: 'message:received:new' }],
	])('a body that is %s is answered 400 and starts nothing', async (_, body) => {
		const answer = await deliver(body);
		expect(answer.status).toBe(400);
		expect(answer.items).toEqual([]);
		expect(JSON.stringify(answer.body)).toContain('Malformed delivery');
	});

	it('an event that is not chosen is answered 200 and ignored', async () => {
		const answer = await deliver({ ...specShape('UID-SENT'), event_type: 'message:sent:new' });
		expect(answer.status).toBe(200);
		expect(answer.result.workflowData).toBeUndefined();
	});

	it('a redelivered event starts the workflow once; chat:created is recognised by its chat id', async () => {
		const first = await deliver(specShape('UID-DUP-1'), undefined, undefined, { secret }, 'dedupe');
		const again = await deliver(specShape('UID-DUP-1'), undefined, undefined, { secret }, 'dedupe');
		const other = await deliver(specShape('UID-DUP-2'), undefined, undefined, { secret }, 'dedupe');
		expect([first.items.length, again.items.length, other.items.length]).toEqual([1, 0, 1]);
		expect(again.status).toBe(200);

		const created = { event_type: 'chat:created', data: { chat_id: 424242, chat_name: 'New chat' } };
		const createdItems = [
			await deliver(created, undefined, undefined, { secret }, 'dedupe'),
			await deliver(created, undefined, undefined, { secret }, 'dedupe'),
		];
		expect(createdItems.map((answer) => answer.items.length)).toEqual([1, 0]);
	});

	it('the test webhook keeps its own memory: an event it received still starts the production workflow', async () => {
		const staticData: IDataObject = { secret };
		const delivery = {
			body: specShape('UID-TEST-PROD'),
			query: { secret },
			events: ['message:received:new'],
			staticData,
			workflowId: 'test-prod',
		};
		const test = await callWebhook({ ...delivery, test: true });
		const production = await callWebhook(delivery);
		const productionAgain = await callWebhook(delivery);
		expect([test.items.length, production.items.length, productionAgain.items.length]).toEqual([1, 1, 0]);
		// Only production's memory is kept in static data.
		expect(staticData.seenEvents).toEqual([['message:received:new|UID-TEST-PROD', expect.any(Number)]]);
	});

	it('intake: a flood of 5,000 deliveries with 1,500 duplicates up to 3,000 apart starts each event once', async () => {
		const staticData: IDataObject = { secret };
		let started = 0;
		for (let index = 0; index < 5000; index++) {
			const duplicate = index >= 3000 && index % 4 !== 0;
			const uid = duplicate ? `FLOOD-${index - 3000}` : `FLOOD-${index}`;
			started += (await deliver(specShape(uid), undefined, undefined, staticData, 'flood')).items.length;
		}
		expect(started).toBe(5000 - 1500);
	});

	it('keeps the newest keys in static data, so a restart still recognises their redeliveries', async () => {
		const staticData: IDataObject = { secret };
		for (let index = 0; index < SEEN_EVENTS_PERSISTED + 10; index++)
			await deliver(specShape(`UID-BOUND-${index}`), undefined, undefined, staticData, 'bounded');
		expect((staticData.seenEvents as unknown[]).length).toBe(SEEN_EVENTS_PERSISTED);
		// In memory every one is still known, well within the time kept.
		expect((await deliver(specShape('UID-BOUND-0'), undefined, undefined, staticData, 'bounded')).items).toHaveLength(0);
		// A fresh memory (n8n restarted) seeded from static data knows the newest.
		expect(
			(await deliver(specShape(`UID-BOUND-${SEEN_EVENTS_PERSISTED + 9}`), undefined, undefined, { ...staticData }, 'restarted')).items,
		).toHaveLength(0);
	});
});

describe('webhook() in queue mode: several webhook processes share only the static data', () => {
	const secret = 'b'.repeat(48);
	const delivery = (uid: string, staticData: IDataObject) => ({
		body: { event_type: 'message:received:new', data: { chat_id: 1000001, text: 'Hallo!', message_uid: uid } },
		query: { secret },
		events: ['message:received:new'],
		staticData,
		workflowId: 'queue-mode',
	});

	it('a redelivery whose first delivery another process recorded in static data starts nothing', async () => {
		// This process has handled a delivery before, so its memory of the workflow exists already.
		expect((await callWebhook(delivery('UID-QUEUE-HERE', { secret }))).items).toHaveLength(1);
		// n8n reads the static data from its database per delivery: another process saved its key there.
		const recordedElsewhere: IDataObject = { secret, seenEvents: [['message:received:new|UID-QUEUE-ELSEWHERE', Date.now() - 1000]] };
		expect((await callWebhook(delivery('UID-QUEUE-ELSEWHERE', recordedElsewhere))).items).toHaveLength(0);
		// What this process saves back holds both keys, so the other process learns this one's in turn.
		const saved: IDataObject = { secret, seenEvents: [['message:received:new|UID-QUEUE-ELSEWHERE', Date.now() - 1000]] };
		expect((await callWebhook(delivery('UID-QUEUE-NEW', saved))).items).toHaveLength(1);
		const keys = (saved.seenEvents as Array<[string, number]>).map(([key]) => key);
		expect(keys).toEqual(
			expect.arrayContaining([
				'message:received:new|UID-QUEUE-HERE',
				'message:received:new|UID-QUEUE-ELSEWHERE',
				'message:received:new|UID-QUEUE-NEW',
			]),
		);
	});
});

describe('Download Attachments', () => {
	const bytes = Buffer.from(Array.from({ length: 5000 }, (_, index) => (index * 7) % 256));
	let fileUid = '';
	beforeAll(async () => {
		const form = new FormData();
		form.append('file', new Blob([bytes], { type: 'application/pdf' }), 'invoice.pdf');
		const upload = () =>
			fetch(`${credentials.baseUrl}/files_upload`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: form });
		// The flood test above keeps the event loop busy for seconds: the sandbox may have closed the kept-alive
		// socket fetch reuses here (ECONNRESET before anything was read). A second attempt opens a new one.
		const uploaded = await upload().catch(upload);
		fileUid = ((await uploaded.json()) as { data: { uid: string } }).data.uid;
	});
	const secret = 'b'.repeat(48);
	const deliverWithDownload = (body: unknown, downloadAttachments = true) =>
		callWebhook({
			body,
			query: { secret },
			events: ['message:received:new'],
			staticData: { secret },
			workflowId: `att-${Math.random()}`,
			parameters: { downloadAttachments },
			credentials,
		});

	it("puts the live shape's attachments into the item's binary data, byte-equal", async () => {
		const file = await api('GET', `/files/${fileUid}`);
		const body = {
			event_type: 'message:received:new',
			chat: { chat_id: 1 },
			message: {
				message_uid: 'ATT-LIVE',
				attachments: [{ temporary_download_url: file.temporary_download_url, filename: 'invoice.pdf', mimetype: 'application/pdf' }],
			},
		};
		const answer = await deliverWithDownload(body);
		expect(answer.binaries[0]?.attachment_0).toMatchObject({ fileName: 'invoice.pdf', mimeType: 'application/pdf' });
		expect(Buffer.from(String(answer.binaries[0]?.attachment_0.data), 'base64').equals(bytes)).toBe(true);
		expect(
			(await deliverWithDownload({ ...body, message: { ...body.message, message_uid: 'ATT-OFF' } }, false)).binaries[0],
		).toBeUndefined();
	});

	it("reads the spec shape's attachment from the message record (the delivery only says has_attachment)", async () => {
		const inbound = await api('POST', '/_sandbox/incoming', { phone: '+4915112348888', text: 'see attached', file_uid: fileUid });
		const uid = (inbound.message as IDataObject).uid;
		const answer = await deliverWithDownload({
			event_type: 'message:received:new',
			data: { chat_id: 1, message_uid: uid, has_attachment: true },
		});
		expect(Buffer.from(String(answer.binaries[0]?.attachment_0.data), 'base64').equals(bytes)).toBe(true);
	});

	it("reads the message of exactly the spec's event (chat_id, chat_name, text, message_uid: nothing about a file), once, after answering", async () => {
		const inbound = await api('POST', '/_sandbox/incoming', { phone: '+4915112347777', text: 'spec shape', file_uid: fileUid });
		const message = inbound.message as IDataObject;
		const answer = await deliverWithDownload({
			event_type: 'message:received:new',
			data: { chat_id: inbound.chat_id, chat_name: 'x', text: 'spec shape', message_uid: message.uid },
		});
		expect(answer.status).toBe(200);
		expect(answer.requestsBeforeAnswer).toBe(0);
		expect(answer.requests.filter((request) => new URL(request.url).pathname === `/messages/${String(message.uid)}`)).toHaveLength(1);
		expect(answer.binaries[0]?.attachment_0).toMatchObject({ fileName: 'invoice.pdf' });
		expect(Buffer.from(String(answer.binaries[0]?.attachment_0.data), 'base64').equals(bytes)).toBe(true);
		// A message without a file: one read, no binary, no error.
		const plain = await api('POST', '/_sandbox/incoming', { phone: '+4915112347777', text: 'no file' });
		const none = await deliverWithDownload({
			event_type: 'message:received:new',
			data: { chat_id: plain.chat_id, chat_name: 'x', text: 'no file', message_uid: (plain.message as IDataObject).uid },
		});
		expect(none.binaries[0]).toBeUndefined();
		expect(none.items[0].attachment_error).toBeUndefined();
	});

	it('a message that cannot be read gives attachment_error on the item, never silence', async () => {
		const answer = await deliverWithDownload({
			event_type: 'message:received:new',
			data: { chat_id: 1, chat_name: 'x', text: 'gone', message_uid: 'NO-SUCH-MESSAGE' },
		});
		expect(answer.items).toHaveLength(1);
		expect(answer.items[0].attachment_error).toMatch(/not found/i);
	});

	it('a download that fails does not lose the event: the item says why', async () => {
		const answer = await deliverWithDownload({
			event_type: 'message:received:new',
			chat: { chat_id: 1 },
			message: {
				message_uid: 'ATT-EXPIRED',
				attachments: [{ temporary_download_url: `${credentials.baseUrl}/_sandbox/download/x?expires=1&signature=0` }],
			},
		});
		expect(answer.items).toHaveLength(1);
		expect(answer.items[0].attachment_error).toMatch(/expired|Access denied|signature/);
	});
});

describe('real deliveries from the sandbox', () => {
	it('an inbound message delivered twice reaches the workflow once; forged calls are refused', async () => {
		const staticData: IDataObject = {};
		const endpoint = await startWebhookServer(['message:received:new', 'chat:created'], staticData, 'e2e-trigger');
		try {
			const setup: TriggerSetup = {
				credentials,
				webhookUrl: endpoint.webhookUrl,
				events: ['message:received:new', 'chat:created'],
				staticData,
				workflowId: 'e2e-trigger',
			};
			await lifecycle.create(setup);

			await api('DELETE', '/_sandbox/deliveries');
			await api('POST', '/_sandbox/incoming', { phone: '+4915112349999', text: 'Hello from a new customer', duplicate: true });
			const deliveries = await waitFor(
				'both deliveries of the message and the chat:created one',
				async () => {
					const list = (await api('GET', '/_sandbox/deliveries')).deliveries as IDataObject[];
					const done =
						list.filter((d) => d.event_type === 'message:received:new').length >= 2 && list.some((d) => d.event_type === 'chat:created');
					return done && list;
				},
				{ timeoutMs: 8000 },
			);
			expect(deliveries.every((d) => d.status_code === 200)).toBe(true);

			const messages = endpoint.items.filter((item) => item.event_type === 'message:received:new');
			expect(messages).toHaveLength(1);
			expect(messages[0]).toMatchObject({
				text: 'Hello from a new customer',
				message_uid: expect.any(String),
				chat_id: expect.any(Number),
				unattended: true,
			});
			const chats = endpoint.items.filter((item) => item.event_type === 'chat:created');
			expect(chats).toHaveLength(1);
			expect(chats[0].chat_id).toBe(messages[0].chat_id);

			const forged = await fetch(`${endpoint.webhookUrl}?secret=forged`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ event_type: 'message:received:new', data: { chat_id: 1, message_uid: 'FORGED' } }),
			});
			expect(forged.status).toBe(401);
			expect(endpoint.items.some((item) => item.message_uid === 'FORGED')).toBe(false);

			expect(await lifecycle.delete(setup)).toBe(true);
			expect(await hooksFor(endpoint.webhookUrl)).toHaveLength(0);
		} finally {
			await endpoint.stop();
		}
	});
});
