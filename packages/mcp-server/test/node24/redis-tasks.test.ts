/**
 * The task store replicas share on Redis (src/store/redisTasks.ts), on a real redis-server: two stores, each with its
 * own connections as two processes have, stand for two replicas. A task started on one is read, listed and cancelled
 * on the other, its work stops where it runs, and its result is read anywhere; a task whose runner died becomes failed
 * instead of staying "working"; a finish and a cancel at once cannot both win. The in-memory store's promises
 * (callers.test.ts) hold here too.
 */
import { randomBytes } from 'node:crypto';

import { isTerminal } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { createClient } from 'redis';

import { RUNNER_LOST_MESSAGE } from '../../src/calls/tasks';
import { TERMINAL_STATUSES, type TaskStatus, type TaskStore } from '../../src/calls/taskStore';
import { RedisStore } from '../../src/store/redis';
import { SecretBox } from '../../src/store/secretBox';
import { startRedis, type RunningRedis } from '../../../../test/support/redis';

const RESULT = { content: [{ type: 'text' as const, text: '{"sent":true}' }], structuredContent: { sent: true } };
const PREFIX = 'chat-messaging-mcp:';
/** The key every replica is given (CHAT_MESSAGING_MCP_SECRET_KEY). */
const SECRETS = new SecretBox([randomBytes(32)]);

let redis: RunningRedis;
const opened: RedisStore[] = [];

/** A replica's store: its own connections; a short lease where a test waits for one to lapse. */
async function replica(lease: { heartbeatMs: number; leaseMs: number } = { heartbeatMs: 100, leaseMs: 400 }) {
	const store = await RedisStore.open(redis.url);
	opened.push(store);
	return { store, tasks: await store.taskStore({ ...lease, secrets: SECRETS }) };
}

const until = async (what: () => Promise<boolean> | boolean, ms = 3000): Promise<boolean> => {
	const end = Date.now() + ms;
	while (Date.now() < end) {
		if (await what()) return true;
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
	return what();
};

beforeAll(async () => {
	redis = await startRedis();
});

afterAll(async () => {
	for (const store of opened) await store.close().catch(() => undefined);
	await redis?.stop();
});

describe('tasks shared by two replicas on one redis-server', () => {
	let a: TaskStore;
	let b: TaskStore;
	beforeAll(async () => {
		[a, b] = [(await replica()).tasks, (await replica()).tasks];
	});

	it('a task started on A is read and listed on B, for its owner only', async () => {
		const task = await a.create('grant:alice', { ttl: 60_000, pollInterval: 1000 });
		a.track(task.taskId);
		expect(task).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: 1000 });
		expect(await b.get('grant:alice', task.taskId)).toEqual(task);
		expect((await b.list('grant:alice')).tasks).toContainEqual(task);
		expect(await b.get('grant:bob', task.taskId)).toBeUndefined();
		expect((await b.list('grant:bob')).tasks).toEqual([]);
		await expect(b.setStatus('grant:bob', task.taskId, 'cancelled')).rejects.toThrow(/not found/);
		await expect(b.result('grant:bob', task.taskId)).rejects.toThrow(/not found/);
		a.done(task.taskId);
	});

	it('a cancel taken by B stops the work running on A; the late result is refused', async () => {
		const task = await a.create('grant:alice', { ttl: 60_000, pollInterval: 1000 });
		const signal = a.track(task.taskId);
		await b.setStatus('grant:alice', task.taskId, 'cancelled', 'Cancelled by the client');
		expect(await until(() => signal.aborted, 1000)).toBe(true);
		expect(await a.get('grant:alice', task.taskId)).toMatchObject({ status: 'cancelled', statusMessage: 'Cancelled by the client' });
		await expect(a.finish('grant:alice', task.taskId, 'completed', RESULT)).rejects.toThrow(/terminal status 'cancelled'/);
		a.done(task.taskId);
	});

	it('a cancel whose message was missed reaches the work at its next renewal', async () => {
		const task = await a.create('grant:alice', { ttl: 60_000, pollInterval: 1000 });
		const signal = a.track(task.taskId);
		// Written behind the store's back: no message is published, as when A's subscription was down.
		const raw = createClient({ url: redis.url });
		await raw.connect();
		await raw.hSet(`${PREFIX}task:${task.taskId}`, 'status', 'cancelled');
		await raw.close();
		expect(await until(() => signal.aborted, 1000)).toBe(true);
		a.done(task.taskId);
	});

	it('a result kept by A is read on B; a finish and a cancel at once: one wins', async () => {
		const task = await a.create('grant:alice', { ttl: 60_000, pollInterval: 1000 });
		a.track(task.taskId);
		await a.finish('grant:alice', task.taskId, 'completed', RESULT);
		a.done(task.taskId);
		expect(await b.get('grant:alice', task.taskId)).toMatchObject({ status: 'completed' });
		expect(await b.result('grant:alice', task.taskId)).toEqual(RESULT);
		// At rest the result is sealed, and bound to its task.
		const raw = createClient({ url: redis.url });
		await raw.connect();
		const stored = await raw.hGet(`${PREFIX}task:${task.taskId}`, 'result');
		expect(stored).toBeTruthy();
		expect(stored).not.toContain('sent');
		const other = await a.create('grant:alice', { ttl: 60_000, pollInterval: 1000 });
		await raw.hSet(`${PREFIX}task:${other.taskId}`, { status: 'completed', result: stored! });
		await raw.close();
		await expect(b.result('grant:alice', other.taskId)).rejects.toThrow();

		for (let round = 0; round < 20; round++) {
			const raced = await a.create('grant:alice', { ttl: 60_000, pollInterval: 1000 });
			const outcomes = await Promise.allSettled([
				a.finish('grant:alice', raced.taskId, 'completed', RESULT),
				b.setStatus('grant:alice', raced.taskId, 'cancelled'),
			]);
			expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
			const status = (await b.get('grant:alice', raced.taskId))?.status;
			expect(status).toBe(outcomes[0].status === 'fulfilled' ? 'completed' : 'cancelled');
		}
	});

	it('lists a page of ten at a time, oldest first, with a cursor', async () => {
		const owner = 'grant:carol';
		const created = [];
		for (let index = 0; index < 12; index++) created.push((await a.create(owner, { ttl: 60_000, pollInterval: 1000 })).taskId);
		for (const taskId of created) await a.finish(owner, taskId, 'completed', RESULT);
		const first = await b.list(owner);
		expect(first.tasks.map((task) => task.taskId)).toEqual(created.slice(0, 10));
		const second = await b.list(owner, first.nextCursor);
		expect(second.tasks.map((task) => task.taskId)).toEqual(created.slice(10));
		expect(second.nextCursor).toBeUndefined();
		await expect(b.list(owner, 'no-such-task')).rejects.toThrow(/Invalid cursor/);
	});

	it('keeps a task while its runner renews the lease, then lets it expire with its time to live', async () => {
		const task = await a.create('grant:alice', { ttl: 1500, pollInterval: 1000 });
		a.track(task.taskId);
		// Three leases long: still working, since A renews it.
		await new Promise((resolve) => setTimeout(resolve, 1200));
		expect(await b.get('grant:alice', task.taskId)).toMatchObject({ status: 'working' });
		await a.finish('grant:alice', task.taskId, 'completed', RESULT);
		a.done(task.taskId);
		expect(await until(async () => (await b.get('grant:alice', task.taskId)) === undefined, 3000)).toBe(true);
	});
});

test("the terminal statuses are the SDK's (its in-memory store's rule), and the Redis store refuses to change them", async () => {
	const all: TaskStatus[] = ['working', 'input_required', 'completed', 'failed', 'cancelled'];
	expect(all.filter((status) => isTerminal(status))).toEqual([...TERMINAL_STATUSES]);
	const { tasks } = await replica();
	for (const status of TERMINAL_STATUSES) {
		const task = await tasks.create('grant:alice', { ttl: 60_000, pollInterval: 1000 });
		await tasks.setStatus('grant:alice', task.taskId, status);
		await expect(tasks.setStatus('grant:alice', task.taskId, 'working')).rejects.toThrow(new RegExp(`terminal status '${status}'`));
	}
});

describe("a replica's death", () => {
	it('its working task becomes failed once its lease lapses, read from the survivor, with a result that says why', async () => {
		const dying = await replica();
		const survivor = (await replica()).tasks;
		const task = await dying.tasks.create('grant:alice', { ttl: 60_000, pollInterval: 1000 });
		dying.tasks.track(task.taskId);
		expect(await survivor.get('grant:alice', task.taskId)).toMatchObject({ status: 'working' });
		// The process is gone: nothing renews its leases any more.
		await dying.store.close();
		expect(await until(async () => (await survivor.get('grant:alice', task.taskId))?.status === 'failed', 3000)).toBe(true);
		expect(await survivor.get('grant:alice', task.taskId)).toMatchObject({ status: 'failed', statusMessage: RUNNER_LOST_MESSAGE });
		expect(await survivor.result('grant:alice', task.taskId)).toEqual({
			isError: true,
			content: [{ type: 'text', text: RUNNER_LOST_MESSAGE }],
		});
		// Failed is final: a cancel now is refused, as for any finished task.
		await expect(survivor.setStatus('grant:alice', task.taskId, 'cancelled')).rejects.toThrow(/terminal status 'failed'/);
	});
});
