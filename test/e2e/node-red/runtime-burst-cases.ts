/**
 * Burst batching as a customer feels it: ten bursts of three messages, each in a chat of its own, to two event nodes
 * at once, one in webhook mode and one in polling mode; each node hands on one msg per burst (the texts joined, with
 * msg.chatInput and msg.sessionId), and the time from the burst's last message to the msg in the flow is measured in
 * each mode and reported (never asserted: the checks assert one msg per burst).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

import { assertEqual, deployFlows, sleep, waitFor } from './e2e-support';
import { collected, CONFIG_ID, running, TAB, type Flow, type Json, type RuntimeCase, type RuntimeRun } from './runtime-support';

/** The quiet time both nodes batch with, and the polling node's interval. */
const QUIET_SECONDS = 3;
const POLL_SECONDS = 10;
const BURSTS = 10;
/** Between two bursts' starts: ten bursts spread over two poll intervals, so they meet the polls at different points. */
const STAGGER_MS = 2300;

const MODES = { webhook: 'e2e-burst-webhook', polling: 'e2e-burst-polling' } as const;
type Mode = keyof typeof MODES;

/** A function node that keeps when each msg reached the flow, under `key`. */
const timer = (id: string, key: string): Json => ({
	id,
	z: TAB,
	type: 'function',
	name: `time ${key}`,
	func: [
		"const all = global.get('collected') || {};",
		`(all[${JSON.stringify(key)}] = all[${JSON.stringify(key)}] || []).push({ at: Date.now(), chat_id: msg.payload.chat_id, text: msg.payload.text, chatInput: msg.chatInput, sessionId: msg.sessionId });`,
		"global.set('collected', all);",
		'return null;',
	].join('\n'),
	outputs: 1,
	wires: [[]],
});

const burstNodes = (): Flow => [
	{
		id: MODES.webhook,
		z: TAB,
		type: 'chat-messaging-event',
		name: 'bursts (webhook)',
		config: CONFIG_ID,
		events: ['message:received:new'],
		burstQuietSeconds: QUIET_SECONDS,
		wires: [['time-burst-webhook']],
	},
	{
		id: MODES.polling,
		z: TAB,
		type: 'chat-messaging-event',
		name: 'bursts (polling)',
		config: CONFIG_ID,
		mode: 'polling',
		pollSeconds: POLL_SECONDS,
		events: ['message:received:new'],
		burstQuietSeconds: QUIET_SECONDS,
		wires: [['time-burst-polling']],
	},
	timer('time-burst-webhook', 'burstWebhook'),
	timer('time-burst-polling', 'burstPolling'),
];

const median = (values: number[]): number => {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const seconds = (ms: number): string => (ms / 1000).toFixed(1);

async function burstLatencies(r: RuntimeRun): Promise<void> {
	const nodeRed = running(r);
	await r.phase('deploy burst nodes', () => deployFlows(nodeRed.url, [...r.fullFlow, ...burstNodes()]));
	const stateFile = path.join(r.dir, 'chat-messaging', `event-${MODES.polling}.json`);
	await waitFor('the polling node to store its first cursor', async () => (existsSync(stateFile) ? true : undefined));
	await waitFor('the webhook node to subscribe', async () =>
		(await r.view.webhooks()).some((hook) => String(hook.url).includes(`/${MODES.webhook}/`)) ? true : undefined,
	);
	const prefix = '+4915552' + String(Date.now() % 100_000).padStart(5, '0');
	const started = Date.now();
	const bursts = await Promise.all(
		Array.from({ length: BURSTS }, async (_, index) => {
			await sleep(Math.max(0, started + index * STAGGER_MS - Date.now()));
			const texts = [`burst ${index} hi`, `burst ${index} my order`, `burst ${index} is late`];
			const first = await r.view.post<Json>('/_sandbox/incoming', { phone: `${prefix}${index}`, text: texts[0] });
			const chatId = first.chat_id as number;
			for (const text of texts.slice(1)) await r.view.post('/_sandbox/incoming', { chat_id: chatId, text });
			return { chatId, text: texts.join('\n'), lastAt: Date.now() };
		}),
	);
	const latencies: Record<Mode, number[]> = { webhook: [], polling: [] };
	for (const mode of Object.keys(MODES) as Mode[]) {
		const key = mode === 'webhook' ? 'burstWebhook' : 'burstPolling';
		for (const burst of bursts) {
			const [entry] = await waitFor(
				`burst of chat ${burst.chatId} from the ${mode} node`,
				async () => {
					const entries = ((await collected(nodeRed))[key] ?? []).filter((item) => item.chat_id === burst.chatId);
					return entries.length ? entries : undefined;
				},
				{ timeoutMs: (QUIET_SECONDS + 2 * POLL_SECONDS + 30) * 1000 },
			);
			latencies[mode].push(Number(entry!.at) - burst.lastAt);
		}
	}
	await sleep((QUIET_SECONDS + POLL_SECONDS) * 1000); // a split burst would show by now
	const all = await collected(nodeRed);
	for (const mode of Object.keys(MODES) as Mode[]) {
		const entries = all[mode === 'webhook' ? 'burstWebhook' : 'burstPolling'] ?? [];
		for (const burst of bursts) {
			const ours = entries.filter((item) => item.chat_id === burst.chatId);
			assertEqual(ours.length, 1, `msgs for the burst of chat ${burst.chatId} from the ${mode} node`);
			assertEqual(
				[ours[0]!.text, ours[0]!.chatInput, ours[0]!.sessionId],
				[burst.text, burst.text, String(burst.chatId)],
				`the ${mode} node's msg: the burst's texts joined, as msg.payload.text and msg.chatInput; the chat as msg.sessionId`,
			);
		}
	}
	const line = (mode: Mode) =>
		`${mode}: median ${seconds(median(latencies[mode]))} s, worst ${seconds(Math.max(...latencies[mode]))} s (each ${latencies[mode].map(seconds).join(', ')})`;
	console.log(
		`        ${BURSTS} bursts ${seconds(STAGGER_MS)} s apart, quiet ${QUIET_SECONDS} s, polling every ${POLL_SECONDS} s; ` +
			`from the last message to the msg in the flow: ${line('webhook')}; ${line('polling')}`,
	);
	// The next cases deploy their own flows: these nodes go.
	await deployFlows(nodeRed.url, r.fullFlow);
}

export const burstCases: RuntimeCase[] = [
	{
		name: `burst batching, timed: ${BURSTS} bursts to an event node in webhook mode and one in polling mode, one msg per burst each (msg.chatInput, msg.sessionId); latency from the last message to the msg`,
		run: burstLatencies,
	},
];
