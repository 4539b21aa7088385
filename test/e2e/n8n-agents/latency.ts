/**
 * What a customer waits for: from a burst's last message to the reply stored in the chat, measured over bursts in
 * chats of their own (the service's own `message:sent:new` deliveries say when each reply was stored). Reported,
 * never asserted: the checks assert one model call and one reply per burst.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { sleep, waitFor } from '../../support/harness';
import { assert } from '../n8n/checks';
import { burstScenario, content, executions, type BurstDeps, type BurstScenario, type SandboxMessage } from './burst-responder';

/** When each reply was stored: the service's own `message:sent:new` deliveries, received on loopback. */
export interface SentReceiver {
	/** Arrival time (epoch ms) of the first delivery of a sent message, by `chat_id|text`. */
	sentAt: Map<string, number>;
	stop(): Promise<void>;
}

export async function startSentReceiver(sandbox: BurstDeps['sandbox']): Promise<SentReceiver> {
	const sentAt = new Map<string, number>();
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const at = Date.now();
			try {
				const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
					data?: { chat_id?: unknown; text?: unknown };
					chat?: { chat_id?: unknown };
					message?: { text?: unknown };
				};
				const key = `${String(body.data?.chat_id ?? body.chat?.chat_id)}|${String(body.data?.text ?? body.message?.text)}`;
				if (!sentAt.has(key)) sentAt.set(key, at);
			} catch {
				// not a delivery: nothing to time
			}
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end('{"status":"ok"}');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sent`;
	const hook = await sandbox<{ id: number }>('POST', '/webhooks', { event_type: 'message:sent:new', url });
	return {
		sentAt,
		stop: async () => {
			await sandbox('DELETE', `/webhooks/${hook.id}`).catch(() => undefined);
			await new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			});
		},
	};
}

/** Ten bursts' scenarios, one chat each; the stub answers them by their marks (register them before a run). */
export const latencyScenarios = (mark: string, count = 10): BurstScenario[] =>
	Array.from({ length: count }, (_, index) => burstScenario(`${mark}${index}:`));

export interface LatencyOptions {
	/** Between the starts of two bursts: spread over n8n's one-minute wait tick, so each burst meets it at another point. */
	staggerMs: number;
	/** The workflow's quiet time, to report against. */
	quietSeconds: number;
	/** After the bursts were sent, while their executions wait (a restart): what it did, for the report. */
	duringWait?: () => Promise<string>;
}

const median = (values: number[]): number => {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const seconds = (ms: number): string => (ms / 1000).toFixed(1);

/**
 * Bursts of three messages in chats of their own, started `staggerMs` apart: each burst gets one reply and one model
 * call (asserted), and the time from its last message to its stored reply is measured and reported (never asserted:
 * speed is reported, the test asserts one answer).
 */
export async function burstLatencies(deps: BurstDeps, scenarios: BurstScenario[], options: LatencyOptions): Promise<string> {
	const receiver = await startSentReceiver(deps.sandbox);
	try {
		const baseline = { requests: deps.requests.length, waiting: (await executions(deps)).waiting };
		const started = Date.now();
		const sent = await Promise.all(
			scenarios.map(async (scenario, index) => {
				await sleep(Math.max(0, started + index * options.staggerMs - Date.now()));
				const [first, ...rest] = scenario.burst;
				const { chat_id: chatId } = await deps.sandbox<{ chat_id: number }>('POST', '/_sandbox/incoming', {
					phone: scenario.phone,
					text: first,
				});
				for (const text of rest) await deps.sandbox('POST', '/_sandbox/incoming', { chat_id: chatId, text });
				return { scenario, chatId, lastAt: Date.now() };
			}),
		);
		let note = '';
		if (options.duringWait) note = `; ${await options.duringWait()}`;
		const latencies: number[] = [];
		for (const { scenario, chatId, lastAt } of sent) {
			const key = `${chatId}|${scenario.reply}`;
			const at = await waitFor(`the reply to burst ${scenario.mark}`, async () => receiver.sentAt.get(key), {
				timeoutMs: 240_000,
				intervalMs: 100,
			}).catch((error: Error) => {
				throw new Error(`${error.message}; stub failures: ${deps.failures.join(' | ') || 'none'}`);
			});
			latencies.push(at - lastAt);
		}
		// Every execution of the bursts has ended (the earlier ones of each burst without output) before counting.
		await waitFor('the bursts’ executions to end', async () => (await executions(deps)).waiting <= baseline.waiting || undefined, {
			timeoutMs: 120_000,
			intervalMs: 1000,
		});
		const calls = deps.requests.slice(baseline.requests);
		for (const { scenario, chatId } of sent) {
			const ours = calls.filter((request) =>
				content(request.messages.filter((message) => message.role === 'user').at(-1)?.content).startsWith(scenario.mark),
			);
			assert(ours.length === 1, `burst ${scenario.mark} gave ${ours.length} model calls, not 1`);
			const messages = (await deps.sandbox<{ messages: SandboxMessage[] }>('GET', `/chats/${chatId}/messages`)).messages;
			const replies = messages.filter((message) => message.from_me && message.text === scenario.reply);
			assert(replies.length === 1, `burst ${scenario.mark} gave ${replies.length} replies, not 1`);
		}
		const quietMs = options.quietSeconds * 1000;
		return (
			`${sent.length} bursts, ${seconds(options.staggerMs)} s apart, quiet ${options.quietSeconds} s: one model call and one reply each${note}; ` +
			`from the last message to the stored reply: median ${seconds(median(latencies))} s (quiet + ${seconds(median(latencies) - quietMs)} s), ` +
			`worst ${seconds(Math.max(...latencies))} s (quiet + ${seconds(Math.max(...latencies) - quietMs)} s); ` +
			`each: ${latencies.map(seconds).join(', ')} s`
		);
	} finally {
		await receiver.stop();
	}
}
