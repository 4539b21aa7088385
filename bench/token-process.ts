/**
 * One process on a shared token, for bench/processes.ts: the executor as a script makes one (fetch, real time,
 * pacing per base URL and token), with the pacing adaptive (as shipped) or fixed at 28 a second (as before), started
 * at an agreed moment so that the processes begin together. Prints one JSON line: when it began and ended, what it
 * did, and when each answer came (epoch ms).
 * Usage: tsx bench/token-process.ts <send|list> <url> <token> <adaptive|fixed> <startAt> <count> <tag> <chatIds,...>
 */
import { Executor, pacingKey, SERVICE_RATE_LIMIT } from '@chat-messaging/core';
import { fetchTransport, realTiming } from '../test/support/fetch-transport';
import { sleep } from './lib';

async function main(): Promise<void> {
	const [job, url, token, scheme, startAt, count, tag, chatIds] = process.argv.slice(2) as [
		'send' | 'list',
		string,
		string,
		'adaptive' | 'fixed',
		string,
		string,
		string,
		string,
	];
	const executor = new Executor({
		baseUrl: url,
		token,
		transport: fetchTransport,
		timing: realTiming,
		rateLimit: scheme === 'fixed' ? { ...SERVICE_RATE_LIMIT, adaptive: false } : SERVICE_RATE_LIMIT,
		pacingKey: pacingKey(url, token),
	});
	const chats = chatIds.split(',').map(Number);
	const wait = Number(startAt) - Date.now();
	if (wait > 0) await sleep(wait);
	const began = Date.now();
	const answers: number[] = [];
	let done = 0;
	if (job === 'list') {
		const listed = (await executor.run('chat:getAll', {})) as unknown[];
		done = listed.length;
		answers.push(Date.now());
	} else {
		const sent = await Promise.all(
			Array.from({ length: Number(count) }, async (_, index) => {
				const answer = (await executor.run('message:sendToChat', {
					chat_id: chats[index % chats.length],
					text: `${tag} ${index}`,
				})) as { message_uid?: string };
				answers.push(Date.now());
				return typeof answer.message_uid === 'string';
			}),
		);
		done = sent.filter(Boolean).length;
	}
	process.stdout.write(JSON.stringify({ began, ended: Date.now(), done, answers }));
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
