/**
 * What every benchmark scenario shares: the service's allowance and the floor it sets, the contestants users would
 * write instead (a bare client at the allowance, a careful sequential keep-alive loop), the sandbox's own counters,
 * and the table and ratios the run prints. Timings are measured here and only reported: nothing is asserted on time;
 * what is asserted is that contestants produced the same data.
 */
import { SERVICE_RATE_LIMIT, type AdaptiveRate, type RateLimit } from '@chat-messaging/core';
import type { RunningSandbox } from '@chat-messaging/sandbox';

/** The service's allowance (spec): about 30 requests per second with a burst of 10. */
export const SERVICE_RATE = 30;
export const SERVICE_BURST = 10;
/** Round trip of a distant service, as the issue measures at. */
export const LATENCY_MS = 150;

/**
 * The pacing before a quiet process started again: a burst of 5 at half the rate once in a
 * process's life, the start ended by an ordinary cut. The shipped rules with these constants behave exactly so.
 */
export const GENTLE_START_ONCE: RateLimit = {
	...SERVICE_RATE_LIMIT,
	adaptive: {
		...(SERVICE_RATE_LIMIT.adaptive as AdaptiveRate),
		startBurst: 5,
		startShare: 0.5,
		startGrowth: 1,
		startCut: (SERVICE_RATE_LIMIT.adaptive as AdaptiveRate).decrease,
		restartAfterMs: Number.POSITIVE_INFINITY,
	},
};

/** The rule before the probe slowed with the crowd: the same start, settle 0.96, probe 0.05 for any crowd, every restart growing by 1. */
export const PROBE_ALIKE: RateLimit = {
	...SERVICE_RATE_LIMIT,
	adaptive: { ...(SERVICE_RATE_LIMIT.adaptive as AdaptiveRate), settle: 0.96, probe: 0.05, probeCrowding: 0, restartGrowth: 1 },
};

/** The least time `requests` can take at the allowance: a burst, then one per 1/30 s, plus the last answer's trip. */
export function floorSeconds(requests: number, latencyMs = LATENCY_MS): number {
	return Math.max(0, requests - SERVICE_BURST) / SERVICE_RATE + latencyMs / 1000;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** After a run, the service's bucket (and a client's) fill again before the next contestant starts: 10 / 30 s plus room. */
export const refill = () => sleep(600);

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	if (!sorted.length) return NaN;
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values: number[], p: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	if (!sorted.length) return NaN;
	return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export class BenchError extends Error {}

/** Contestants must agree on the data; a benchmark of wrong answers measures nothing. */
export function check(condition: unknown, message: string): asserts condition {
	if (!condition) throw new BenchError(`data check failed: ${message}`);
}

export function sameIds(label: string, actual: readonly number[], expected: readonly number[]): void {
	const a = [...actual].sort((x, y) => x - y);
	const b = [...expected].sort((x, y) => x - y);
	check(a.length === b.length, `${label}: ${a.length} chats, expected ${b.length}`);
	check(new Set(a).size === a.length, `${label}: a chat id came twice`);
	check(
		a.every((id, i) => id === b[i]),
		`${label}: other chat ids than the reference`,
	);
}

// ---------------------------------------------------------------------------------------------------------------
// The sandbox from the outside.

export interface Traffic {
	api_calls: number;
	rate_limited: number;
}

export async function control<T>(sandbox: RunningSandbox, token: string, method: string, path: string, body?: unknown): Promise<T> {
	const response = await fetch(`${sandbox.url}${path}`, {
		method,
		headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const parsed = (await response.json()) as { data: T };
	if (!response.ok) throw new Error(`${method} ${path} → ${response.status} ${JSON.stringify(parsed)}`);
	return parsed.data;
}

export const traffic = (sandbox: RunningSandbox, token: string) => control<Traffic>(sandbox, token, 'GET', '/_sandbox/traffic');

/** Messages stored so far (each costs one credit). */
export const creditsUsed = async (sandbox: RunningSandbox, token: string) =>
	(await control<{ quota: { used: number } }>(sandbox, token, 'GET', '/_sandbox/queue')).quota.used;

// ---------------------------------------------------------------------------------------------------------------
// Contestants without our code: a bare client at the allowance, and a careful sequential loop.

const headersOf = (token: string, json = false) => ({
	authorization: `Bearer ${token}`,
	accept: 'application/json',
	...(json ? { 'content-type': 'application/json' } : {}),
});

async function getJson(url: string, token: string): Promise<any> {
	const response = await fetch(url, { headers: headersOf(token) });
	const body = (await response.json()) as any;
	if (response.status !== 200) throw new Error(`GET ${url} → ${response.status} ${JSON.stringify(body).slice(0, 200)}`);
	return body.data;
}

async function postJson(url: string, token: string, payload: unknown): Promise<any> {
	const response = await fetch(url, { method: 'POST', headers: headersOf(token, true), body: JSON.stringify(payload) });
	const body = (await response.json()) as any;
	if (response.status !== 200) throw new Error(`POST ${url} → ${response.status} ${JSON.stringify(body).slice(0, 200)}`);
	return body.data;
}

/** Requests past the burst go this much after their slot: the burst's own arrivals spread over a few ms (new sockets). */
export const FLOOR_SLACK_MS = 15;

/**
 * Starts `count` jobs at the allowance: the first `SERVICE_BURST` at once, then one every 1/30 s (plus
 * FLOOR_SLACK_MS, once, not per request), each scheduled from the start, all in flight together. What no client can
 * beat. A job refused anyway (429) is asked again one slot later, and counted by the sandbox like anyone's.
 */
export async function atAllowance<T>(
	count: number,
	job: (index: number) => Promise<Response>,
	read: (response: Response) => Promise<T>,
): Promise<T[]> {
	const start = performance.now();
	const slot = 1000 / SERVICE_RATE;
	return Promise.all(
		Array.from({ length: count }, async (_, index) => {
			const due = index < SERVICE_BURST ? start : start + (index - SERVICE_BURST + 1) * slot + FLOOR_SLACK_MS;
			const wait = due - performance.now();
			if (wait > 0) await sleep(wait);
			for (;;) {
				const response = await job(index);
				if (response.status !== 429) return read(response);
				await response.arrayBuffer();
				await sleep(slot);
			}
		}),
	);
}

async function dataOf(response: Response): Promise<any> {
	const body = (await response.json()) as any;
	if (response.status !== 200) throw new Error(`${response.url} → ${response.status} ${JSON.stringify(body).slice(0, 200)}`);
	return body.data;
}

/** The floor of a listing: knowing the page count, every page asked at the allowance. */
export async function floorList(baseUrl: string, token: string, pages: number): Promise<number[]> {
	const answers = await atAllowance(pages, (index) => fetch(`${baseUrl}/chats?page=${index + 1}`, { headers: headersOf(token) }), dataOf);
	return answers.flatMap((data: { chats: Array<{ id: number }> }) => data.chats.map((chat) => chat.id));
}

/** What a careful user writes: one page after another over a keep-alive connection, until has_more_pages is false. */
export async function sequentialList(baseUrl: string, token: string): Promise<number[]> {
	const ids: number[] = [];
	for (let page = 1; ; page++) {
		const data = await getJson(`${baseUrl}/chats?page=${page}`, token);
		ids.push(...(data.chats as Array<{ id: number }>).map((chat) => chat.id));
		if (data.has_more_pages !== true || data.chats.length === 0) return ids;
	}
}

export interface Send {
	chatId: number;
	text: string;
}

export const floorSends = (baseUrl: string, token: string, sends: Send[]) =>
	atAllowance(
		sends.length,
		(index) =>
			fetch(`${baseUrl}/chats/${sends[index]!.chatId}/messages`, {
				method: 'POST',
				headers: headersOf(token, true),
				body: JSON.stringify({ text: sends[index]!.text }),
			}),
		dataOf,
	);

export async function sequentialSends(baseUrl: string, token: string, sends: Send[]): Promise<void> {
	for (const send of sends) await postJson(`${baseUrl}/chats/${send.chatId}/messages`, token, { text: send.text });
}

// ---------------------------------------------------------------------------------------------------------------
// Results: a readable table per scenario, every ratio into one JSON line at the end.

export interface Row {
	label: string;
	cells: Record<string, string | number>;
}

const fmt = (value: string | number) => (typeof value === 'number' ? (Number.isInteger(value) ? String(value) : value.toFixed(2)) : value);

export function printTable(title: string, rows: Row[], notes: string[] = []): void {
	console.log(`\n${title}`);
	for (const note of notes) console.log(`  ${note}`);
	const columns = [...new Set(rows.flatMap((row) => Object.keys(row.cells)))];
	const labelWidth = Math.max(10, ...rows.map((row) => row.label.length));
	const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => fmt(row.cells[column] ?? '').length)));
	console.log(`  ${''.padEnd(labelWidth)}  ${columns.map((column, i) => column.padStart(widths[i]!)).join('  ')}`);
	for (const row of rows) {
		console.log(
			`  ${row.label.padEnd(labelWidth)}  ${columns.map((column, i) => fmt(row.cells[column] ?? '').padStart(widths[i]!)).join('  ')}`,
		);
	}
}

/** Every ratio of the run, by `scenario.contestant.against`. */
export const ratios: Record<string, number> = {};
export const record = (key: string, value: number) => {
	ratios[key] = Math.round(value * 1000) / 1000;
};

/** The performance targets (docs/performance.md), checked at the end of the run and printed (met or missed), never thrown. */
export const targets: Array<{ name: string; value: number; limit: number; met: boolean }> = [];
export function target(name: string, value: number, limit: number): void {
	targets.push({ name, value: Math.round(value * 1000) / 1000, limit, met: value <= limit });
}
