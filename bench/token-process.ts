/**
 * One process on a shared token, for bench/processes.ts: the executor as a script makes one (fetch, real time,
 * pacing per base URL and token), with the pacing as shipped (`adaptive`), as on main before the probe slowed with the
 * number of processes sharing (`main`), or fixed at 28 a second (`fixed`), started at an agreed moment so that the processes begin
 * together. `quiet`: it sends `warm` first (with the others), then nothing until `bulkAt`, then `count` at once (a
 * long-running worker handed work after a quiet spell). Prints one JSON line: when it began and ended, what it did,
 * and when each answer came (epoch ms); for `quiet` from `bulkAt` on.
 * Usage: tsx bench/token-process.ts <send|list|quiet> <url> <token> <adaptive|main|fixed> <startAt> <count> <tag> <chatIds,...> [warm bulkAt]
 */
import { Executor, pacingKey, SERVICE_RATE_LIMIT, type RateLimit } from '@chat-messaging/core';
import { fetchTransport, realTiming } from '../test/support/fetch-transport';
import { PROBE_ALIKE, sleep } from './lib';

const PACING: Record<string, RateLimit> = {
	adaptive: SERVICE_RATE_LIMIT,
	main: PROBE_ALIKE,
	fixed: { ...SERVICE_RATE_LIMIT, adaptive: false },
};

async function main(): Promise<void> {
	const [job, url, token, scheme, startAt, count, tag, chatIds, warm, bulkAt] = process.argv.slice(2) as [
		'send' | 'list' | 'quiet',
		string,
		string,
		string,
		string,
		string,
		string,
		string,
		string | undefined,
		string | undefined,
	];
	const executor = new Executor({
		baseUrl: url,
		token,
		transport: fetchTransport,
		timing: realTiming,
		rateLimit: PACING[scheme],
		pacingKey: pacingKey(url, token),
	});
	if (!PACING[scheme]) throw new Error(`no pacing named ${scheme}`);
	const chats = chatIds.split(',').map(Number);
	const until = async (at: number) => {
		const wait = at - Date.now();
		if (wait > 0) await sleep(wait);
	};
	const answers: number[] = [];
	const sendAll = async (how: number, prefix: string) => {
		const sent = await Promise.all(
			Array.from({ length: how }, async (_, index) => {
				const answer = (await executor.run('message:sendToChat', {
					chat_id: chats[index % chats.length],
					text: `${prefix} ${index}`,
				})) as { message_uid?: string };
				answers.push(Date.now());
				return typeof answer.message_uid === 'string';
			}),
		);
		return sent.filter(Boolean).length;
	};
	await until(Number(startAt));
	let began = Date.now();
	let done = 0;
	if (job === 'list') {
		const listed = (await executor.run('chat:getAll', {})) as unknown[];
		done = listed.length;
		answers.push(Date.now());
	} else if (job === 'quiet') {
		await sendAll(Number(warm), `${tag} warm`);
		await until(Number(bulkAt));
		answers.length = 0;
		began = Date.now();
		done = await sendAll(Number(count), tag);
	} else {
		done = await sendAll(Number(count), tag);
	}
	process.stdout.write(JSON.stringify({ began, ended: Date.now(), done, answers }));
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
