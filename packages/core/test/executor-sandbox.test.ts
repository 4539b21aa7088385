/**
 * The executor against the sandbox over real HTTP: the catalogue and the sandbox were written from
 * the spec independently, so every operation succeeding here checks both, and every request and answer
 * is checked against the OpenAPI document generated from the catalogue. Also the rules a scripted
 * transport cannot prove end to end: faults never duplicate a send, pagination equals a sequential walk.
 */
import { ChatMessagingError, Executor, OPERATIONS, operationId, pacingKey, type DownloadedFile } from '../src';
import { startSandbox } from '@chat-messaging/sandbox';
import { sandboxClient } from '../../../test/support/harness';
import { fetchTransport, realTiming } from '../../../test/support/fetch-transport';
import { checkedTransport } from '../../../test/support/openapi-check';
import { operationInputs } from '../../../test/support/operation-inputs';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;
const FAST = { paceMs: 20, deliveredAfterMs: 40, readAfterMs: 80, webhookRetryMs: 20, seed: 11 };

/** Every request these tests make, and every answer, is checked against the generated OpenAPI document. */
const openApiFindings: string[] = [];
afterAll(() => expect([...new Set(openApiFindings)]).toEqual([]));

function executorFor(sandbox: Sandbox, extra: Partial<ConstructorParameters<typeof Executor>[0]> = {}) {
	return new Executor({
		baseUrl: `${sandbox.url}/`,
		timing: realTiming,
		token: sandbox.tokens[0],
		retry: { baseDelayMs: 20 },
		...extra,
		transport: checkedTransport(extra.transport ?? fetchTransport, openApiFindings),
	});
}

/** The control API (`/_sandbox<path>`) as the sandbox's first workspace: `data` of the answer, whatever its status. */
async function control(sandbox: Sandbox, method: string, path: string, body?: unknown) {
	return (await sandboxClient(sandbox.url, sandbox.tokens[0]!).call(method, `/_sandbox${path}`, body)).body.data;
}

describe('executor against the sandbox', () => {
	let sandbox: Sandbox;
	let executor: Executor;
	beforeAll(async () => {
		sandbox = await startSandbox({ ...FAST, chats: 130, tokens: ['exec-token'] });
		executor = executorFor(sandbox);
	});
	afterAll(() => sandbox.stop());

	it('runs every operation of the catalogue successfully', async () => {
		const chats = (await executor.run('chat:getAll', { group: false })) as Array<Record<string, any>>;
		const chat = chats[0];
		const [teammate] = (await executor.run('teammate:getAll')) as Array<{ email: string }>;
		const [account] = (await executor.run('account:getAll')) as Array<{ id: string }>;
		const sent = (await executor.run('message:sendToChat', { chat_id: chat.id, text: 'catalogue check' })) as { message_uid: string };
		const upload = (await executor.run('file:upload', {
			file: { data: new TextEncoder().encode('hello'), filename: 'hello.txt', mimeType: 'text/plain' },
		})) as { uid: string };
		const invitation = (await executor.run('invitation:create', { email: 'newbie@example.com', role: 'Agent' })) as { user_id: string };
		const webhook = (await executor.run('webhook:create', {
			event_type: 'chat:created',
			url: 'http://127.0.0.1:9/hook',
			enabled: false,
		})) as { id: number };
		const inputs: Record<string, Record<string, unknown>> = {
			...operationInputs({
				chat: { id: chat.id, jid: chat.jid },
				teammateEmail: teammate.email,
				sentMessageUid: sent.message_uid,
				uploadUid: upload.uid,
				invitationUserId: invitation.user_id,
				webhookId: webhook.id,
				fileData: (bytes) => bytes,
			}),
			// Labels as the n8n and Node-RED fields send them: one comma-separated text.
			'label:add': { chat_id: chat.id, labels: 'alpha,beta' },
			'label:remove': { chat_id: chat.id, labels: 'alpha' },
		};
		expect(OPERATIONS.map(operationId).filter((id) => !(id in inputs))).toEqual([]);
		const failures: string[] = [];
		for (const op of OPERATIONS) {
			const id = operationId(op);
			try {
				const result = await executor.run(id, inputs[id]);
				if (result === undefined) failures.push(`${id}: no result`);
			} catch (error) {
				failures.push(`${id}: ${(error as Error).message}`);
			}
		}
		expect(failures).toEqual([]);
		expect(account.id).toMatch(/@/);
		// The state the friendly operations left behind.
		// Remove All ran after Replace All (catalogue order), then Remove on the empty set.
		expect(await executor.run('label:get', { chat_id: chat.id })).toEqual([]);
		await executor.run('label:replace', { chat_id: chat.id, labels: ['alpha', 'gamma'] });
		await executor.run('label:remove', { chat_id: chat.id, labels: 'alpha' });
		expect(await executor.run('label:get', { chat_id: chat.id })).toEqual(['gamma']);
		await executor.run('label:remove', { chat_id: chat.id, labels: 'gamma' });
		expect(await executor.run('label:get', { chat_id: chat.id })).toEqual([]);
		const after = (await executor.run('chat:get', { chat_id: chat.id })) as Record<string, unknown>;
		expect(after).toMatchObject({
			name: `Renamed ${chat.id}`,
			closed: false,
			read: false,
			responsible_email: null,
			ai_autoresponse_enabled: true,
		});
	});

	it('downloads a file byte-equal through its temporary URL, and an expired link is an error', async () => {
		const bytes = Uint8Array.from({ length: 70_000 }, (_, index) => (index * 131) % 256);
		const upload = (await executor.run('file:upload', { file: { data: bytes, filename: 'scan.pdf', mimeType: 'application/pdf' } })) as {
			uid: string;
			temporary_download_url: string;
		};
		const file = (await executor.run('file:download', { uid: upload.uid })) as DownloadedFile;
		expect(Buffer.from(file.data).equals(Buffer.from(bytes))).toBe(true);
		expect(file).toMatchObject({ filename: 'scan.pdf', mimeType: 'application/pdf', file: { uid: upload.uid } });

		const expired = new URL(upload.temporary_download_url);
		expired.searchParams.set('expires', '1000');
		await expect(executor.download(expired.href)).rejects.toMatchObject({ kind: 'service', httpStatus: 403 });
	});

	it('sends with a binary attachment (upload, then file_uid) and waits for delivery', async () => {
		const bytes = new Uint8Array(2048).map((_, i) => i % 251);
		const sent = await executor.sendMessage(
			'message:sendToPhone',
			{ phone: '4915100000002', text: 'see attached' },
			{ binary: { data: bytes, filename: 'report.pdf', mimeType: 'application/pdf' } },
		);
		expect(sent.file).toMatchObject({ filename: 'report.pdf', size: 2048 });
		const message = await executor.waitForStatus(String(sent.message_uid), 'delivered', { timeoutMs: 5000, intervalMs: 100 });
		expect(['delivered', 'read']).toContain(message.status);
		expect(message).toMatchObject({ has_attachment: true, attachment_filename: 'report.pdf' });
	});

	it('reports a failed message and a time-out while waiting', async () => {
		const slow = await startSandbox({ ...FAST, paceMs: 20, deliveredAfterMs: 0, readAfterMs: 0, tokens: ['wait-token'] });
		try {
			const e = executorFor(slow);
			const { message_uid: uid } = (await e.run('message:sendToPhone', { phone: '4915100000003', text: 'x' })) as { message_uid: string };
			await expect(e.waitForStatus(uid, 'read', { timeoutMs: 400, intervalMs: 100 })).rejects.toMatchObject({ kind: 'timeout' });
			const failedUid = ((await e.run('message:sendToPhone', { phone: '4915100000004', text: 'y' })) as { message_uid: string })
				.message_uid;
			await control(slow, 'POST', `/messages/${failedUid}/status`, { status: 'failed' });
			await expect(e.waitForStatus(failedUid, 'delivered', { timeoutMs: 2000, intervalMs: 100 })).rejects.toMatchObject({
				errorCode: 'message_failed',
			});
		} finally {
			await slow.stop();
		}
	});

	it('maps the sandbox errors: phone format, bad token, unknown chat, missing member', async () => {
		await expect(executor.run('chat:get', { chat_id: 999999 })).rejects.toMatchObject({ kind: 'service', httpStatus: 404 });
		const [chat] = (await executor.run('chat:getAll', {}, { returnAll: false, limit: 1 })) as Array<{ id: number }>;
		await expect(executor.run('chat:assign', { chat_id: chat.id, responsible: 'nobody@example.com' })).rejects.toMatchObject({
			errorCode: 'member_not_found',
		});
		const badToken = executorFor(sandbox, { token: 'wrong' });
		await expect(badToken.run('workspace:get')).rejects.toMatchObject({ httpStatus: 401, errorCode: 'invalid_token' });
		// The sandbox checks the phone rule itself: bypass the client's check with a direct call.
		const response = await fetch(`${sandbox.url}/messages`, {
			method: 'POST',
			headers: { authorization: 'Bearer exec-token', 'content-type': 'application/json' },
			body: JSON.stringify({ phone: '+49 151 000', text: 'x' }),
		});
		expect(((await response.json()) as { message: string }).message).toBe('Invalid phone number format');
	});

	it('a record the service does not find is named by the id the call gave, its details kept', async () => {
		const error = await executor.run('chat:get', { chat_id: 999999 }).catch((caught: unknown) => caught);
		expect(error).toBeInstanceOf(ChatMessagingError);
		expect((error as ChatMessagingError).message).toBe('chat_id 999999: not found (Chat not found)');
		expect((error as ChatMessagingError).toJSON()).toEqual({
			message: 'chat_id 999999: not found (Chat not found)',
			kind: 'service',
			httpStatus: 404,
			operation: 'chat:get',
		});
		await expect(executor.run('message:get', { message_uid: 'no-such-uid' })).rejects.toThrow(
			/^message_uid no-such-uid: not found \(.+\)$/,
		);
		await expect(executor.run('webhook:delete', { id: 424242 })).rejects.toThrow(/^id 424242: not found \(.+\)$/);
		await expect(executor.run('label:add', { chat_id: 999998, labels: 'x' })).rejects.toThrow(/^chat_id 999998: not found/);
		// A 404 about something else keeps the service's words: the member, not the chat, is missing.
		const [chat] = (await executor.run('chat:getAll', {}, { returnAll: false, limit: 1 })) as Array<{ id: number }>;
		await expect(executor.run('chat:assign', { chat_id: chat.id, responsible: 'nobody@example.com' })).rejects.toThrow(/^(?!chat_id)/);
	});

	it('the token never appears in an error', async () => {
		const error = (await executorFor(sandbox, { token: 'super-secret-token-value' })
			.run('workspace:get')
			.catch((e: unknown) => e)) as ChatMessagingError;
		expect(JSON.stringify(error.toJSON()) + error.message + String(error.stack)).not.toContain('super-secret-token-value');
	});
});

/** The spec allows a list page holding nothing to be answered 404: every list test runs both ways. */
describe.each([
	['empty pages answered 200', {}],
	['empty pages answered 404 (--empty-list-404)', { emptyList404: true }],
])('pagination against the sandbox, %s', (_, variant) => {
	let sandbox: Sandbox;
	/** An executor recording the query of every page it asks for, in its own list (stragglers of others stay out). */
	const recording = (extra: Partial<ConstructorParameters<typeof Executor>[0]> = {}) => {
		const pages: string[] = [];
		const executor = executorFor(sandbox, {
			transport: async (request) => {
				pages.push(new URL(request.url).search);
				return fetchTransport(request);
			},
			...extra,
		});
		return Object.assign(executor, { pages });
	};
	beforeAll(async () => {
		sandbox = await startSandbox({ ...FAST, chats: 130, tokens: ['pages-token'], ...variant });
	});
	afterAll(() => sandbox.stop());

	it.each([1, 4, 8])(
		'walks all 130 chats in sequential order with a window of %d, asking at most window - 1 pages past the end',
		async (window) => {
			const sequential = (await recording({ pageConcurrency: 1 }).run('chat:getAll', {})) as Array<{ id: number }>;
			const windowed = recording({ pageConcurrency: window });
			const walked = (await windowed.run('chat:getAll', {})) as Array<{ id: number }>;
			expect(sequential).toHaveLength(130);
			expect(walked.map((chat) => chat.id)).toEqual(sequential.map((chat) => chat.id));
			expect(windowed.pages.length - 3).toBeLessThanOrEqual(window - 1);
		},
	);

	it('honours a limit, asking only the pages it needs', async () => {
		const all = (await recording().run('chat:getAll', {})) as Array<{ id: number }>;
		const limiting = recording();
		const limited = (await limiting.run('chat:getAll', {}, { returnAll: false, limit: 57 })) as Array<{ id: number }>;
		expect(limited.map((chat) => chat.id)).toEqual(all.slice(0, 57).map((chat) => chat.id));
		expect(limiting.pages).toHaveLength(2);
	});

	it("a filter that matches nothing gives 0 items for chats, files and a chat's messages", async () => {
		const executor = recording();
		expect(await executor.run('chat:getAll', { name: 'no chat is called this' })).toEqual([]);
		expect(await executor.run('file:getAll', { filename: 'no-such-file' })).toEqual([]);
		const [chat] = (await executor.run('chat:getAll', {}, { returnAll: false, limit: 1 })) as Array<{ id: number }>;
		expect(await executor.run('message:getAll', { chat_id: chat.id, after: '2099-01-01' })).toEqual([]);
	});

	it('the messages of a chat that does not exist fail, naming chat_id', async () => {
		await expect(recording().run('message:getAll', { chat_id: 999999 })).rejects.toMatchObject({ httpStatus: 404, field: 'chat_id' });
	});
});

describe('executor under faults', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ ...FAST, chats: 60, faultRate: 0.3, tokens: ['fault-token'], seed: 5 });
	});
	afterAll(() => sandbox.stop());

	it('never sends a message twice, and loses no successful send', async () => {
		const executor = executorFor(sandbox, { retry: { baseDelayMs: 10, maxAttempts: 6 }, timeoutMs: 2000 });
		const outcomes = await Promise.all(
			Array.from({ length: 40 }, (_, i) =>
				executor.run('message:sendToPhone', { phone: '4915100000099', text: `fault-check ${i}` }).then(
					(data) => ({ i, uid: (data as { message_uid: string }).message_uid }),
					(error: ChatMessagingError) => ({ i, error }),
				),
			),
		);
		const chats = (await executorFor(sandbox, { retry: { maxAttempts: 10, baseDelayMs: 10 } }).run('chat:getAll', {
			phone: '+4915100000099',
		})) as Array<{ id: number }>;
		expect(chats).toHaveLength(1);
		const history = (await executorFor(sandbox, { retry: { maxAttempts: 10, baseDelayMs: 10 } }).run('message:getAll', {
			chat_id: chats[0].id,
		})) as Array<{ text: string; uid: string }>;
		const counts = new Map<string, number>();
		for (const message of history) counts.set(message.text, (counts.get(message.text) ?? 0) + 1);
		// No duplicate: every text at most once.
		expect([...counts.values()].every((n) => n === 1)).toBe(true);
		// Nothing lost: every send the executor reported as done is in the history.
		for (const outcome of outcomes) if ('uid' in outcome) expect(history.map((m) => m.uid)).toContain(outcome.uid);
		const failed = outcomes.filter((o) => 'error' in o);
		// Faults do happen at this rate, and some sends still succeed through retries of 429s.
		expect(outcomes.length - failed.length).toBeGreaterThan(0);
		for (const outcome of failed) expect((outcome as { error: ChatMessagingError }).error).toBeInstanceOf(ChatMessagingError);
	});

	it('reads recover through retries: a full list despite 30% faults', async () => {
		const executor = executorFor(sandbox, { retry: { baseDelayMs: 10, maxAttempts: 8 }, timeoutMs: 2000 });
		const chats = (await executor.run('chat:getAll', {})) as unknown[];
		expect(chats.length).toBeGreaterThanOrEqual(60);
	});
});

describe('executor pacing against the sandbox rate limit', () => {
	// A 429 fails the call at once here (no waiting it out), so every 429 the sandbox answers shows.
	const NO_429_WAIT = { maxAttempts: 1, maxRateLimitWaitMs: 0 };
	/** The service's allowance: 30 requests a second with a burst of 10. */
	const RATE = 30;
	const BURST = 10;
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ ...FAST, chats: 5, rateLimit: RATE, tokens: ['rate-token'] });
	});
	afterAll(() => sandbox.stop());
	/** Executors whose transport notes when each request leaves (one list for all of them: they share the service). */
	const sending = () => {
		const sentAt: number[] = [];
		const transport: typeof fetchTransport = (request) => {
			sentAt.push(performance.now());
			return fetchTransport(request);
		};
		return {
			sentAt,
			make: (extra: Partial<ConstructorParameters<typeof Executor>[0]> = {}) => executorFor(sandbox, { transport, ...extra }),
		};
	};
	/**
	 * Requests beyond the allowance in the busiest window of the sent stream: for every pair of sends, more
	 * than BURST + RATE x (time between them) requests from first to last. 0 for a client that paces right.
	 * Measured where requests leave, so it is exact; the sandbox sees them after a loaded machine's
	 * scheduling, which can bunch them (its 429s are waited out below, never counted as lost calls).
	 */
	const overAllowance = (sentAt: number[]) => {
		const times = [...sentAt].sort((a, b) => a - b);
		let worst = 0;
		for (let first = 0; first < times.length; first++)
			for (let last = first; last < times.length; last++)
				worst = Math.max(worst, last - first + 1 - Math.floor(BURST + (RATE * (times[last] - times[first])) / 1000));
		return worst;
	};
	const burst = (executors: Executor[], perExecutor: number) =>
		Promise.allSettled(executors.flatMap((executor) => Array.from({ length: perExecutor }, () => executor.run('workspace:get'))));
	const refused = (results: PromiseSettledResult<unknown>[]) =>
		results.filter((r) => r.status === 'rejected' && (r.reason as ChatMessagingError).errorCode === 'rate_limit_exceeded').length;
	const failed = (results: PromiseSettledResult<unknown>[]) => results.filter((r) => r.status === 'rejected');
	const pause = () => new Promise((resolve) => setTimeout(resolve, 1100)); // let the sandbox's bucket refill

	it('sends within 30 requests per second (burst 10), and every call succeeds against a sandbox limiting to that', async () => {
		const paced = sending();
		expect(failed(await burst([paced.make()], 45))).toEqual([]);
		expect(paced.sentAt.length).toBeGreaterThanOrEqual(45); // a 429 waited out adds a send
		expect(overAllowance(paced.sentAt)).toBe(0);
		await pause();
		// Without pacing the same burst goes over the allowance and is refused in part: the sandbox really limits.
		const unpaced = sending();
		expect(refused(await burst([unpaced.make({ retry: NO_429_WAIT, rateLimit: false })], 45))).toBeGreaterThan(0);
		expect(overAllowance(unpaced.sentAt)).toBeGreaterThan(0);
	});

	it.each([
		[2, 60],
		[4, 30],
		[60, 2],
	])(
		'%d executors of one token (n8n executions, Node-RED config nodes) share one pacer: within the allowance over %d calls each',
		async (executors, calls) => {
			await pause();
			const key = pacingKey(sandbox.url, 'rate-token');
			const paced = sending();
			const shared = Array.from({ length: executors }, () => paced.make({ pacingKey: key }));
			expect(failed(await burst(shared, calls))).toEqual([]);
			expect(overAllowance(paced.sentAt)).toBe(0);
		},
	);

	it('pacing on their own, four executors of one token go over the allowance and are refused in part (what sharing prevents)', async () => {
		await pause();
		const separate = sending();
		const executors = Array.from({ length: 4 }, () => separate.make({ retry: NO_429_WAIT }));
		expect(refused(await burst(executors, 15))).toBeGreaterThan(0);
		expect(overAllowance(separate.sentAt)).toBeGreaterThan(0);
	});
});
