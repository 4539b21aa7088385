/**
 * A long wait (Send and Wait for Reply, a send waiting for a status) reports how it goes while it waits and
 * stops when its caller cancels it: the hook an MCP server turns into progress notifications and its
 * request's abort signal. Against the sandbox over real HTTP, on virtual time (an hour's wait in no time).
 */
import { Executor, runSendAndWaitForReply, WAIT_REPORT_EVERY_MS, type ChatMessagingError, type WaitProgress } from '../src';
import { startSandbox } from '@chat-messaging/sandbox';
import { fetchTransport } from '../../../test/support/fetch-transport';
import { virtualTiming } from '../../../test/support/scripted-transport';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

const TOKEN = 'waiting-token';
let sandbox: Sandbox;
let chatId: number;

beforeAll(async () => {
	// Statuses move on real time, which virtual time never lets pass: a status wait here waits to the end.
	sandbox = await startSandbox({ tokens: [TOKEN], chats: 3, seed: 5, paceMs: 0, deliveredAfterMs: 600_000, readAfterMs: 600_000 });
	const chats = (await fetch(`${sandbox.url}/chats`, { headers: { authorization: `Bearer ${TOKEN}` } }).then((r) => r.json())) as {
		data: { chats: Array<{ id: number }> };
	};
	chatId = chats.data.chats[0]!.id;
});

afterAll(async () => {
	await sandbox.stop();
});

/** An executor on virtual time, counting the requests it sends. */
function counted() {
	const timing = virtualTiming();
	const requests: string[] = [];
	const executor = new Executor({
		baseUrl: sandbox.url,
		token: TOKEN,
		timing,
		transport: (request) => {
			requests.push(`${request.method} ${new URL(request.url).pathname}`);
			return fetchTransport(request);
		},
	});
	return { executor, timing, requests };
}

const creditsUsed = async () =>
	((await fetch(`${sandbox.url}/_sandbox/queue`, { headers: { authorization: `Bearer ${TOKEN}` } }).then((r) => r.json())) as any).data
		.quota.used as number;

/** The longest time between two reports, from the start of the wait to its end. */
const longestSilence = (reports: WaitProgress[], endMs: number) =>
	Math.max(...[0, ...reports.map((report) => report.elapsedMs), endMs].slice(1).map((at, index, all) => at - ([0, ...all][index] ?? 0)));

describe('Send and Wait for Reply reports its wait', () => {
	it('after every look and at least every reportEveryMs of a long pause, with the time waited and the looks so far', async () => {
		const { executor, timing } = counted();
		const reports: WaitProgress[] = [];
		const result = await runSendAndWaitForReply(
			executor,
			{ sendTo: 'chat', chat_id: chatId, text: 'Any questions?', replyTimeout: 150, pollInterval: 60 },
			{ onProgress: (progress) => reports.push(progress) },
		);
		expect(result).toMatchObject({ replied: false, timed_out: true });
		// Looks at 0, 60 and 120 s, then the last at 150 s ends the wait; reports every 10 s in between.
		expect(reports.map((report) => report.elapsedMs)).toEqual(Array.from({ length: 15 }, (_, index) => index * 10_000));
		expect(reports.map((report) => report.looks)).toEqual([...Array(6).fill(1), ...Array(6).fill(2), ...Array(3).fill(3)]);
		expect(reports.every((report) => report.awaiting === 'reply' && report.message_uid === result.message_uid)).toBe(true);
		expect(reports.every((report) => report.timeoutMs === 150_000)).toBe(true);
		expect(longestSilence(reports, Number(result.waited_ms))).toBeLessThanOrEqual(WAIT_REPORT_EVERY_MS);
		expect(timing.sleeps.every((ms) => ms <= WAIT_REPORT_EVERY_MS)).toBe(true);
	});

	it('sleeps each pause in one piece when nobody listens', async () => {
		const { executor, timing } = counted();
		await runSendAndWaitForReply(executor, { sendTo: 'chat', chat_id: chatId, text: 'Still there?', replyTimeout: 150, pollInterval: 60 });
		expect(timing.sleeps.filter((ms) => ms >= 1000)).toEqual([60_000, 60_000, 30_000]);
	});

	it('stops at the next part of a pause once cancelled, with no further request', async () => {
		const { executor, requests } = counted();
		let cancelled = false;
		const reports: WaitProgress[] = [];
		const result = await runSendAndWaitForReply(
			executor,
			{ sendTo: 'chat', chat_id: chatId, text: 'Shall we?', replyTimeout: 3600, pollInterval: 60 },
			{
				onProgress: (progress) => {
					reports.push(progress);
					if (progress.elapsedMs >= 20_000) cancelled = true;
				},
				cancelled: () => cancelled,
			},
		);
		expect(result).toMatchObject({ cancelled: true, replied: false });
		expect(reports.map((report) => report.elapsedMs)).toEqual([0, 10_000, 20_000]);
		// The send, then one look (its chat read by the send's answer or not): nothing after the cancel.
		expect(requests.filter((request) => request.startsWith('POST'))).toHaveLength(1);
		expect(requests.filter((request) => request.endsWith('/messages') && request.startsWith('GET'))).toHaveLength(1);
	});

	it('cancelled before its send, sends nothing', async () => {
		const { executor, requests } = counted();
		const before = await creditsUsed();
		const error = (await runSendAndWaitForReply(
			executor,
			{ sendTo: 'chat', chat_id: chatId, text: 'never sent' },
			{ cancelled: () => true },
		).catch((caught: unknown) => caught)) as ChatMessagingError;
		expect(error).toMatchObject({ errorCode: 'wait_cancelled', mayHaveTakenEffect: false });
		expect(error.message).toMatch(/nothing was sent/);
		expect(requests).toEqual([]);
		expect(await creditsUsed()).toBe(before);
	});
});

describe('a send waiting for a status reports its wait', () => {
	it('through the Send composite: reports between looks, ends at its time-out', async () => {
		const { executor } = counted();
		const reports: WaitProgress[] = [];
		const error = (await executor
			.run(
				'message:send',
				{ sendTo: 'chat', chat_id: chatId, text: 'Delivered yet?', waitForStatus: 'delivered', waitTimeout: 45 },
				{ onProgress: (progress) => reports.push(progress), reportEveryMs: 5000 },
			)
			.catch((caught: unknown) => caught)) as ChatMessagingError;
		expect(error.kind).toBe('timeout');
		expect(reports.length).toBeGreaterThan(1);
		expect(reports.every((report) => report.awaiting === 'delivered')).toBe(true);
		expect(longestSilence(reports, 45_000)).toBeLessThanOrEqual(5000);
		expect(reports.map((report) => report.looks)).toEqual([...reports.map((report) => report.looks)].sort((a, b) => a - b));
	});

	it('stops once cancelled: an error saying the message was sent', async () => {
		const { executor, requests } = counted();
		let cancelled = false;
		const error = (await executor
			.run(
				'message:send',
				{ sendTo: 'chat', chat_id: chatId, text: 'Read yet?', waitForStatus: 'read', waitTimeout: 3600 },
				{ onProgress: () => (cancelled = true), cancelled: () => cancelled },
			)
			.catch((caught: unknown) => caught)) as ChatMessagingError;
		expect(error).toMatchObject({ kind: 'timeout', errorCode: 'wait_cancelled' });
		expect(error.message).toMatch(/the message was sent/);
		expect(requests.filter((request) => request.startsWith('GET /messages/'))).toHaveLength(1);
	});
});
