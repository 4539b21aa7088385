/**
 * What one poll of packages/core/src/runtime/events/polling.ts costs (requests and time) in a workspace of 2,000 chats, with 40 ms
 * of latency per request (a distant service), by how much changed since the last poll: nothing, one
 * message, 10 messages in 10 chats, 60 messages in 60 chats (two chat pages). Beside it, the request
 * count of the naive alternative that reads every chat's latest messages each poll (1 request per
 * chat plus the chat pages), which the chat list's "latest message first" order makes unnecessary.
 * Also one look of packages/core/src/runtime/events/replies.ts (findReply) with and without a reply. Medians of 5 rounds.
 * Run: npx tsx bench/polling.bench.ts
 */
import { Executor } from '@chat-messaging/core';
import { pollEvents, type PollCursor } from '@chat-messaging/core';
import { findReply } from '@chat-messaging/core';
import { startSandbox } from '@chat-messaging/sandbox';
import { fetchTransport, realTiming } from '../test/support/fetch-transport';

const CHATS = 2000;
const TOKEN = 'bench';

async function main() {
	const sandbox = await startSandbox({ chats: CHATS, latencyMs: 40, tokens: [TOKEN], seed: 5, seedTime: 'now', paceMs: 0 });
	let requests = 0;
	const executor = new Executor({
		baseUrl: sandbox.url,
		token: TOKEN,
		transport: async (request) => {
			requests++;
			return fetchTransport(request);
		},
		timing: realTiming,
		rateLimit: false,
	});
	const control = async (path: string, body: unknown) => {
		const response = await fetch(`${sandbox.url}${path}`, {
			method: 'POST',
			headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
			body: JSON.stringify(body),
		});
		return ((await response.json()) as { data: Record<string, unknown> }).data;
	};
	const chatIds: number[] = [];
	for (let page = 1; chatIds.length < 200; page++) {
		const data = (await executor.run('chat:getAll', { page })) as { chats: Array<{ id: number }> };
		chatIds.push(...data.chats.map((chat) => chat.id));
	}

	try {
		let cursor: PollCursor = (await pollEvents(executor, { source: 'messageReceived', now: Date.now() })).cursor;
		console.log(`One poll of new inbound messages, ${CHATS} chats, 40 ms latency per request (median of 5)`);
		console.log('  changed since the last poll        requests   naive requests   median ms   events');
		let round = 0;
		for (const changed of [0, 1, 10, 60]) {
			const times: number[] = [];
			let counted = 0;
			let events = 0;
			for (let sample = 0; sample < 5; sample++) {
				for (let index = 0; index < changed; index++) {
					// Different chats each round, spread over the list (old chats move to the top).
					await control('/_sandbox/incoming', {
						chat_id: chatIds[(round * 7 + index * 3) % chatIds.length],
						text: `bench ${round}.${index}`,
					});
				}
				round++;
				requests = 0;
				const started = performance.now();
				const result = await pollEvents(executor, { source: 'messageReceived', cursor, now: Date.now() });
				times.push(performance.now() - started);
				counted = requests;
				events = result.events.length;
				cursor = result.cursor;
			}
			const median = times.sort((a, b) => a - b)[2];
			const naive = Math.ceil(CHATS / 50) + CHATS;
			console.log(
				`  ${String(changed).padStart(3)} messages in ${String(changed).padStart(3)} chats      ${String(counted).padStart(8)}   ${String(naive).padStart(14)}   ${median.toFixed(0).padStart(9)}   ${String(events).padStart(6)}`,
			);
		}

		const sent = await executor.sendMessage('message:sendToChat', { chat_id: chatIds[5], text: 'question' });
		const watch = { chat_id: chatIds[5], message_uid: String(sent.message_uid) };
		const look = async () => {
			requests = 0;
			const started = performance.now();
			const reply = await findReply(executor, watch);
			return { ms: performance.now() - started, requests, found: reply !== undefined };
		};
		const none = await look();
		await control('/_sandbox/incoming', { chat_id: chatIds[5], text: 'answer' });
		const found = await look();
		console.log('One look for a reply (findReply)');
		console.log(`  no reply yet:  ${none.requests} request,  ${none.ms.toFixed(0)} ms`);
		console.log(`  reply present: ${found.requests} requests, ${found.ms.toFixed(0)} ms (found: ${found.found})`);
	} finally {
		await sandbox.stop();
	}
}

void main();
