/**
 * Pure overhead, on loopback without latency and without a rate limit: one GET /workspace through the executor, the
 * n8n node (one execution of one item) and the Node-RED node (one msg), against a bare fetch. Our contestants keep
 * their pacing (users cannot turn it off), so each sample is 9 calls in a row, inside the pacer's burst, and the bucket
 * refills between samples (untimed): what is measured is the code, not the pace. Samples interleaved; medians.
 * Also Return All over 5,000 chats with pacing off against a bare sequential loop: the walk's own cost.
 */
import axios from 'axios';
import { startSandbox } from '@chat-messaging/sandbox';
import { n8nExecute, NodeRedFlows, scriptExecutor } from './contestants';
import { check, median, printTable, record, sameIds, sequentialList, sleep, target, type Row } from './lib';

const CALLS_PER_SAMPLE = 9;
const SAMPLES = 15;
/** 10 tokens at 28/s plus the burst margin. */
const BUCKET_REFILL_MS = 420;
const TOKEN = 'overhead-token';

export async function runOverhead(): Promise<void> {
	console.log(`\n[overhead] 0 ms latency, no limit: ${SAMPLES} samples of ${CALLS_PER_SAMPLE} calls each, interleaved`);
	const sandbox = await startSandbox({ chats: 5_000, tokens: [TOKEN], seed: 12 });
	const flows = await NodeRedFlows.load(sandbox.url, TOKEN, [
		{ id: 'workspace', config: 'cfg', props: { resource: 'workspace', operation: 'get' } },
	]);
	try {
		const executor = scriptExecutor(sandbox.url, TOKEN);
		const contestants: Array<{ label: string; once: () => Promise<unknown> }> = [
			{
				label: 'bare fetch + JSON',
				once: async () =>
					((await (await fetch(`${sandbox.url}/workspace`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { data: unknown })
						.data,
			},
			{
				label: "bare axios (the nodes' HTTP client)",
				once: async () =>
					(await axios.get<{ data: unknown }>(`${sandbox.url}/workspace`, { headers: { authorization: `Bearer ${TOKEN}` } })).data.data,
			},
			{ label: 'executor.run', once: () => executor.run('workspace:get') },
			{
				label: 'n8n node (execute, 1 item)',
				once: async () => (await n8nExecute(sandbox.url, TOKEN, () => ({ resource: 'workspace', operation: 'get' })))[0]!.json,
			},
			{ label: 'Node-RED node (1 msg)', once: async () => (await flows.run('workspace', [{ payload: {} }]))[0]!.payload },
		];
		// The workspace record counts API calls; everything else must be the same from every contestant.
		const stable = (workspace: unknown) => JSON.stringify({ ...(workspace as Record<string, unknown>), api_calls_quota: undefined });
		const reference = stable(await contestants[0]!.once());
		for (const contestant of contestants) {
			const got = stable(await contestant.once());
			check(got === reference, `${contestant.label}: another workspace (${got} vs ${reference})`);
		}
		const perCall = contestants.map(() => [] as number[]);
		for (let sample = 0; sample < SAMPLES; sample++) {
			for (const [index, contestant] of contestants.entries()) {
				await sleep(BUCKET_REFILL_MS);
				const started = performance.now();
				for (let call = 0; call < CALLS_PER_SAMPLE; call++) await contestant.once();
				perCall[index]!.push((performance.now() - started) / CALLS_PER_SAMPLE);
			}
		}
		const bare = median(perCall[0]!);
		const bareAxios = median(perCall[1]!);
		const rows: Row[] = contestants.map((contestant, index) => ({
			label: contestant.label,
			cells: {
				'ms per call (median)': median(perCall[index]!),
				'× bare fetch': median(perCall[index]!) / bare,
				'× bare axios': median(perCall[index]!) / bareAxios,
			},
		}));

		// The list walk's own cost: 100 pages, pacing off, window 8, against one page after another.
		const unpaced = scriptExecutor(sandbox.url, TOKEN, { paced: false });
		const walk: number[] = [];
		const loop: number[] = [];
		const expected = await sequentialList(sandbox.url, TOKEN);
		for (let round = 0; round < 5; round++) {
			let started = performance.now();
			const ids = ((await unpaced.run('chat:getAll', {})) as Array<{ id: number }>).map((chat) => chat.id);
			walk.push(performance.now() - started);
			sameIds('unpaced executor', ids, expected);
			started = performance.now();
			await sequentialList(sandbox.url, TOKEN);
			loop.push(performance.now() - started);
		}
		rows.push({
			label: 'Return All 5,000, sequential fetch loop',
			cells: { 'ms per call (median)': median(loop) / 100, '× bare fetch': 1 },
		});
		rows.push({
			label: 'Return All 5,000, executor unpaced',
			cells: { 'ms per call (median)': median(walk) / 100, '× bare fetch': median(walk) / median(loop) },
		});
		printTable('Overhead at 0 ms, no rate limit (GET /workspace; Return All per page)', rows, [
			`the n8n node runs in the test suite's n8n context (axios, as n8n sends); the Node-RED node in a real Node-RED runtime`,
		]);
		record('overhead.bareAxios.bareFetch', rows[1]!.cells['× bare fetch'] as number);
		record('overhead.executor.bareFetch', rows[2]!.cells['× bare fetch'] as number);
		record('overhead.n8nNode.bareFetch', rows[3]!.cells['× bare fetch'] as number);
		record('overhead.n8nNode.bareAxios', rows[3]!.cells['× bare axios'] as number);
		record('overhead.nodeRedNode.bareFetch', rows[4]!.cells['× bare fetch'] as number);
		record('overhead.nodeRedNode.bareAxios', rows[4]!.cells['× bare axios'] as number);
		record('overhead.returnAllUnpaced.sequentialLoop', rows[6]!.cells['× bare fetch'] as number);
		for (const row of rows.slice(2, 5)) target(`overhead at 0 ms: ${row.label} × bare fetch`, row.cells['× bare fetch'] as number, 1.1);
	} finally {
		await flows.unload();
		await sandbox.stop();
	}
}
