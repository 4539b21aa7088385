/**
 * A Node-RED runtime with the package installed, driven over HTTP through the base flow: the package loads, the
 * flow deploys, the event node subscribes, a send waits for delivery, events reach the flow once (a duplicated
 * delivery included), Get Many in both output modes, bad input refused before any request, the token nowhere, and
 * a redeploy without the event node unsubscribing.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { RECORD_SHAPES } from '@chat-messaging/core';
import { HTTP_NODE_ROOT, PACKAGE_NAME, assert, assertEqual, deployFlows, httpJson, readTextIfExists, sleep, waitFor } from './e2e-support';
import {
	CONFIG_ID,
	EVENT_NODE_ID,
	STATUS_RANK,
	SUBSCRIBED_EVENTS,
	baseFlow,
	collected,
	eventsOf,
	running,
	type Json,
	type RuntimeCase,
	type RuntimeRun,
} from './runtime-support';

async function sendWaitsForDelivery(r: RuntimeRun): Promise<void> {
	const { view, phone } = r;
	const red = running(r);
	const text = `hello from ${r.runtime.label} ${randomBytes(3).toString('hex')}`;
	const answer = await r.phase('send', () => httpJson<Json>('POST', `${red.url}${HTTP_NODE_ROOT}/send`, { phone, text }));
	assertEqual(answer.status, 200, `POST /send status (body ${answer.text})`);
	r.messageUid = String(answer.body.message_uid ?? '');
	assert(r.messageUid, `no message_uid in ${answer.text}`);
	assert(
		(STATUS_RANK[String(answer.body.status)] ?? -1) >= STATUS_RANK.delivered,
		`status after waiting for delivered: ${String(answer.body.status)}`,
	);
	const message = await view.get<Json>(`/messages/${r.messageUid}`);
	assertEqual(message.text, text, 'text of the message in the sandbox');
	const chats = await view.get<{ chats: Json[] }>(`/chats?phone=${encodeURIComponent(phone)}`);
	assertEqual(chats.chats.length, 1, 'chats for the new phone number');
	const history = await view.get<{ messages: Json[] }>(`/chats/${String(chats.chats[0].id)}/messages`);
	assertEqual(history.messages.filter((m) => m.text === text).length, 1, 'copies of the message in the chat');
}

async function getManyRaw(r: RuntimeRun): Promise<void> {
	const red = running(r);
	const chats = await r.view.allChats();
	const expected = chats.map((chat) => chat.id);
	assert(expected.length > 50, `the sandbox should hold more than one page of chats, holds ${expected.length}`);
	const answer = await httpJson<Json[]>('GET', `${red.url}${HTTP_NODE_ROOT}/chats`);
	assertEqual(answer.status, 200, `GET /chats status (body ${answer.text.slice(0, 300)})`);
	assert(Array.isArray(answer.body), `payload is not an array: ${answer.text.slice(0, 300)}`);
	assertEqual(
		answer.body.map((chat) => chat.id),
		expected,
		'chat ids in order',
	);
	// Raw, as a flow saved before the Output choice existed always had: every field the service sends.
	assertEqual(
		answer.body.map((chat) => Object.keys(chat).sort()),
		chats.map((chat) => Object.keys(chat).sort()),
		'field names of each chat',
	);
	assert(
		chats.some((chat) => Object.keys(chat).some((name) => !RECORD_SHAPES.chat.simplified.includes(name))),
		'the sandbox sends no field beyond the simplified ones: Raw and Simplified would not differ',
	);
}

async function getManySplit(r: RuntimeRun): Promise<void> {
	const red = running(r);
	const firstSeven = (await r.view.get<{ chats: Json[] }>('/chats?page=1')).chats.slice(0, 7);
	const expected = firstSeven.map((chat) => chat.id);
	const injected = await httpJson('POST', `${red.url}/inject/list-split-inject`);
	assertEqual(injected.status, 200, `POST /inject status (${injected.text})`);
	const split = await waitFor('seven split msgs', async () => {
		const entries = (await collected(red)).split ?? [];
		return entries.length >= 7 ? entries : undefined;
	});
	await sleep(300); // an eighth msg would be a bug: give it the chance to show up
	const entries = (await collected(red)).split ?? split;
	assertEqual(
		entries.map((entry) => (entry.payload as Json).id),
		expected,
		'chat ids of the split msgs',
	);
	assertEqual(
		entries.map((entry) => (entry.parts as Json | undefined)?.index),
		[0, 1, 2, 3, 4, 5, 6],
		'msg.parts.index',
	);
	assertEqual(
		entries.map((entry) => Object.keys(entry.payload as Json).sort()),
		firstSeven.map((chat) => RECORD_SHAPES.chat.simplified.filter((name) => name in chat).sort()),
		'field names of each msg.payload (the simplified ones the chat has)',
	);
	assert(
		entries.every((entry) => (entry.parts as Json | undefined)?.count === 7),
		'msg.parts.count is 7 on every msg',
	);
}

async function tokenNowhere(r: RuntimeRun): Promise<void> {
	const { dir, token } = r;
	const red = running(r);
	const flowsFile = await readTextIfExists(path.join(dir, 'flows.json'));
	assert(flowsFile !== undefined && flowsFile.includes(CONFIG_ID), 'flows.json was not written with the config node');
	assert(!flowsFile.includes(token), 'flows.json contains the token');
	const credentialsFile = await readTextIfExists(path.join(dir, 'flows_cred.json'));
	assert(credentialsFile !== undefined, 'flows_cred.json was not written');
	assert(!credentialsFile.includes(token), 'flows_cred.json holds the token in plain text');
	assert(typeof (JSON.parse(credentialsFile) as Json).$ === 'string', 'flows_cred.json is not in the encrypted {"$": ...} form');
	const exported = await httpJson('GET', `${red.url}/flows`, undefined, { 'Node-RED-API-Version': 'v2' });
	assert(exported.text.includes(CONFIG_ID) && !exported.text.includes(token), 'GET /flows contains the token');
	const credentials = await httpJson<Json>('GET', `${red.url}/credentials/chat-messaging-config/${CONFIG_ID}`);
	assertEqual(credentials.body.has_token, true, `credentials API has_token (${credentials.text})`);
	assert(!credentials.text.includes(token), 'the credentials API returns the token');
	assert(!red.output().includes(token), 'the Node-RED log contains the token');
	const seen = await collected(red);
	assert(!JSON.stringify(seen).includes(token), 'a msg or an error carried the token');
}

export const flowCases: RuntimeCase[] = [
	{
		name: 'the runtime loads the package and its three node types',
		stopsRunOnFailure: true,
		run: async (r) => {
			const red = running(r);
			const response = await httpJson<Json[]>('GET', `${red.url}/nodes`, undefined, { Accept: 'application/json' });
			const sets = response.body.filter((set) => set.module === PACKAGE_NAME);
			assert(
				sets.length > 0,
				`GET /nodes lists no ${PACKAGE_NAME}; node sets: ${JSON.stringify(response.body.map((set) => set.module))}\n${red.output()}`,
			);
			for (const set of sets) assert(set.enabled !== false && !set.err, `node set ${String(set.id)} failed to load: ${String(set.err)}`);
			const types = sets.flatMap((set) => set.types as string[]).sort();
			assertEqual(types, ['chat-messaging', 'chat-messaging-config', 'chat-messaging-event'], 'registered node types');
		},
	},
	{
		name: 'deploy through the admin API (token in the config node credentials)',
		stopsRunOnFailure: true,
		run: (r) => r.phase('deploy', () => deployFlows(running(r).url, r.fullFlow)),
	},
	{
		name: 'the event node subscribes once per event type at publicUrl + httpNodeRoot',
		run: async (r) => {
			const hooks = await waitFor('two subscriptions in the sandbox', async () => {
				const list = await r.view.webhooks();
				return list.length >= SUBSCRIBED_EVENTS.length ? list : undefined;
			});
			assertEqual(hooks.map((hook) => hook.event_type).sort(), [...SUBSCRIBED_EVENTS].sort(), 'subscribed event types');
			const prefix = `${r.publicUrl}${HTTP_NODE_ROOT}/chat-messaging/events/${EVENT_NODE_ID}/`;
			for (const hook of hooks) {
				assert(
					String(hook.url).startsWith(prefix) && String(hook.url).length > prefix.length + 8,
					`subscription URL ${String(hook.url)} is not ${prefix}<secret>`,
				);
				assertEqual(hook.enabled, true, 'subscription enabled');
			}
		},
	},
	{ name: 'http in → send to phone (wait for delivered) → http response; the sandbox holds it once', run: sendWaitsForDelivery },
	{
		name: 'message:sent:new for the sent message reaches the flow exactly once',
		run: async (r) => {
			const { messageUid } = r;
			const red = running(r);
			assert(messageUid, 'no message was sent');
			const events = await waitFor('the sent event in the flow', async () => {
				const found = await eventsOf(red, 'message:sent:new', (payload) => payload.message_uid === messageUid);
				return found.length > 0 ? found : undefined;
			});
			await sleep(500); // a second copy, if the node let one through, would arrive within this pause
			assertEqual(
				(await eventsOf(red, 'message:sent:new', (payload) => payload.message_uid === messageUid)).length,
				1,
				`sent events for ${messageUid} (first: ${JSON.stringify(events[0])})`,
			);
		},
	},
	{
		name: 'an inbound message delivered twice (duplicate) becomes exactly one msg',
		run: async (r) => {
			const { view } = r;
			const inboundText = `inbound ${randomBytes(3).toString('hex')}`;
			await view.post('/_sandbox/incoming', { phone: r.phone, text: inboundText, duplicate: true });
			await waitFor('both deliveries answered 2xx', async () => {
				const ok = (await view.deliveries('message:received:new')).filter(
					(d) => d.ok === true && JSON.stringify(d.body).includes(inboundText),
				);
				return ok.length >= 2 ? ok : undefined;
			});
			const received = await eventsOf(running(r), 'message:received:new', (payload) => payload.text === inboundText);
			assertEqual(received.length, 1, 'msgs for one inbound message delivered twice');
			assert(
				typeof received[0].message_uid === 'string' && received[0].chat_id !== undefined,
				`event payload lacks message_uid/chat_id: ${JSON.stringify(received[0])}`,
			);
		},
	},
	{ name: 'Get Many chats, return all, array mode, saved without Output: one msg with every whole chat across pages', run: getManyRaw },
	{ name: 'Get Many chats, limit 7, split mode, Output Simplified: seven simplified msgs with msg.parts, in order', run: getManySplit },
	{
		name: 'bad input (phone with spaces) fails before any request, naming the field',
		run: async (r) => {
			const before = await r.view.apiCallsUsed();
			const answer = await httpJson<Json>('POST', `${running(r).url}${HTTP_NODE_ROOT}/send`, {
				phone: '+49 151 1234 5678',
				text: 'never sent',
			});
			const after = await r.view.apiCallsUsed();
			assertEqual(answer.status, 400, `POST /send with a bad phone answered (body ${answer.text})`);
			const error = answer.body.error as Json | undefined;
			assert(/phone/i.test(String(error?.message)), `error message does not name the phone field: ${answer.text}`);
			assertEqual((answer.body.details as Json | undefined)?.kind, 'input', 'error kind');
			assertEqual(after - before, 1, 'API calls between the two workspace reads (only the second read itself)');
		},
	},
	{
		name: 'the token is in neither flows.json, GET /flows, the credentials API nor the log; flows_cred.json is encrypted',
		run: tokenNowhere,
	},
	{
		name: 'no unexpected errors reached the Catch node',
		run: async (r) => {
			const errors = ((await collected(running(r))).errors ?? []).filter((entry) => !JSON.stringify(entry).includes('never sent'));
			assertEqual(errors, [], 'errors other than the bad-input one');
		},
	},
	{
		name: 'a redeploy without the event node deletes its subscriptions',
		run: async (r) => {
			await r.phase('redeploy', () => deployFlows(running(r).url, baseFlow(r.sandbox.url, r.publicUrl, r.token)));
			await waitFor('no subscriptions left', async () => ((await r.view.webhooks()).length === 0 ? true : undefined), {
				timeoutMs: 10_000,
			});
		},
	},
];
