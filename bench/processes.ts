/**
 * Processes sharing one token (n8n's queue-mode workers, several Node-RED or MCP servers): N = 1, 2 and 4 processes,
 * each the executor in a child process (bench/token-process.ts), started together against the sandbox at the
 * service's limit and latency. Each N runs side by side with each pacing: fixed at 28 a second per process (before
 * the adaptive rate), main's (the gentle start once per process), and as shipped. Jobs: 1,000 sends split between the
 * processes, and each process listing all 5,000 chats. Then a burst: one process sends steadily while another starts
 * 200 sends at once. Then quiet workers: two processes send 150 each together, are quiet for 60 s, then are handed
 * 150 each at the same moment. Then the mixed case: an n8n node, a Node-RED node and the MCP server (each package with
 * its own pacer, as in separate processes) sending at once.
 * Options (bench/run.ts passes the command line on): --schemes=fixed,main,adaptive and --jobs=send,list,burst,quiet
 * (default: all), --quiet-rounds=N (default 2).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { RunningSandbox } from '@chat-messaging/sandbox';
import { n8nExecute, NodeRedFlows } from './contestants';
import { check, creditsUsed, floorSeconds, printTable, record, refill, sleep, traffic, type Row } from './lib';
import { McpStdioServer } from './mcp';

type Scheme = 'fixed' | 'main' | 'adaptive';
const argument = (name: string) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const SCHEMES = (
	[
		['fixed', 'before (fixed 28/s each)'],
		['main', 'main (probe alike)'],
		['adaptive', 'adaptive'],
	] as Array<[Scheme, string]>
).filter(([scheme]) => argument('schemes')?.split(',').includes(scheme) ?? true);
const JOBS = argument('jobs')?.split(',');
const wantedJob = (job: string) => !JOBS || JOBS.includes(job);
const QUIET_ROUNDS = Math.max(1, Number(argument('quiet-rounds') ?? 2));
const QUIET_MS = 60_000;
const QUIET_WARM = 150;
const QUIET_BULK = 150;
const SENDS = 1_000;
const CHATS = 5_000;
const PAGES = 100;

interface ProcessRun {
	began: number;
	ended: number;
	done: number;
	answers: number[];
}

function startProcess(
	job: 'send' | 'list' | 'quiet',
	url: string,
	token: string,
	scheme: Scheme,
	startAt: number,
	count: number,
	tag: string,
	chatIds: number[],
	quiet: string[] = [],
): Promise<ProcessRun> {
	return promisify(execFile)(
		process.execPath,
		[
			'--import',
			'tsx',
			join(__dirname, 'token-process.ts'),
			job,
			url,
			token,
			scheme,
			String(startAt),
			String(count),
			tag,
			chatIds.join(','),
			...quiet,
		],
		{ encoding: 'utf8', maxBuffer: 1 << 24 },
	).then(({ stdout }) => JSON.parse(stdout) as ProcessRun);
}

/** Longest time a process went without an answer, from `from` (its start) to its end. */
function longestGap(answers: number[], from: number): number {
	const times = [from, ...answers.filter((at) => at >= from)].sort((a, b) => a - b);
	return Math.max(0, ...times.slice(1).map((at, index) => at - times[index]!));
}

interface Outcome {
	seconds: number;
	rateLimited: number;
	requests: number;
	runs: ProcessRun[];
	startAt: number;
}

/** `counts[i]` items for process i, all started together; the sandbox's 429s and calls counted around it. */
async function together(
	sandbox: RunningSandbox,
	token: string,
	job: 'send' | 'list',
	scheme: Scheme,
	counts: number[],
	chatIds: number[],
	delaysMs: number[] = [],
): Promise<Outcome> {
	await refill();
	const before = await traffic(sandbox, token);
	// Room for the children to load (tsx) before the agreed start.
	const startAt = Date.now() + 4000;
	const runs = await Promise.all(
		counts.map((count, index) =>
			startProcess(
				job,
				sandbox.url,
				token,
				scheme,
				startAt + (delaysMs[index] ?? 0),
				count,
				`${job} ${scheme} ${Date.now()} p${index}`,
				chatIds,
			),
		),
	);
	const after = await traffic(sandbox, token);
	return {
		seconds: (Math.max(...runs.map((run) => run.ended)) - startAt) / 1000,
		rateLimited: after.rate_limited - before.rate_limited,
		requests: after.api_calls - before.api_calls,
		runs,
		startAt,
	};
}

/** Two long-running processes: `QUIET_WARM` each together, quiet, then `QUIET_BULK` each at one moment; counted from it. */
async function quietThenBulk(sandbox: RunningSandbox, token: string, scheme: Scheme, chatIds: number[]): Promise<Outcome> {
	await refill();
	const credits = await creditsUsed(sandbox, token);
	// Room for the children to load (tsx), then the warm-up (about 11 s at two processes' shares).
	const startAt = Date.now() + 4000;
	const bulkAt = startAt + 15_000 + QUIET_MS;
	const children = [0, 1].map((index) =>
		startProcess('quiet', sandbox.url, token, scheme, startAt, QUIET_BULK, `quiet ${scheme} ${Date.now()} p${index}`, chatIds, [
			String(QUIET_WARM),
			String(bulkAt),
		]),
	);
	await sleep(bulkAt - 2000 - Date.now());
	const before = await traffic(sandbox, token);
	const runs = await Promise.all(children);
	const after = await traffic(sandbox, token);
	const stored = (await creditsUsed(sandbox, token)) - credits;
	check(
		stored === 2 * (QUIET_WARM + QUIET_BULK),
		`processes: quiet × ${scheme}: ${stored} messages stored, expected ${2 * (QUIET_WARM + QUIET_BULK)}`,
	);
	check(
		runs.every((run) => run.done === QUIET_BULK),
		`processes: quiet × ${scheme}: a send was not answered with its uid`,
	);
	return {
		seconds: (Math.max(...runs.map((run) => run.ended)) - bulkAt) / 1000,
		rateLimited: after.rate_limited - before.rate_limited,
		requests: after.api_calls - before.api_calls,
		runs,
		startAt: bulkAt,
	};
}

export async function runProcesses(sandbox: RunningSandbox, token: string, chatIds: number[]): Promise<void> {
	console.log(`\n[processes] N processes on one token (the executor in child processes), the pacing before and adaptive side by side`);
	const rows: Row[] = [];
	for (const job of (['send', 'list'] as const).filter(wantedJob)) {
		for (const processes of [1, 2, 4]) {
			for (const [scheme, label] of SCHEMES) {
				const counts =
					job === 'send'
						? Array.from({ length: processes }, (_, index) => Math.floor(SENDS / processes) + (index < SENDS % processes ? 1 : 0))
						: Array.from({ length: processes }, () => 0);
				const credits = await creditsUsed(sandbox, token);
				const outcome = await together(sandbox, token, job, scheme, counts, chatIds);
				if (job === 'send') {
					const stored = (await creditsUsed(sandbox, token)) - credits;
					check(stored === SENDS, `processes: ${processes} × ${scheme}: ${stored} messages stored, expected ${SENDS}`);
					check(
						outcome.runs.every((run, index) => run.done === counts[index]),
						`processes: ${processes} × ${scheme}: a send was not answered with its uid`,
					);
				} else {
					check(
						outcome.runs.every((run) => run.done === CHATS),
						`processes: ${processes} × ${scheme}: a list was incomplete`,
					);
				}
				const floor = floorSeconds(job === 'send' ? SENDS : PAGES * processes);
				// Shares while all were sending: answers per process until the first one finished.
				const firstDone = Math.min(...outcome.runs.map((run) => run.ended));
				const shares = outcome.runs.map((run) => run.answers.filter((at) => at <= firstDone).length);
				const name = `${job === 'send' ? `${SENDS} sends` : `list ${CHATS} each`}, ${processes} process${processes > 1 ? 'es' : ''}, ${label}`;
				console.log(`    ${name}: ${outcome.seconds.toFixed(2)} s, ${outcome.rateLimited} × 429`);
				rows.push({
					label: name,
					cells: {
						s: outcome.seconds,
						'× floor': outcome.seconds / floor,
						'429s': outcome.rateLimited,
						'429 per 1,000 requests': (1000 * outcome.rateLimited) / outcome.requests,
						'shares max / min': job === 'send' && processes > 1 ? Math.max(...shares) / Math.max(1, Math.min(...shares)) : '',
						// A list answers once, at its end: its longest wait is its time.
						'longest wait s': job === 'send' ? Math.max(...outcome.runs.map((run) => longestGap(run.answers, run.began))) / 1000 : '',
					},
				});
				record(`processes.${job}.n${processes}.${scheme}.floor`, outcome.seconds / floor);
				record(`processes.${job}.n${processes}.${scheme}.per1000`, (1000 * outcome.rateLimited) / outcome.requests);
			}
		}
	}
	// A burst: process 0 sends 600 steadily; 8 s in, process 1 sends 200 at once.
	for (const [scheme, label] of wantedJob('burst') ? SCHEMES : []) {
		const outcome = await together(sandbox, token, 'send', scheme, [600, 200], chatIds, [0, 8000]);
		const steady = outcome.runs[0]!;
		const burstAt = outcome.startAt + 8000;
		const during = steady.answers.filter((at) => at >= burstAt && at <= outcome.runs[1]!.ended).length;
		const seconds = (outcome.runs[1]!.ended - burstAt) / 1000;
		console.log(`    burst, ${label}: ${outcome.seconds.toFixed(2)} s, ${outcome.rateLimited} × 429`);
		rows.push({
			label: `burst of 200 into a steady 600, ${label}`,
			cells: {
				s: outcome.seconds,
				'× floor': outcome.seconds / floorSeconds(800),
				'429s': outcome.rateLimited,
				'429 per 1,000 requests': (1000 * outcome.rateLimited) / outcome.requests,
				'shares max / min': `steady ${(during / seconds).toFixed(1)}/s during the burst`,
				'longest wait s': longestGap(steady.answers, burstAt) / 1000,
			},
		});
		record(`processes.burst.${scheme}.steadyLongestWait`, longestGap(steady.answers, burstAt) / 1000);
	}
	// Quiet workers: 150 each together, quiet, then 150 each handed over at the same moment; rounds interleaved.
	for (let round = 0; round < (wantedJob('quiet') ? QUIET_ROUNDS : 0); round++) {
		for (const [scheme, label] of SCHEMES) {
			const outcome = await quietThenBulk(sandbox, token, scheme, chatIds);
			const seconds = outcome.seconds;
			const name = `quiet 60 s, then ${QUIET_BULK} each, 2 processes, ${label}`;
			console.log(`    ${name}: ${seconds.toFixed(2)} s, ${outcome.rateLimited} × 429 of ${outcome.requests}`);
			const shares = outcome.runs.map((run) => run.answers.length);
			rows.push({
				label: name,
				cells: {
					s: seconds,
					'× floor': seconds / floorSeconds(2 * QUIET_BULK),
					'429s': outcome.rateLimited,
					'429 per 1,000 requests': (1000 * outcome.rateLimited) / outcome.requests,
					'shares max / min': Math.max(...shares) / Math.max(1, Math.min(...shares)),
					'longest wait s': Math.max(...outcome.runs.map((run) => longestGap(run.answers, run.began))) / 1000,
				},
			});
			record(`processes.quiet.${scheme}.r${round + 1}.floor`, seconds / floorSeconds(2 * QUIET_BULK));
			record(`processes.quiet.${scheme}.r${round + 1}.per1000`, (1000 * outcome.rateLimited) / outcome.requests);
		}
	}
	printTable(`Processes sharing one token: 150 ms latency, 30/s burst 10; before = each process at a fixed 28/s`, rows, [
		`sends: ${SENDS} split between the processes, floor (${SENDS} − 10) / 30 + 0.15 = ${floorSeconds(SENDS).toFixed(1)} s; lists: each process all ${CHATS} chats (${PAGES} pages), floor of N × ${PAGES} requests`,
		`shares: answers per process until the first finished (max / min); longest wait: the longest a process went without an answer`,
		`quiet: each of 2 processes sent ${QUIET_WARM} with the other, was quiet ${QUIET_MS / 1000} s, then was handed ${QUIET_BULK} at the same moment; time, 429s and floor (${2 * QUIET_BULK} requests, ${floorSeconds(2 * QUIET_BULK).toFixed(1)} s) from that moment`,
		'every send stored exactly once (sandbox credits), every list complete',
	]);
}

/** An n8n node, a Node-RED node and the MCP server sending at once on one token: three pacers, as three processes. */
export async function runMixed(sandbox: RunningSandbox, token: string, chatIds: number[]): Promise<void> {
	console.log(`\n[mixed] an n8n node, a Node-RED node and the MCP server sending ${SENDS} at once on one token`);
	const flows = await NodeRedFlows.load(sandbox.url, token, [
		{ id: 'send', config: 'cfg', props: { resource: 'message', operation: 'sendToChat', payloadFields: true, fields: {} } },
	]);
	const { server: mcp } = await McpStdioServer.start(sandbox.url, token);
	await mcp.warmUp();
	const rows: Row[] = [];
	try {
		await refill();
		const plan = (tag: string, count: number) =>
			Array.from({ length: count }, (_, i) => ({ chatId: chatIds[i % chatIds.length]!, text: `mixed ${tag} ${Date.now()} ${i}` }));
		const [n8nCount, nodeRedCount, mcpCount] = [334, 333, 333];
		const before = await traffic(sandbox, token);
		const credits = await creditsUsed(sandbox, token);
		const started = performance.now();
		const finished: Record<string, number> = {};
		const timed = async <T>(name: string, work: Promise<T>) => {
			const result = await work;
			finished[name] = (performance.now() - started) / 1000;
			return result;
		};
		const n8nPlan = plan('n8n', n8nCount);
		const [n8nItems, nodeRedMsgs, mcpSent] = await Promise.all([
			timed(
				'n8n',
				n8nExecute(
					sandbox.url,
					token,
					(i) => ({ resource: 'message', operation: 'sendToChat', chat_id: n8nPlan[i]!.chatId, text: n8nPlan[i]!.text }),
					n8nCount,
				),
			),
			timed(
				'Node-RED',
				flows.run(
					'send',
					plan('nr', nodeRedCount).map((send) => ({ payload: { chat_id: send.chatId, text: send.text } })),
				),
			),
			timed('MCP', mcp.sendAll(plan('mcp', mcpCount))),
		]);
		const seconds = (performance.now() - started) / 1000;
		const after = await traffic(sandbox, token);
		const stored = (await creditsUsed(sandbox, token)) - credits;
		check(stored === SENDS, `mixed: ${stored} messages stored, expected ${SENDS}`);
		check(n8nItems.filter((item) => typeof item.json.message_uid === 'string').length === n8nCount, 'mixed: n8n outputs');
		check(nodeRedMsgs.length === nodeRedCount, 'mixed: Node-RED outputs');
		check(mcpSent === mcpCount, 'mixed: MCP answers');
		const rateLimited = after.rate_limited - before.rate_limited;
		console.log(`    mixed: ${seconds.toFixed(2)} s, ${rateLimited} × 429`);
		rows.push({
			label: 'n8n node + Node-RED node + MCP server',
			cells: {
				s: seconds,
				'× floor': seconds / floorSeconds(SENDS),
				'429s': rateLimited,
				'429 per 1,000 requests': (1000 * rateLimited) / (after.api_calls - before.api_calls),
				'done at s (n8n / Node-RED / MCP)': ['n8n', 'Node-RED', 'MCP'].map((name) => finished[name]!.toFixed(1)).join(' / '),
			},
		});
		record('mixed.floor', seconds / floorSeconds(SENDS));
		record('mixed.per1000', (1000 * rateLimited) / (after.api_calls - before.api_calls));
	} finally {
		await mcp.stop();
		await flows.unload();
	}
	printTable(`Mixed: ${SENDS} sends at once, 334 through the n8n node, 333 through the Node-RED node, 333 as MCP tool calls`, rows, [
		`each package carries its own pacer (as separate processes would); floor (${SENDS} − 10) / 30 + 0.15 = ${floorSeconds(SENDS).toFixed(1)} s; every send stored once`,
	]);
}
