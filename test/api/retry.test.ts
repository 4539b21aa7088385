/**
 * Retries: only what cannot duplicate an effect. Reads and idempotent writes retry 429, 5xx and
 * network failures; a creating POST retries only a 429 or a connection refused before sending.
 */
import { Executor, pacingKey, sharedBucket, TransportFailure } from '../../api';
import { fail, ok, scripted, virtualTiming, type Step } from '../support/scripted-transport';

const SEND = ['message:sendToPhone', { phone: '+4915112345678', text: 'hi' }] as const;
const READ = ['chat:get', { chat_id: 1 }] as const;
const PATCH = ['chat:close', { chat_id: 1 }] as const;

const e500 = fail(500, { status: 'error', message: 'Internal error', error_code: 'internal_error' });
const e502 = fail(502, '<html>Bad gateway</html>');
const e429 = (retryAfter?: string) =>
	fail(
		429,
		{ status: 'error', message: 'Too many requests', error_code: 'rate_limit_exceeded' },
		retryAfter ? { 'retry-after': retryAfter } : {},
	);
const refused = new TransportFailure('connect ECONNREFUSED', 'ECONNREFUSED', false);
const timedOut = new TransportFailure('timeout of 30000ms exceeded', 'ETIMEDOUT', true);
const reset = new TransportFailure('socket hang up', 'ECONNRESET', true);

function run(operation: readonly [string, Record<string, unknown>], ...steps: Step[]) {
	const script = scripted(...steps);
	const timing = virtualTiming();
	const executor = new Executor({ baseUrl: 'https://api.example.com', transport: script.transport, timing, rateLimit: false });
	const result = executor.run(operation[0], operation[1]);
	return { result, script, timing };
}

describe('retries', () => {
	it.each([
		['429', e429()],
		['500', e500],
		['502 (HTML)', e502],
		['timeout', timedOut],
		['reset', reset],
		['refused', refused],
	])('a read retries a %s and succeeds', async (_, first) => {
		const { result, script } = run(READ, first, ok({ id: 1 }));
		await expect(result).resolves.toEqual({ id: 1 });
		expect(script.requests).toHaveLength(2);
	});

	it('an idempotent PATCH retries a 500', async () => {
		const { result, script } = run(PATCH, e500, e500, ok({ id: 1, closed: true }));
		await expect(result).resolves.toMatchObject({ closed: true });
		expect(script.requests).toHaveLength(3);
	});

	it('a send answered 500 is not resent', async () => {
		const { result, script } = run(SEND, e500, ok({ message_uid: 'dup' }));
		await expect(result).rejects.toMatchObject({
			httpStatus: 500,
			errorCode: 'internal_error',
			message: 'Internal error. It may have taken effect: check before repeating it',
		});
		expect(script.requests).toHaveLength(1);
	});

	it('a send answered 502 is not resent', async () => {
		const { result, script } = run(SEND, e502, ok({ message_uid: 'dup' }));
		await expect(result).rejects.toMatchObject({ httpStatus: 502 });
		expect(script.requests).toHaveLength(1);
	});

	it.each([
		['timing out', timedOut],
		['reset after writing', reset],
	])('a send %s is not resent', async (_, failure) => {
		const { result, script } = run(SEND, failure, ok({ message_uid: 'dup' }));
		await expect(result).rejects.toMatchObject({
			kind: 'network',
			networkCode: failure.code,
			message: expect.stringMatching(/may have taken effect/),
		});
		expect(script.requests).toHaveLength(1);
	});

	it('a send answered 429 is retried after Retry-After', async () => {
		const { result, script, timing } = run(SEND, e429('3'), ok({ message_uid: 'm1' }));
		await expect(result).resolves.toEqual({ message_uid: 'm1' });
		expect(script.requests).toHaveLength(2);
		expect(timing.sleeps).toEqual([3300]); // Retry-After plus jitter (20 % at most; random 0.5 here)
	});

	it('a send whose connection was refused is retried', async () => {
		const { result, script } = run(SEND, refused, ok({ message_uid: 'm1' }));
		await expect(result).resolves.toEqual({ message_uid: 'm1' });
		expect(script.requests).toHaveLength(2);
	});

	it('honours Retry-After given as an HTTP date', async () => {
		const timing = virtualTiming();
		const script = scripted(e429(new Date(timing.now() + 5000).toUTCString()), ok({}));
		await new Executor({ baseUrl: 'https://x.io', transport: script.transport, timing, rateLimit: false }).run('workspace:get');
		expect(timing.sleeps[0]).toBeGreaterThan(4000);
		expect(timing.sleeps[0]).toBeLessThanOrEqual(6000);
	});

	it('backs off exponentially with jitter and gives up after maxAttempts', async () => {
		const timing = virtualTiming(1); // jitter at its ceiling, to read the exponential bound
		const script = scripted(e500);
		const executor = new Executor({
			baseUrl: 'https://x.io',
			transport: script.transport,
			timing,
			rateLimit: false,
			retry: { maxAttempts: 4, baseDelayMs: 100 },
		});
		await expect(executor.run('workspace:get')).rejects.toMatchObject({ httpStatus: 500 });
		expect(script.requests).toHaveLength(4);
		expect(timing.sleeps).toEqual([100, 200, 400]);
	});

	it('jitter spreads the delay below the bound', async () => {
		const timing = virtualTiming(0.25);
		const script = scripted(e500, e500, ok({}));
		await new Executor({
			baseUrl: 'https://x.io',
			transport: script.transport,
			timing,
			rateLimit: false,
			retry: { baseDelayMs: 1000 },
		}).run('workspace:get');
		expect(timing.sleeps).toEqual([250, 500]);
	});

	it('fails instead of stalling on a Retry-After beyond the cap', async () => {
		const { result, script } = run(READ, e429('3600'), ok({}));
		await expect(result).rejects.toMatchObject({ httpStatus: 429, errorCode: 'rate_limit_exceeded' });
		expect(script.requests).toHaveLength(1);
	});

	it('does not retry 4xx errors other than 429', async () => {
		const { result, script } = run(READ, fail(404, { status: 'error', message: 'Chat not found' }), ok({}));
		await expect(result).rejects.toMatchObject({ httpStatus: 404 });
		expect(script.requests).toHaveLength(1);
	});

	it.each(['note:add', 'file:uploadFromUrl', 'invitation:create', 'webhook:create'])(
		'%s (a create) is not resent after a 500',
		async (id) => {
			const inputs: Record<string, Record<string, unknown>> = {
				'note:add': { chat_id: 1, text: 'n' },
				'file:uploadFromUrl': { download_url: 'https://x.io/a.png' },
				'invitation:create': { email: 'a@b.io' },
				'webhook:create': { event_type: 'chat:created', url: 'https://x.io/h' },
			};
			const { result, script } = run([id, inputs[id]], e500, ok({}));
			await expect(result).rejects.toMatchObject({ httpStatus: 500 });
			expect(script.requests).toHaveLength(1);
		},
	);

	it('label replace (idempotent POST) is retried after a 500', async () => {
		const { result, script } = run(['label:replace', { chat_id: 1, labels: ['a'] }], e500, ok({ labels: ['a'] }));
		await expect(result).resolves.toBeDefined();
		expect(script.requests).toHaveLength(2);
	});

	it.each([
		[0, 3000],
		[1, 3600],
	])('429 waits carry jitter (random %d: %d ms), so clients refused together do not return together', async (random, wait) => {
		const timing = virtualTiming(random);
		const script = scripted(e429('3'), ok({}));
		await new Executor({ baseUrl: 'https://x.io', transport: script.transport, timing, rateLimit: false }).run('workspace:get');
		expect(timing.sleeps).toEqual([wait]);
	});

	it('429s do not use up the attempts real failures get', async () => {
		const { result, script } = run(SEND, e429('1'), e429('1'), e429('1'), e429('1'), e429('1'), e429('1'), ok({ message_uid: 'm1' }));
		await expect(result).resolves.toEqual({ message_uid: 'm1' });
		expect(script.requests).toHaveLength(7);
		const mixed = run(READ, e429('1'), e500, e429('1'), e500, e429('1'), e500, ok({ id: 1 }));
		await expect(mixed.result).resolves.toEqual({ id: 1 });
	});

	it('gives up on 429s once their waits would pass maxRateLimitWaitMs in total', async () => {
		const { result, script, timing } = run(READ, e429('50'));
		await expect(result).rejects.toMatchObject({ httpStatus: 429 });
		expect(timing.sleeps).toEqual([55_000, 55_000]); // a third wait would pass 120 s
		expect(script.requests).toHaveLength(3);
	});

	it.each([
		['a 500', e500],
		['a time-out', timedOut],
	])('a DELETE answered 404 after %s (it may have gone through) has done its work', async (_, first) => {
		const { result, script } = run(['webhook:delete', { id: 5 }], first, fail(404, { status: 'error', message: 'Webhook not found' }));
		await expect(result).resolves.toBeNull();
		expect(script.requests).toHaveLength(2);
	});

	it('a DELETE answered 404 at once is still an error (it never existed)', async () => {
		const { result } = run(['webhook:delete', { id: 5 }], fail(404, { status: 'error', message: 'Webhook not found' }));
		await expect(result).rejects.toMatchObject({ httpStatus: 404 });
	});
});

describe('pacing shared by the executors of one client', () => {
	it('a 429 to one executor holds back the others of the same token', async () => {
		const timing = virtualTiming();
		const key = pacingKey('https://x.io', `token-${Math.random()}`);
		const rateLimit = { perSecond: 1000, burst: 100 };
		const bucket = sharedBucket(key, rateLimit, timing);
		const pause = jest.spyOn(bucket, 'pause');
		const refusedOnce = scripted(e429('2'), ok({}));
		await new Executor({ baseUrl: 'https://x.io', transport: refusedOnce.transport, timing, rateLimit, pacingKey: key }).run(
			'workspace:get',
		);
		expect(pause).toHaveBeenCalledWith(2200);

		// While paused, another executor of the same client waits; one of another client does not.
		bucket.pause(2000);
		const sleepsBefore = timing.sleeps.length;
		await new Executor({ baseUrl: 'https://x.io', transport: scripted(ok({})).transport, timing, rateLimit, pacingKey: key }).run(
			'workspace:get',
		);
		expect(timing.sleeps.slice(sleepsBefore)).toEqual([2000]);
		bucket.pause(2000);
		const otherKey = pacingKey('https://x.io', `another-${Math.random()}`);
		await new Executor({ baseUrl: 'https://x.io', transport: scripted(ok({})).transport, timing, rateLimit, pacingKey: otherKey }).run(
			'workspace:get',
		);
		expect(timing.sleeps.slice(sleepsBefore)).toEqual([2000]);
	});

	it('keys by base URL and a hash of the token, never the token itself', () => {
		const key = pacingKey('https://x.io', 'secret-token-123');
		expect(key).toMatch(/^https:\/\/x\.io\|[0-9a-f]{32}$/);
		expect(key).not.toContain('secret-token-123');
	});
});
