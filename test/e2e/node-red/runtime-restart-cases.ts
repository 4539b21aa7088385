/**
 * A Node-RED runtime stopped and started again: the event node's subscriptions and secret survive a stop; in
 * webhook mode a message sent every 0.8 s before, during and after a stop reaches the flow exactly once (the
 * catch-up after the start); a quiet restart's cost in requests; polling mode across a redeploy and a restart; full
 * deploys while messages keep arriving (redeploy-chaos.ts).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import {
	HTTP_NODE_ROOT,
	assert,
	assertEqual,
	deployFlows,
	httpJson,
	readTextIfExists,
	sleep,
	startNodeRed,
	waitFor,
	type NodeRedInstance,
} from './e2e-support';
import {
	POLL_NODE_ID,
	RESTART_NODE_ID,
	SEND_EVERY_MS,
	STOP_SECONDS,
	SUBSCRIBED_EVENTS,
	collected,
	eventsOf,
	pollingNodes,
	restartNodes,
	running,
	type Json,
	type RuntimeCase,
	type RuntimeRun,
} from './runtime-support';
import { CHAOS_VARIANTS, chaosFlow, redeployChaos } from './redeploy-chaos';

/** Starts Node-RED again in the run's user dir, on the port `before` had. */
const startAgain = (r: RuntimeRun, before: NodeRedInstance): Promise<NodeRedInstance> =>
	startNodeRed({ nodeBin: r.runtime.nodeBin, nodeRedDir: r.runtime.nodeRedDir, userDir: r.dir, port: Number(new URL(before.url).port) });

async function subscriptionsSurviveStop(r: RuntimeRun): Promise<void> {
	const { view, token } = r;
	const red = running(r);
	await deployFlows(red.url, r.fullFlow);
	const before = await waitFor('subscriptions again', async () => {
		const list = await view.webhooks();
		return list.length === SUBSCRIBED_EVENTS.length ? list : undefined;
	});
	await r.phase('stop', () => red.stop());
	const described = (list: typeof before) => list.map((hook) => `${hook.id} ${hook.url}`).sort();
	assertEqual(described(await view.webhooks()), described(before), 'subscriptions after Node-RED stopped');
	const flowsFile = (await readTextIfExists(path.join(r.dir, 'flows.json'))) ?? '';
	assert(!flowsFile.includes(token) && !red.output().includes(token), 'the token reached flows.json or the log at shutdown');

	const restarted = (r.nodeRed = await r.phase('restart', () => startAgain(r, red)));
	const afterRestart = `after restart ${randomBytes(3).toString('hex')}`;
	await view.post('/_sandbox/incoming', { phone: r.phone, text: afterRestart });
	await waitFor('the inbound message after the restart in the flow', async () =>
		(await eventsOf(restarted, 'message:received:new', (payload) => payload.text === afterRestart)).length === 1 ? true : undefined,
	);
	assertEqual(described(await view.webhooks()), described(before), 'subscriptions after the restart (reused, not recreated)');
}

/** What reached the flow of the restart node, across the restarts: how often each message sent for `tag`. */
async function countsInFlow(red: NodeRedInstance, tag: string): Promise<Map<string, number>> {
	const reached = (
		(await httpJson<Array<{ uid: string; text: string }>>('GET', `${red.url}${HTTP_NODE_ROOT}/across-restarts`)).body ?? []
	).filter((entry) => String(entry.text).startsWith(`stop ${tag} `));
	const counts = new Map<string, number>();
	for (const entry of reached) counts.set(entry.uid, (counts.get(entry.uid) ?? 0) + 1);
	return counts;
}

async function stopWithMessagesThroughout(r: RuntimeRun, stopSeconds: number): Promise<void> {
	const { view } = r;
	const current = running(r);
	await r.phase(`deploy restart ${stopSeconds}`, () => deployFlows(current.url, [...r.fullFlow, ...restartNodes()]));
	await waitFor('the subscription of the restart node', async () =>
		(await view.webhooks()).some((hook) => String(hook.url).includes(`/${RESTART_NODE_ID}/`)) ? true : undefined,
	);
	const tag = randomBytes(3).toString('hex');
	const stopPhone = '+4915552' + String(Date.now() % 1_000_000).padStart(6, '0');
	const sent: string[] = [];
	let sending = true;
	const sender = (async () => {
		for (let index = 0; sending; index++) {
			const answer = await view.post<Json>('/_sandbox/incoming', { phone: stopPhone, text: `stop ${tag} ${index}` });
			sent.push(String((answer.message as Json).uid));
			await sleep(SEND_EVERY_MS);
		}
	})();
	try {
		await sleep(4000);
		const sentBeforeStop = sent.length;
		await r.phase(`stop ${stopSeconds}`, () => current.stop());
		r.nodeRed = undefined;
		await sleep(stopSeconds * 1000);
		const sentDuringStop = sent.length - sentBeforeStop;
		const apiCallsBefore = await view.apiCalls();
		const restarted = await r.phase(`restart after ${stopSeconds}`, () => startAgain(r, current));
		r.nodeRed = restarted;
		await sleep(4000);
		sending = false;
		await sender;
		await waitFor(
			'every message sent in the flow',
			async () => ((await countsInFlow(restarted, tag)).size >= sent.length ? true : undefined),
			{
				timeoutMs: 60_000,
			},
		).catch(() => undefined);
		await sleep(2000);
		const counts = await countsInFlow(restarted, tag);
		const lost = sent.filter((uid) => !counts.has(uid));
		const doubled = [...counts.values()].filter((count) => count > 1).length;
		console.log(
			`        stop ${stopSeconds} s: ${sent.length} sent (${sentDuringStop} during the stop), ${counts.size} reached the flow, ` +
				`${lost.length} lost, ${doubled} more than once; requests from the start until now: ${(await view.apiCalls()) - apiCallsBefore}`,
		);
		assertEqual([lost.length, doubled], [0, 0], 'messages lost, messages reaching the flow more than once');
	} finally {
		sending = false;
		await sender;
	}
}

async function quietRestart(r: RuntimeRun): Promise<void> {
	const current = running(r);
	await r.phase('stop quiet', () => current.stop());
	r.nodeRed = undefined;
	const before = await r.view.apiCalls();
	r.nodeRed = await r.phase('restart quiet', () => startAgain(r, current));
	await sleep(3000);
	const used = (await r.view.apiCalls()) - before;
	// Each webhook event node re-reads its subscriptions (GET /webhooks) and catches up: one chat page per event type.
	console.log(`        a quiet restart of two webhook event nodes (3 event types in all): ${used} requests`);
}

async function pollingMode(r: RuntimeRun): Promise<void> {
	const { view } = r;
	const current = running(r);
	const stateFile = path.join(r.dir, 'chat-messaging', `event-${POLL_NODE_ID}.json`);
	await r.phase('deploy polling', () => deployFlows(current.url, [...r.fullFlow, ...pollingNodes(1)]));
	await waitFor('the first poll to store its cursor', async () => ((await readTextIfExists(stateFile)) ? true : undefined));
	const tag = randomBytes(3).toString('hex');
	const pollPhone = '+4915551' + String(Date.now() % 1_000_000).padStart(6, '0');
	const polledTexts = async (red: NodeRedInstance) =>
		((await collected(red)).polled ?? []).map((entry) => entry.payload as Json).filter((p) => String(p.text).includes(tag));

	// A burst of two messages in one chat comes out as one item once the customer is quiet for 1 s.
	const first = await view.post<Json>('/_sandbox/incoming', { phone: pollPhone, text: `burst one ${tag}`, name: `Polled ${tag}` });
	const second = await view.post<Json>('/_sandbox/incoming', { phone: pollPhone, text: `burst two ${tag}` });
	const [burst] = await waitFor('the burst in the flow', async () => {
		const items = await polledTexts(current);
		return items.length ? items : undefined;
	});
	assertEqual(burst.text, `burst one ${tag}\nburst two ${tag}`, "the burst's texts, joined");
	const uid = (answer: Json) => String((answer.message as Json).uid);
	assertEqual(burst.message_uids, [uid(first), uid(second)], "the burst's message uids");

	// A message written just before a redeploy (another interval: a new instance) comes once.
	await view.post('/_sandbox/incoming', { phone: pollPhone, text: `before redeploy ${tag}` });
	await r.phase('redeploy polling', () => deployFlows(current.url, [...r.fullFlow, ...pollingNodes(2)]));
	await waitFor('the message of the redeploy in the flow', async () => ((await polledTexts(current)).length >= 2 ? true : undefined), {
		timeoutMs: 20_000,
	});
	await sleep(4500); // two more polls: nothing may come again
	assertEqual(
		(await polledTexts(current)).map((p) => p.text),
		[`burst one ${tag}\nburst two ${tag}`, `before redeploy ${tag}`],
		'items after the redeploy (each once)',
	);
	const subscribed = (await view.webhooks()).filter((hook) => String(hook.url).includes(`/${POLL_NODE_ID}/`));
	assertEqual(subscribed.length, 0, 'webhook subscriptions of the polling node');

	// Stopped: a message arrives meanwhile; after the restart it comes once, from the stored cursor.
	await r.phase('stop polling', () => current.stop());
	await view.post('/_sandbox/incoming', { phone: pollPhone, text: `while stopped ${tag}` });
	const restarted = (r.nodeRed = await r.phase('restart polling', () => startAgain(r, current)));
	await waitFor('the message written while stopped in the flow', async () => ((await polledTexts(restarted)).length ? true : undefined), {
		timeoutMs: 20_000,
	});
	await sleep(4500);
	assertEqual(
		(await polledTexts(restarted)).map((p) => p.text),
		[`while stopped ${tag}`],
		'items after the restart (only the new one, once)',
	);
}

/** Full deploys under a steady stream of inbound messages (redeploy-chaos.ts): each reaches the flow once. */
async function redeploysUnderLoad(r: RuntimeRun): Promise<void> {
	const full = process.env.CHAT_MESSAGING_E2E_CHAOS === 'full';
	const sizes = full ? { messages: 600, perSecond: 20, deploys: 30 } : { messages: 160, perSecond: 20, deploys: 8 };
	const variant = CHAOS_VARIANTS[1]!; // the event filters: a lookup for every event
	const flows = [...r.fullFlow, ...chaosFlow(r.sandbox.url, r.publicUrl, r.token, variant.options)];
	const result = await r.phase('redeploys under load', () => redeployChaos(running(r), r.view, flows, sizes));
	console.log(
		`        ${result.sent} messages at ${sizes.perSecond}/s, ${result.deploys} full deploys (${variant.name}): ` +
			`${result.lost.length} lost, ${result.twice.length} twice`,
	);
	assertEqual([result.lost.length, result.twice.length], [0, 0], 'messages lost, messages reaching the flow more than once');
}

export const restartCases: RuntimeCase[] = [
	{
		name: 'stopping Node-RED keeps the subscriptions and their secret; after a restart an inbound message gets in',
		run: subscriptionsSurviveStop,
	},
	...STOP_SECONDS.map((stopSeconds): RuntimeCase => ({
		name: `webhook mode, a stop of ${stopSeconds} s with a message every ${SEND_EVERY_MS} ms throughout: each reaches the flow exactly once (caught up after the start)`,
		run: (r) => stopWithMessagesThroughout(r, stopSeconds),
	})),
	{ name: 'a quiet restart: the catch-up costs one request per event type it reads back', run: quietRestart },
	{
		name: 'polling mode: no subscription; each message once (a burst as one item) across a redeploy and a restart, the cursor in the user dir',
		run: pollingMode,
	},
	{
		name: 'full deploys while inbound messages keep arriving (event filters on): each reaches the flow once (CHAT_MESSAGING_E2E_CHAOS=full: 600 messages, 30 deploys)',
		run: redeploysUnderLoad,
	},
];
