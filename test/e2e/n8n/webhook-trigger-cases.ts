/**
 * The webhook trigger's lifecycle in a running n8n: activation subscribes its production URL with a secret, forged,
 * malformed and oversized calls start nothing, a delivery repeated by the service starts one execution, the secret survives
 * a restart of n8n, "Listen for test event" beside the published workflow, and deactivation unsubscribes.
 */
import { randomBytes } from 'node:crypto';
import { assert } from './checks';
import type { Case, Execution, N8nE2e } from './run-context';
import { TRIGGER_NODE_NAME, TRIGGER_WEBHOOK_ID, WORKFLOW_IDS } from './workflows';
import { sleep, waitFor } from '../../support/harness';

const settled = (e: Execution) => e.finished || e.status === 'success' || e.status === 'error';

async function activationSubscribes(e: N8nE2e): Promise<string> {
	const activated = await e.running().publicApi('POST', `/workflows/${WORKFLOW_IDS.trigger}/activate`);
	assert(activated.status === 200, `activate answered ${activated.status}: ${JSON.stringify(activated.body).slice(0, 500)}`);
	const hooks = await waitFor('the sandbox subscription', async () => ((await e.ourHooks()).length > 0 ? e.ourHooks() : undefined), {
		timeoutMs: 10_000,
	});
	assert(hooks.length === 1, `expected one subscription, the sandbox holds ${hooks.length}: ${JSON.stringify(hooks)}`);
	const subscription = (e.subscription = hooks[0]);
	const url = new URL(subscription.url);
	assert(subscription.event_type === 'message:received:new', `subscribed to ${subscription.event_type}`);
	assert(subscription.enabled, 'the subscription is disabled');
	assert(
		url.origin === e.running().baseUrl && url.pathname === `/webhook/${TRIGGER_WEBHOOK_ID}/chat-messaging`,
		`unexpected webhook URL ${url.origin}${url.pathname}`,
	);
	assert((url.searchParams.get('secret') ?? '').length >= 16, 'the URL carries no secret of at least 16 characters');
	// What n8n stored of the trigger's static data at activation (reported, not asserted).
	const stored = (await e.running().publicApi('GET', `/workflows/${WORKFLOW_IDS.trigger}`)).body as {
		staticData?: Record<string, Record<string, unknown>> | null;
	};
	const staticKeys = Object.values(stored.staticData ?? {}).flatMap((entry) => Object.keys(entry ?? {}));
	return `${url.origin}${url.pathname}?secret=…; static data keys: ${staticKeys.join(', ') || 'none'}`;
}

/**
 * Forged, malformed and oversized deliveries at the published webhook: what n8n answers itself (a GET: the webhook is
 * registered for POST only; JSON it cannot parse), and otherwise the core's way in, word for word as the Node-RED event
 * node and the chat adapter answer (test/delivery-answers.test.ts); none starts an execution.
 */
async function badDeliveriesRefused(e: N8nE2e): Promise<string> {
	assert(e.subscription, 'no subscription');
	const withSecret = new URL(e.subscription.url);
	const withoutSecret = new URL(withSecret);
	withoutSecret.searchParams.delete('secret');
	const wrongSecret = new URL(withSecret);
	wrongSecret.searchParams.set('secret', 'f'.repeat(48));
	const delivery = (eventType: string, text = 'forged') =>
		JSON.stringify({ event_type: eventType, data: { chat_id: 1, text, message_uid: `bad-${randomBytes(4).toString('hex')}` } });
	const error = (message: string) => ({ status: 'error', message });
	const cases: Array<{ name: string; url: URL; method?: string; body?: string; status: number; answer?: unknown }> = [
		{
			name: 'no secret',
			url: withoutSecret,
			body: delivery('message:received:new'),
			status: 401,
			answer: error('Unauthorized: missing or wrong secret'),
		},
		{
			name: 'a wrong secret',
			url: wrongSecret,
			body: delivery('message:received:new'),
			status: 401,
			answer: error('Unauthorized: missing or wrong secret'),
		},
		{ name: 'GET (n8n)', url: withSecret, method: 'GET', status: 404 },
		{ name: 'JSON n8n cannot parse (n8n)', url: withSecret, body: 'not json {', status: 422 },
		{
			name: 'JSON that is no delivery',
			url: withSecret,
			body: JSON.stringify({ data: { chat_id: 1 } }),
			status: 400,
			answer: error('Malformed delivery: the body must hold a string event_type'),
		},
		{
			name: 'a body over 1 MB',
			url: withSecret,
			body: delivery('message:received:new', 'x'.repeat(1024 * 1024 + 1)),
			status: 413,
			answer: error('Payload too large: a delivery is at most 1048576 bytes'),
		},
		{
			name: 'an event type not chosen',
			url: withSecret,
			body: delivery('chat:created'),
			status: 200,
			answer: { status: 'ok', ignored: 'event chat:created is not chosen here' },
		},
	];
	const seen: string[] = [];
	for (const sent of cases) {
		const response = await fetch(sent.url, {
			method: sent.method ?? 'POST',
			headers: sent.body === undefined ? {} : { 'content-type': 'application/json' },
			body: sent.body,
		});
		const text = await response.text();
		assert(response.status === sent.status, `${sent.name}: answered ${response.status} ${text.slice(0, 200)}, expected ${sent.status}`);
		if (sent.answer !== undefined) {
			assert(text === JSON.stringify(sent.answer), `${sent.name}: answered ${text.slice(0, 200)}, expected ${JSON.stringify(sent.answer)}`);
		}
		seen.push(`${sent.name}: ${response.status}${sent.answer === undefined ? ` ${text.slice(0, 90)}` : ''}`);
	}
	await sleep(1000);
	const list = await e.executions();
	assert(list.length === 0, `${list.length} executions after the bad deliveries`);
	return seen.join('; ');
}

async function duplicateDeliveryRunsOnce(e: N8nE2e): Promise<string> {
	const { subscription: hook, inboundChat } = e;
	assert(hook && inboundChat, 'no subscription');
	const text = `E2E inbound ${randomBytes(4).toString('hex')}`;
	const incoming = await e.sandbox<{ message: { uid: string } }>('POST', '/_sandbox/incoming', {
		phone: inboundChat.phone,
		text,
		duplicate: true,
	});
	type Delivery = { ok: boolean; duplicate: boolean; status_code?: number; body: { data?: { text?: string } } };
	const deliveries = await waitFor(
		'both deliveries answered',
		async () => {
			const { deliveries: all } = await e.sandbox<{ deliveries: Delivery[] }>('GET', `/_sandbox/deliveries?webhook_id=${hook.id}`);
			const ours = all.filter((d) => d.body?.data?.text === text);
			return ours.some((d) => d.duplicate && d.ok) ? ours : undefined;
		},
		{ timeoutMs: 20_000 },
	);
	assert(
		deliveries.every((d) => d.ok),
		`a delivery failed: ${JSON.stringify(deliveries.map((d) => d.status_code))}`,
	);
	const finished = await waitFor(
		'a finished execution',
		async () => {
			const list = await e.executions();
			return list.length > 0 && list.every(settled) ? list : undefined;
		},
		{ timeoutMs: 15_000 },
	);
	// Give a second execution, if the duplicate started one, time to be recorded.
	await sleep(1500);
	const list = await e.executions();
	assert(list.length === 1, `${list.length} executions for one message delivered twice`);
	assert(list[0].status === 'success', `the execution ended ${list[0].status}`);
	const runs = list[0].data?.resultData.runData[TRIGGER_NODE_NAME];
	const items = runs?.[0]?.data?.main?.[0] ?? [];
	assert(items.length === 1, `the trigger emitted ${items.length} items`);
	assert(JSON.stringify(items[0].json).includes(text), `the item does not carry the text: ${JSON.stringify(items[0].json).slice(0, 400)}`);
	assert(JSON.stringify(items[0].json).includes(incoming.message.uid), 'the item does not carry the message uid');
	return `${deliveries.length} deliveries (${deliveries.map((d) => d.status_code).join(', ')}), ${finished.length} execution`;
}

async function secretSurvivesRestart(e: N8nE2e): Promise<string> {
	const { subscription, inboundChat } = e;
	assert(subscription && inboundChat, 'no subscription');
	const before = (await e.executions()).length;
	// n8n 2.41 serves the persisted webhook after a restart; the node's secret comes from the static
	// data n8n saved at activation, so a lost secret would turn every delivery into a 401.
	await e.running().stop();
	const restarted = Date.now();
	const ready = await e.running().start();
	// Registered once the node itself answers: 401 for a call without the secret (404 before that).
	const bare = new URL(subscription.url);
	bare.searchParams.delete('secret');
	const registeredAfter = await waitFor(
		'the production webhook after restart',
		async () => {
			const response = await fetch(bare, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
			await response.text();
			return response.status === 401 ? Date.now() - restarted : undefined;
		},
		{ timeoutMs: 20_000 },
	);
	const hooks = await e.ourHooks();
	assert(hooks.length === 1, `the sandbox holds ${hooks.length} subscriptions of the trigger after restart`);
	assert(hooks[0].id === subscription.id && hooks[0].url === subscription.url, 'the subscription was replaced or re-pointed on restart');
	const text = `E2E after restart ${randomBytes(4).toString('hex')}`;
	await e.sandbox('POST', '/_sandbox/incoming', { phone: inboundChat.phone, text });
	const list = await waitFor(
		'the execution after restart',
		async () => {
			const all = await e.executions();
			return all.length > before && all.every(settled) ? all : undefined;
		},
		{ timeoutMs: 15_000 },
	);
	assert(list.length === before + 1, `${list.length - before} new executions for one message`);
	const latest = list.find((execution) => JSON.stringify(execution.data?.resultData.runData ?? {}).includes(text));
	assert(latest && latest.status === 'success', 'no successful execution carries the text sent after restart');
	return `ready after ${ready} ms, webhook answering after ${registeredAfter} ms; subscription ${subscription.id} kept`;
}

async function testListenerBesidePublished(e: N8nE2e): Promise<string> {
	const { subscription, inboundChat } = e;
	assert(subscription && inboundChat, 'no subscription');
	const workflow = await e.running().rest('GET', `/rest/workflows/${WORKFLOW_IDS.trigger}`);
	const started = (await e.running().rest('POST', `/rest/workflows/${WORKFLOW_IDS.trigger}/run`, {
		workflowData: workflow,
		triggerToStartFrom: { name: TRIGGER_NODE_NAME },
	})) as { waitingForWebhook?: boolean };
	assert(started?.waitingForWebhook === true, `n8n did not start listening: ${JSON.stringify(started).slice(0, 300)}`);
	const testHook = await waitFor(
		"the test listener's subscription",
		async () => (await e.sandboxWebhooks()).find((hook) => hook.url.includes('/webhook-test/')),
		{ timeoutMs: 15_000 },
	);
	const text = `E2E test and production ${randomBytes(4).toString('hex')}`;
	await e.sandbox('POST', '/_sandbox/incoming', { phone: inboundChat.phone, text });
	const carrying = (list: Execution[]) =>
		list.filter((execution) => JSON.stringify(execution.data?.resultData.runData ?? {}).includes(text));
	const both = await waitFor(
		'an execution of each webhook',
		async () => {
			const found = carrying(await e.executions());
			return found.length >= 2 && found.every((execution) => execution.finished || execution.status === 'success') ? found : undefined;
		},
		{ timeoutMs: 20_000 },
	);
	const modes = both.map((execution) => execution.mode ?? '?').sort();
	assert(modes.includes('manual') && modes.some((mode) => mode !== 'manual'), `execution modes: ${modes.join(', ')}`);
	// The test listener removes only its own subscription once it got its event; the published one stays.
	await waitFor(
		'the test subscription removed',
		async () => ((await e.sandboxWebhooks()).some((hook) => hook.id === testHook.id) ? undefined : true),
		{ timeoutMs: 15_000 },
	);
	const hooks = await e.ourHooks();
	assert(hooks.length === 1 && hooks[0].id === subscription.id, 'the published subscription did not survive the test listener');
	return `executions: ${modes.join(' + ')}`;
}

export const webhookTriggerCases: Case[] = [
	{ name: '(d) Trigger: activation subscribes its production URL with a secret', run: activationSubscribes },
	{
		name: "(d) Trigger: forged, malformed and oversized deliveries get the core's answers (n8n answers a GET and unparsable JSON itself) and start nothing",
		run: badDeliveriesRefused,
	},
	{ name: '(d) Trigger: an inbound message delivered twice starts exactly one execution', run: duplicateDeliveryRunsOnce },
	{
		name: '(d) Trigger: after an n8n restart the stored secret still admits deliveries (same subscription, one execution)',
		run: secretSurvivesRestart,
	},
	{
		name: '(d) Trigger: "Listen for test event" while published: the test listener and the published workflow each get the event',
		run: testListenerBesidePublished,
	},
	{
		name: '(e) Trigger: deactivation removes the subscription',
		run: async (e) => {
			const deactivated = await e.running().publicApi('POST', `/workflows/${WORKFLOW_IDS.trigger}/deactivate`);
			assert(deactivated.status === 200, `deactivate answered ${deactivated.status}: ${JSON.stringify(deactivated.body).slice(0, 300)}`);
			await waitFor('the subscription to be removed', async () => ((await e.ourHooks()).length === 0 ? true : undefined), {
				timeoutMs: 10_000,
			});
			const all = await e.sandboxWebhooks();
			return `the sandbox holds ${all.length} subscriptions`;
		},
	},
];
