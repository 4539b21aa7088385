/**
 * `npm run bench`: what users feel, against a sandbox answering in 150 ms and allowing 30 requests per second with a
 * burst of 10 (the service's allowance). Each scenario runs its contestants interleaved in one run and reports them as
 * ratios to the rate floor (a bare client firing at exactly the allowance) and to a careful sequential keep-alive
 * loop; each checks that the contestants produced the same data. Ends with one JSON line of every ratio.
 *
 * Options: --only=list,sends,shared,processes,mixed,events,overhead,growth,load (default: all); --rounds=N for the listing (default 2).
 * `npm run bench` builds first (the nodes run from dist/, as n8n loads them); `npx tsx bench/run.ts` uses dist/ as it
 * is. The real-n8n contestants run only when
 * test/e2e/runtimes.sh has installed n8n into ~/.cache/chat-messaging (a note is printed otherwise).
 * Benchmarks are not tests: nothing here is asserted on time, and none of it runs in test/run-all.sh.
 */
import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';
import { runColdLoad } from './cold-load';
import { n8nExecute, NodeRedFlows, scriptExecutor } from './contestants';
import { runEventIntake } from './events';
import { runGrowth } from './growth';
import { MCP_LIST_LIMIT, McpStdioServer, memoryOf } from './mcp';
import {
	BenchError,
	check,
	creditsUsed,
	floorList,
	floorSeconds,
	floorSends,
	LATENCY_MS,
	median,
	printTable,
	ratios,
	record,
	refill,
	sameIds,
	sequentialList,
	sequentialSends,
	SERVICE_BURST,
	SERVICE_RATE,
	target,
	targets,
	traffic,
	type Row,
	type Send,
} from './lib';
import { runOverhead } from './overhead';
import { runMixed, runProcesses } from './processes';
import { startRealN8n, type RealN8n } from './real-n8n';

const CHATS = 5_000;
const PAGE_SIZE = 50;
const SENDS = 1_000;
/** The sequential send loop takes 150 s for 1,000: it sends this many and its time is scaled to SENDS (stated in the table). */
const SEQUENTIAL_SENDS = 200;
const TOKEN = 'bench-token';

const argument = (name: string) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const only = argument('only')?.split(',');
const wanted = (scenario: string) => !only || only.includes(scenario);
const ROUNDS = Math.max(1, Number(argument('rounds') ?? 2));

interface Contestant<T> {
	label: string;
	run: () => Promise<T>;
	/** Throws a BenchError when the run's data differs from the reference. */
	verify: (result: T) => void;
	/** Time scaled to the full job (a contestant that did a part of it); 1 by default. */
	scale?: number;
}

interface Measured {
	label: string;
	seconds: number[];
	rateLimited: number;
	scale: number;
}

/** Runs the contestants interleaved, `rounds` times, each after the buckets refilled; counts their 429s. */
async function contest<T>(sandbox: RunningSandbox, contestants: Array<Contestant<T> | undefined>, rounds: number): Promise<Measured[]> {
	const present = contestants.filter((c): c is Contestant<T> => c !== undefined);
	const measured = present.map((c) => ({ label: c.label, seconds: [] as number[], rateLimited: 0, scale: c.scale ?? 1 }));
	for (let round = 0; round < rounds; round++) {
		for (const [index, contestant] of present.entries()) {
			await refill();
			const before = await traffic(sandbox, TOKEN);
			const started = performance.now();
			const result = await contestant.run();
			const seconds = (performance.now() - started) / 1000;
			const after = await traffic(sandbox, TOKEN);
			contestant.verify(result);
			measured[index]!.seconds.push(seconds * measured[index]!.scale);
			measured[index]!.rateLimited += after.rate_limited - before.rate_limited;
			process.stdout.write(`    ${contestant.label}: ${seconds.toFixed(2)} s, ${after.rate_limited - before.rate_limited} × 429\n`);
		}
	}
	return measured;
}

function rowsAgainst(
	measured: Measured[],
	floorLabel: string,
	sequentialLabel: string,
	extra: (m: Measured) => Record<string, string | number> = () => ({}),
): Row[] {
	const floor = median(measured.find((m) => m.label === floorLabel)!.seconds);
	const sequential = median(measured.find((m) => m.label === sequentialLabel)!.seconds);
	return measured.map((m) => {
		const seconds = median(m.seconds);
		return {
			label: m.label,
			cells: {
				's (median)': seconds,
				'× floor': seconds / floor,
				'× sequential': seconds / sequential,
				'429s': m.rateLimited,
				...extra(m),
			},
		};
	});
}

/** `n8n node (execute)` → `n8nNode`: a JSON key for a contestant. */
function key(label: string): string {
	const words = label
		.replace(/\(.*?\)/g, '')
		.trim()
		.split(/[^A-Za-z0-9]+/)
		.filter(Boolean);
	return words.map((word, i) => (i === 0 ? word.toLowerCase() : word[0]!.toUpperCase() + word.slice(1).toLowerCase())).join('');
}

// -------------------------------------------------------------------------------------------------------------------

async function listAll(sandbox: RunningSandbox, realN8n: RealN8n | undefined): Promise<void> {
	const pages = CHATS / PAGE_SIZE;
	console.log(`\n[list] Return All over ${CHATS} chats (${pages} pages), ${ROUNDS} round(s) interleaved`);
	const reference = await sequentialList(sandbox.url, TOKEN);
	check(reference.length === CHATS, `the sandbox lists ${reference.length} chats, expected ${CHATS}`);
	const ids = (label: string) => (result: number[]) => sameIds(label, result, reference);
	const flows = await NodeRedFlows.load(sandbox.url, TOKEN, [
		{ id: 'list', config: 'cfg', props: { resource: 'chat', operation: 'getAll', returnAll: true, outputMode: 'array' } },
	]);
	const { server: mcp } = await McpStdioServer.start(sandbox.url, TOKEN);
	await mcp.warmUp();
	try {
		const measured = await contest<number[]>(
			sandbox,
			[
				{ label: 'floor (bare client at 30/s)', run: () => floorList(sandbox.url, TOKEN, pages), verify: ids('floor') },
				{
					label: 'executor',
					run: async () => ((await scriptExecutor(sandbox.url, TOKEN).run('chat:getAll', {})) as Array<{ id: number }>).map((c) => c.id),
					verify: ids('executor'),
				},
				{
					label: 'n8n node (execute)',
					run: async () =>
						(await n8nExecute(sandbox.url, TOKEN, () => ({ resource: 'chat', operation: 'getAll', returnAll: true }))).map((item) =>
							Number(item.json.id),
						),
					verify: ids('n8n node'),
				},
				{
					label: 'Node-RED node',
					run: async () => ((await flows.run('list', [{ payload: {} }]))[0]!.payload as Array<{ id: number }>).map((c) => c.id),
					verify: ids('Node-RED node'),
				},
				{ label: 'MCP server (stdio, cursor)', run: () => mcp.listAllChats(), verify: ids('MCP server') },
				realN8n && { label: 'n8n node in real n8n', run: () => realN8n.listWithNode(), verify: ids('real n8n node') },
				realN8n && {
					label: 'HTTP Request node in real n8n',
					run: () => realN8n.listWithHttpRequestNode(),
					verify: ids('n8n HTTP Request node'),
				},
				{ label: 'sequential loop', run: () => sequentialList(sandbox.url, TOKEN), verify: ids('sequential loop') },
			],
			ROUNDS,
		);
		const rows = rowsAgainst(measured, 'floor (bare client at 30/s)', 'sequential loop');
		const mcpMemory = memoryOf(mcp.pid);
		printTable(`List all ${CHATS} chats, ${LATENCY_MS} ms latency, ${SERVICE_RATE}/s burst ${SERVICE_BURST}`, rows, [
			`floor in theory (${pages} − ${SERVICE_BURST}) / ${SERVICE_RATE} + ${LATENCY_MS / 1000} = ${floorSeconds(pages).toFixed(2)} s; every contestant returned the same ${CHATS} chat ids`,
			`MCP server: chat_get_many with limit ${MCP_LIST_LIMIT} and its cursor (${CHATS / MCP_LIST_LIMIT} calls); the server process peaked at ${mcpMemory.peakMb.toFixed(0)} MB resident`,
		]);
		record('list.mcpServer.peakMb', mcpMemory.peakMb);
		for (const row of rows) {
			record(`list.${key(row.label)}.floor`, row.cells['× floor'] as number);
			record(`list.${key(row.label)}.sequential`, row.cells['× sequential'] as number);
			if (!row.label.startsWith('floor') && !row.label.startsWith('sequential') && !row.label.startsWith('HTTP')) {
				target(`list all: ${row.label} × floor`, row.cells['× floor'] as number, 1.1);
				target(`list all: ${row.label} 429s`, row.cells['429s'] as number, 0);
			}
		}
	} finally {
		await mcp.stop();
		await flows.unload();
	}
}

// -------------------------------------------------------------------------------------------------------------------

async function sends(sandbox: RunningSandbox, chatIds: number[]): Promise<void> {
	console.log(
		`\n[sends] ${SENDS} sends from ${SENDS} input items / msgs; the sequential loop sends ${SEQUENTIAL_SENDS} (time scaled ×${SENDS / SEQUENTIAL_SENDS})`,
	);
	const plan = (tag: string, count = SENDS): Send[] =>
		Array.from({ length: count }, (_, i) => ({ chatId: chatIds[i % chatIds.length]!, text: `bench ${tag} ${i}` }));
	const stored = (label: string, expected: number) => {
		let before = 0;
		return {
			mark: async () => {
				before = await creditsUsed(sandbox, TOKEN);
			},
			check: async () => {
				const count = (await creditsUsed(sandbox, TOKEN)) - before;
				check(count === expected, `${label}: ${count} messages stored, expected ${expected}`);
			},
		};
	};
	const flows = await NodeRedFlows.load(sandbox.url, TOKEN, [
		{ id: 'send', config: 'cfg', props: { resource: 'message', operation: 'sendToChat', payloadFields: true, fields: {} } },
	]);
	const { server: mcp } = await McpStdioServer.start(sandbox.url, TOKEN);
	await mcp.warmUp();
	try {
		const contestants: Array<Contestant<void> & { counter: ReturnType<typeof stored> }> = [];
		const add = (label: string, count: number, work: () => Promise<unknown>, outputs: (result: unknown) => number) => {
			const counter = stored(label, count);
			let produced = 0;
			contestants.push({
				label,
				counter,
				scale: SENDS / count,
				run: async () => {
					await counter.mark();
					produced = outputs(await work());
				},
				verify: () => check(produced === count, `${label}: ${produced} outputs for ${count} sends`),
			});
		};
		add(
			'floor (bare client at 30/s)',
			SENDS,
			() => floorSends(sandbox.url, TOKEN, plan('floor')),
			(r) => (r as unknown[]).length,
		);
		add(
			'n8n node (1,000 items)',
			SENDS,
			() => {
				const p = plan('n8n');
				return n8nExecute(
					sandbox.url,
					TOKEN,
					(i) => ({ resource: 'message', operation: 'sendToChat', chat_id: p[i]!.chatId, text: p[i]!.text }),
					SENDS,
				);
			},
			(r) => (r as Array<{ json: { message_uid?: string } }>).filter((item) => typeof item.json.message_uid === 'string').length,
		);
		add(
			'Node-RED node (1,000 msgs)',
			SENDS,
			() =>
				flows.run(
					'send',
					plan('nr').map((send) => ({ payload: { chat_id: send.chatId, text: send.text } })),
				),
			(r) => (r as Array<{ payload: { message_uid?: string } }>).filter((msg) => typeof msg.payload.message_uid === 'string').length,
		);
		add(
			'MCP server (1,000 tool calls)',
			SENDS,
			() => mcp.sendAll(plan('mcp')),
			(r) => r as number,
		);
		add(
			'sequential loop',
			SEQUENTIAL_SENDS,
			() => sequentialSends(sandbox.url, TOKEN, plan('seq', SEQUENTIAL_SENDS)).then(() => SEQUENTIAL_SENDS),
			(r) => r as number,
		);
		const measured: Measured[] = [];
		for (const contestant of contestants) {
			const [m] = await contest(sandbox, [contestant], 1);
			await contestant.counter.check();
			measured.push(m!);
		}
		const rows = rowsAgainst(measured, 'floor (bare client at 30/s)', 'sequential loop', (m) => ({
			'requests/s': SENDS / median(m.seconds),
		}));
		printTable(`${SENDS} sends (POST /chats/{id}/messages), ${LATENCY_MS} ms latency, ${SERVICE_RATE}/s burst ${SERVICE_BURST}`, rows, [
			`floor in theory (${SENDS} − ${SERVICE_BURST}) / ${SERVICE_RATE} + ${LATENCY_MS / 1000} = ${floorSeconds(SENDS).toFixed(1)} s; each contestant stored exactly its sends (sandbox credits)`,
		]);
		for (const row of rows) {
			record(`sends.${key(row.label)}.floor`, row.cells['× floor'] as number);
			record(`sends.${key(row.label)}.sequential`, row.cells['× sequential'] as number);
			if (row.label.startsWith('n8n') || row.label.startsWith('Node-RED') || row.label.startsWith('MCP')) {
				target(`sends: ${row.label} × floor`, row.cells['× floor'] as number, 1.12);
				target(`sends: ${row.label} 429s`, row.cells['429s'] as number, 0);
			}
		}
		record('sends.mcpServer.peakMb', memoryOf(mcp.pid).peakMb);
	} finally {
		await mcp.stop();
		await flows.unload();
	}
}

// -------------------------------------------------------------------------------------------------------------------

const SHARED_SENDS = 100;

/**
 * Two runs of one platform in this one process, on the same base URL and token, at once: one lists all chats, the other
 * sends SHARED_SENDS messages. Two n8n executions (one pacer: the n8n package's), then two Node-RED flows, each action
 * node with its own configuration node (one pacer: the Node-RED package's). Each pair: near the floor of the sum, no
 * 429. (Each package carries its own copy of the core, so an n8n and a Node-RED on one token never share a pace: that
 * takes the service's 429s, which the executor waits out.)
 */
async function sharedPace(sandbox: RunningSandbox, chatIds: number[], reference: number[]): Promise<void> {
	const pages = CHATS / PAGE_SIZE;
	const requests = pages + SHARED_SENDS;
	const floor = floorSeconds(requests);
	console.log(`\n[shared] per platform, 2 runs at once on one token: a list (${pages} requests) and ${SHARED_SENDS} sends`);
	const flows = await NodeRedFlows.load(sandbox.url, TOKEN, [
		{ id: 'flowA', config: 'cfgA', props: { resource: 'chat', operation: 'getAll', returnAll: true, outputMode: 'array' } },
		{ id: 'flowB', config: 'cfgB', props: { resource: 'message', operation: 'sendToChat', payloadFields: true, fields: {} } },
	]);
	const rows: Row[] = [];
	try {
		const sends = (tag: string) =>
			Array.from({ length: SHARED_SENDS }, (_, i) => ({ chatId: chatIds[i % chatIds.length]!, text: `shared ${tag} ${i}` }));
		const phases: Array<{ platform: string; list: () => Promise<number[]>; send: (tag: string) => Promise<number> }> = [
			{
				platform: 'n8n: 2 executions',
				list: async () =>
					(await n8nExecute(sandbox.url, TOKEN, () => ({ resource: 'chat', operation: 'getAll', returnAll: true }))).map((item) =>
						Number(item.json.id),
					),
				send: async (tag) => {
					const plan = sends(tag);
					const items = await n8nExecute(
						sandbox.url,
						TOKEN,
						(i) => ({ resource: 'message', operation: 'sendToChat', chat_id: plan[i]!.chatId, text: plan[i]!.text }),
						SHARED_SENDS,
					);
					return items.filter((item) => typeof item.json.message_uid === 'string').length;
				},
			},
			{
				platform: 'Node-RED: 2 flows',
				list: async () => ((await flows.run('flowA', [{ payload: {} }]))[0]!.payload as Array<{ id: number }>).map((chat) => chat.id),
				send: async (tag) =>
					(
						await flows.run(
							'flowB',
							sends(tag).map((send) => ({ payload: { chat_id: send.chatId, text: send.text } })),
						)
					).filter((msg) => typeof (msg.payload as { message_uid?: unknown }).message_uid === 'string').length,
			},
		];
		for (const phase of phases) {
			await refill();
			const before = await traffic(sandbox, TOKEN);
			const creditsBefore = await creditsUsed(sandbox, TOKEN);
			const finished: number[] = [];
			const started = performance.now();
			const timed = async <T>(work: Promise<T>) => {
				const result = await work;
				finished.push((performance.now() - started) / 1000);
				return result;
			};
			const [listed, sent] = await Promise.all([timed(phase.list()), timed(phase.send(phase.platform))]);
			const seconds = (performance.now() - started) / 1000;
			const after = await traffic(sandbox, TOKEN);
			sameIds(`shared ${phase.platform}: list`, listed, reference);
			check(sent === SHARED_SENDS, `shared ${phase.platform}: ${sent} sends answered of ${SHARED_SENDS}`);
			const stored = (await creditsUsed(sandbox, TOKEN)) - creditsBefore;
			check(stored === SHARED_SENDS, `shared ${phase.platform}: ${stored} messages stored, expected ${SHARED_SENDS}`);
			const rateLimited = after.rate_limited - before.rate_limited;
			console.log(`    ${phase.platform}: ${seconds.toFixed(2)} s, ${rateLimited} × 429`);
			rows.push({
				label: phase.platform,
				cells: {
					's (both done)': seconds,
					'× floor': seconds / floor,
					'requests/s': requests / seconds,
					'429s': rateLimited,
					'list / sends done at s': `${finished.map((s) => s.toFixed(1)).join(' / ')}`,
				},
			});
			const name = phase.platform.startsWith('n8n') ? 'n8n' : 'nodeRed';
			record(`shared.${name}.floor`, seconds / floor);
			target(`shared pace: ${phase.platform} × floor`, seconds / floor, 1.12);
			target(`shared pace: ${phase.platform} 429s`, rateLimited, 0);
		}
	} finally {
		await flows.unload();
	}
	printTable(`Shared pace: a list and ${SHARED_SENDS} sends at once in one process, one token (${requests} requests)`, rows, [
		`floor in theory (${requests} − ${SERVICE_BURST}) / ${SERVICE_RATE} + ${LATENCY_MS / 1000} = ${floor.toFixed(2)} s; each list complete and unchanged, each send stored once`,
	]);
}

// -------------------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
	const runStarted = performance.now();
	console.log(
		`Chat Messaging benchmarks (${new Date().toISOString()}, Node ${process.version}, ${(await import('os')).cpus().length} cores)`,
	);
	const needsRateLimitedSandbox = ['list', 'sends', 'shared', 'processes', 'mixed'].some(wanted);
	const sandbox = needsRateLimitedSandbox
		? await startSandbox({
				chats: CHATS,
				latencyMs: LATENCY_MS,
				rateLimit: SERVICE_RATE,
				tokens: [TOKEN],
				seed: 12,
				quota: 1_000_000,
				paceMs: 5,
				deliveredAfterMs: 0,
				readAfterMs: 0,
			})
		: undefined;
	let realN8n: RealN8n | undefined;
	try {
		if (sandbox && wanted('list')) realN8n = await startRealN8n(sandbox.url, TOKEN);
		if (sandbox && wanted('list')) await listAll(sandbox, realN8n);
		await realN8n?.stop();
		realN8n = undefined;
		if (sandbox && ['sends', 'shared', 'processes', 'mixed'].some(wanted)) {
			const reference = await sequentialList(sandbox.url, TOKEN);
			const chatIds = reference.slice(0, 200);
			if (wanted('sends')) await sends(sandbox, chatIds);
			if (wanted('shared')) {
				// Sends move their chat to the top of the list: sent into the chats of page 1 only, they reorder page 1 among
				// itself, and a list walked meanwhile still sees every chat once (into other chats, pages would shift under it).
				const current = await sequentialList(sandbox.url, TOKEN);
				await sharedPace(sandbox, current.slice(0, PAGE_SIZE), current);
			}
			if (wanted('processes')) await runProcesses(sandbox, TOKEN, chatIds);
			if (wanted('mixed')) await runMixed(sandbox, TOKEN, chatIds);
		}
		if (wanted('events')) await runEventIntake();
		if (wanted('overhead')) await runOverhead();
		if (wanted('growth')) await runGrowth();
		if (wanted('load')) await runColdLoad();
	} finally {
		await realN8n?.stop();
		await sandbox?.stop();
	}
	console.log('\nTargets');
	for (const t of targets) console.log(`  ${t.met ? 'met   ' : 'MISSED'}  ${t.name}: ${t.value} (target ≤ ${t.limit})`);
	console.log(`\nTotal ${((performance.now() - runStarted) / 1000).toFixed(0)} s`);
	console.log(JSON.stringify({ bench: 'chat-messaging', ratios, targets: Object.fromEntries(targets.map((t) => [t.name, t.met])) }));
}

// Ctrl-C ends the run through process.exit, so the exit handlers stop what it started (the real n8n).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

main().catch((error: unknown) => {
	console.error(error instanceof BenchError ? error.message : error);
	process.exit(1);
});
