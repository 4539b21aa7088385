/**
 * The trigger's guidance and Options: the public-HTTPS notice, the friendly subtitle, and events
 * narrowed by label, account, group chats and messages sent through the API, checked with real
 * deliveries' bodies against the sandbox over real HTTP (the chat or message is read only when the
 * delivery lacks what a set option needs).
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { EVENT_FILTER_OPTIONS, INBOX_OPTIONS } from '@chat-messaging/core';
import { ChatMessagingPollTrigger } from '../nodes/ChatMessagingPollTrigger/ChatMessagingPollTrigger.node';

import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';
import { sandboxCall } from './support/run-action';
import { callWebhook, trigger } from './support/trigger-context';
import type { Credentials } from './support/n8n-context';

const TOKEN = 'trigger-options-token';
let sandbox: RunningSandbox;
let credentials: Credentials;
const api = (method: string, path: string, body?: unknown) => sandboxCall(sandbox.url, TOKEN, method, path, body);
const SECRET = 'options-secret-0123456789';

beforeAll(async () => {
	sandbox = await startSandbox({ tokens: [TOKEN], seed: 7, chats: 30, paceMs: 10 });
	credentials = { baseUrl: sandbox.url, apiToken: TOKEN };
});

afterAll(async () => {
	await sandbox?.stop();
});

/** Delivers `body` to the trigger with these Options; the number of items it started the workflow with. */
async function started(body: unknown, options: IDataObject, events = ['message:received:new', 'message:sent:new']): Promise<number> {
	const answer = await callWebhook({
		query: { secret: SECRET },
		body,
		events,
		staticData: { secret: SECRET },
		parameters: { options },
		credentials,
		// A workflow of its own each time: a trigger remembers every event it answered, passed or not.
		workflowId: `options-${Math.random()}`,
	});
	expect(answer.status).toBe(200);
	return answer.items.length;
}

const specDelivery = (eventType: string, chatId: unknown, messageUid: string) => ({
	event_type: eventType,
	data: { chat_id: chatId, chat_name: 'x', text: 'hello', message_uid: messageUid },
});

describe('panel guidance', () => {
	const properties = trigger.description.properties;

	it('opens with a notice about the public HTTPS URL and what to do locally', () => {
		const notice = properties[0];
		expect(notice.type).toBe('notice');
		expect(notice.displayName).toMatch(/public HTTPS/);
		expect(notice.displayName).toMatch(/tunnel/);
		expect(notice.displayName).toMatch(/Poll Trigger/);
	});

	it('shows the chosen events by name in the subtitle', () => {
		const subtitle = String(trigger.description.subtitle);
		const body = /^=\{\{(.*)\}\}$/s.exec(subtitle)?.[1];
		expect(body).toBeDefined();
		// The expression is plain JavaScript over $parameter, as n8n evaluates it.
		const evaluate = new Function('$parameter', `return (${String(body)});`) as (parameter: IDataObject) => unknown;
		expect(evaluate({ events: ['message:received:new', 'chat:created'] })).toBe('Message Received, Chat Created');
		expect(evaluate({ events: ['message:sent:new'] })).toBe('Message Sent');
	});

	it('keeps the existing parameters and adds Options: version 1 with Ignore Group Messages, later ones with Chat Type', () => {
		expect(properties.map((property) => property.name)).toEqual(['publicUrlNotice', 'events', 'downloadAttachments', 'options', 'options']);
		expect(trigger.description.version).toEqual([1, 1.1]);
		const [first, later] = properties.filter((property) => property.name === 'options');
		const members = (collection: INodeProperties | undefined) => (collection?.options as INodeProperties[]).map((option) => option.name);
		expect(first?.displayOptions?.show?.['@version']).toEqual([1]);
		expect(members(first)).toContain('ignoreGroupMessages');
		expect(members(first)).not.toContain('chatType');
		// Version 1.1 offers the event filters by the catalogue's names, as the Poll Trigger and the Node-RED event node do.
		expect(members(later)).toEqual(expect.arrayContaining(EVENT_FILTER_OPTIONS.map((option) => option.name)));
		expect(members(later)).not.toContain('ignoreGroupMessages');
	});
});

describe('Options narrow the events', () => {
	let direct: IDataObject;
	let group: IDataObject;

	beforeAll(async () => {
		const chats = (await api('GET', '/chats')).chats as IDataObject[];
		direct = chats.find((chat) => chat.is_group === false) as IDataObject;
		group = chats.find((chat) => chat.is_group === true) as IDataObject;
		expect(direct && group).toBeTruthy();
		await api('POST', `/chats/${String(direct.id)}/labels`, { labels: ['vip'] });
	});

	it('passes everything when no option is set', async () => {
		expect(await started(specDelivery('message:received:new', group.id, 'A1'), {})).toBe(1);
	});

	it('skips group chats with Ignore Group Messages, read from the chat or from a live delivery', async () => {
		expect(await started(specDelivery('message:received:new', group.id, 'G1'), { ignoreGroupMessages: true })).toBe(0);
		expect(await started(specDelivery('message:received:new', direct.id, 'G2'), { ignoreGroupMessages: true })).toBe(1);
		const live = {
			event_type: 'message:received:new',
			chat: { chat_id: 999999999, is_group: true },
			message: { message_uid: 'G3', text: 'x' },
		};
		expect(await started(live, { ignoreGroupMessages: true })).toBe(0); // decided from the delivery: chat 999999999 does not exist
	});

	it('keeps direct chats only, or group chats only, with Chat Type', async () => {
		expect(await started(specDelivery('message:received:new', group.id, 'T1'), { chatType: 'direct' })).toBe(0);
		expect(await started(specDelivery('message:received:new', direct.id, 'T2'), { chatType: 'direct' })).toBe(1);
		expect(await started(specDelivery('message:received:new', group.id, 'T3'), { chatType: 'group' })).toBe(1);
		expect(await started(specDelivery('message:received:new', direct.id, 'T4'), { chatType: 'group' })).toBe(0);
		expect(await started(specDelivery('message:received:new', direct.id, 'T5'), { chatType: 'any' })).toBe(1);
	});

	it('passes an event with a Chat Type it does not offer on, naming the option in filter_error (the delivery is never lost)', async () => {
		const answer = await callWebhook({
			query: { secret: SECRET },
			body: specDelivery('message:received:new', direct.id, 'T6'),
			events: ['message:received:new'],
			staticData: { secret: SECRET },
			parameters: { options: { chatType: 'channels' } },
			credentials,
			workflowId: `options-${Math.random()}`,
		});
		expect(answer.status).toBe(200);
		expect(answer.items).toEqual([
			expect.objectContaining({ message_uid: 'T6', filter_error: expect.stringMatching(/^Chat Type: must be one of any, direct, group/) }),
		]);
	});

	it('keeps only chats with one of the labels, case-insensitively', async () => {
		expect(await started(specDelivery('message:received:new', direct.id, 'L1'), { labels: 'VIP, other' })).toBe(1);
		expect(await started(specDelivery('message:received:new', group.id, 'L2'), { labels: 'vip' })).toBe(0);
	});

	it('keeps only chats of the listed accounts', async () => {
		expect(await started(specDelivery('message:received:new', direct.id, 'C1'), { accountIds: String(direct.chatapp_account_id) })).toBe(1);
		expect(await started(specDelivery('message:received:new', direct.id, 'C2'), { accountIds: 'nobody@c.us' })).toBe(0);
	});

	it('skips messages sent through the API with Ignore Messages Sent Through the API', async () => {
		const sent = await api('POST', `/chats/${String(direct.id)}/messages`, { text: 'auto-reply' });
		const uid = String(sent.message_uid);
		expect(await started(specDelivery('message:sent:new', direct.id, uid), { ignoreOwnMessages: true })).toBe(0);
		expect(await started(specDelivery('message:sent:new', direct.id, uid), {})).toBe(1);
		// Received messages are never "sent through the API".
		expect(await started(specDelivery('message:received:new', direct.id, 'R1'), { ignoreOwnMessages: true })).toBe(1);
	});

	it('answers the delivery before reading the chat, then filters (the spec wants a 2xx within 5 seconds)', async () => {
		const deliver = (uid: string, labels: string) =>
			callWebhook({
				query: { secret: SECRET },
				body: specDelivery('message:received:new', direct.id, uid),
				events: ['message:received:new'],
				staticData: { secret: SECRET },
				parameters: { options: { labels } },
				credentials,
			});
		for (const [uid, labels, items] of [
			['EARLY1', 'vip', 1],
			['EARLY2', 'nobody-has-this', 0],
		] as const) {
			const answer = await deliver(uid, labels);
			expect(answer.status).toBe(200);
			expect(answer.requestsBeforeAnswer).toBe(0);
			expect(answer.requests.map((request) => `${request.method} ${new URL(request.url).pathname}`)).toEqual([
				`GET /chats/${String(direct.id)}`,
			]);
			expect(answer.items).toHaveLength(items);
		}
	});

	it('a chat that cannot be read still starts the workflow once, saying why in filter_error (the delivery is answered)', async () => {
		const delivery = {
			query: { secret: SECRET },
			body: specDelivery('message:received:new', 424242, 'E1'),
			events: ['message:received:new'],
			staticData: { secret: SECRET },
			parameters: { options: { labels: 'vip' } },
			credentials,
		};
		const answer = await callWebhook(delivery);
		expect(answer.status).toBe(200);
		expect(answer.items).toEqual([expect.objectContaining({ message_uid: 'E1', filter_error: expect.stringMatching(/not found/i) })]);
		// A redelivery of the same event starts nothing more.
		expect((await callWebhook(delivery)).items).toEqual([]);
	});
});

describe('inbox options (human takeover)', () => {
	it('skips a delivery of a chat a teammate wrote into within the window; off by default; the workflow’s own sends do not count', async () => {
		const taken = (await api('POST', '/_sandbox/incoming', { phone: '+4915100000701', text: 'hi', name: 'Takeover Webhook' })) as any;
		await api('POST', '/_sandbox/teammate-message', { chat_id: taken.chat_id, text: 'A person answers' });
		const free = (await api('POST', '/_sandbox/incoming', { phone: '+4915100000702', text: 'hi', name: 'Bot Webhook' })) as any;
		await api('POST', `/chats/${free.chat_id}/messages`, { text: 'an automatic answer' });
		const delivery = (chatId: unknown) => specDelivery('message:received:new', chatId, `uid-${String(chatId)}-${Date.now()}`);

		expect(await started(delivery(taken.chat_id), {})).toBe(1);
		expect(await started(delivery(taken.chat_id), { teammateQuietMinutes: 10 })).toBe(0);
		expect(await started(delivery(free.chat_id), { teammateQuietMinutes: 10 })).toBe(1);
	});

	it('skips a delivery of a chat assigned to a teammate', async () => {
		const chat = (await api('POST', '/_sandbox/incoming', { phone: '+4915100000703', text: 'hi', name: 'Assigned Webhook' })) as any;
		const teammates = ((await api('GET', '/workspace/teammates')) as any).teammates;
		const delivery = () => specDelivery('message:received:new', chat.chat_id, `uid-assigned-${Date.now()}-${Math.random()}`);
		expect(await started(delivery(), { skipAssigned: true })).toBe(1);
		await api('PATCH', `/chats/${chat.chat_id}`, { responsible: teammates[0].email });
		// Another option set: a fresh takeover without the cached answer.
		expect(await started(delivery(), { skipAssigned: true, teammateQuietMinutes: 0.001 })).toBe(0);
	});

	it("shows the core's names, defaults and descriptions in both triggers", () => {
		const pollOptions = new ChatMessagingPollTrigger().description.properties.find((property) => property.name === 'options');
		const webhookOptions = trigger.description.properties.find((property) => property.name === 'options');
		for (const option of INBOX_OPTIONS) {
			for (const [where, collection] of [
				['poll', pollOptions],
				['webhook', webhookOptions],
			] as const) {
				const shown = (collection?.options ?? []).find((property) => property.name === option.name) as INodeProperties | undefined;
				if (where === 'webhook' && option.name === 'burstQuietSeconds') continue;
				expect([where, shown?.displayName, shown?.default, shown?.description]).toEqual([
					where,
					option.displayName,
					option.default,
					option.description,
				]);
			}
		}
	});

	it('offers no burst batching here: the Options say to use the Poll Trigger for it', () => {
		const options = trigger.description.properties.find((property) => property.name === 'options');
		expect(options?.description).toMatch(/Poll Trigger/);
		expect((options?.options ?? []).map((option) => option.name)).not.toContain('burstQuietSeconds');
	});
});
