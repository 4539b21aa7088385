/**
 * The tasks of long tool calls on the Redis server the grants are on, so that replicas behind one URL share them: a
 * task started on one is read, listed, cancelled and its result read on any. Each task is a hash (its record, its
 * owner, its result once finished) that expires as the in-memory store's tasks do, indexed per owner by creation
 * time; every change is one Lua script, so a finish and a cancel taken by two replicas at once cannot both win.
 *
 * The work runs where the call came in. That process holds a runner lease on the task, renewed while the work runs;
 * a task whose lease has lapsed while it is still working (its process died or lost Redis) is failed by the next
 * read, wherever it happens, with calls/tasks.ts's runnerLostResult, never left "working". A cancel reaches the work
 * by pub/sub at once, and by the renewal, which also reads the status, within a heartbeat if a message was missed.
 * A result (a tool's answer, which may hold customers' messages) is sealed with the store's key, bound to its task.
 */
import { randomBytes } from 'node:crypto';

import type { ToolResult } from '../calls/results';
import { RUNNER_LOST_MESSAGE, runnerLostResult } from '../calls/tasks';
import { TERMINAL_STATUSES, type TaskRecord, type TaskStatus, type TaskStore } from '../calls/taskStore';
import type { RedisLike } from './redisClient';
import type { SecretBox } from './secretBox';

/** How often the running process renews its tasks' leases, and how long a lease lasts without renewal. */
export const RUNNER_HEARTBEAT_MS = 5_000;
export const RUNNER_LEASE_MS = 20_000;
/** How long a task without a time to live (2025-11-25's `ttl: null`) is kept: no process end frees a shared store. */
export const UNBOUNDED_TASK_KEEP_MS = 24 * 60 * 60 * 1000;
const PAGE_SIZE = 10;

/** Lua: whether the status `s` is terminal. */
const TERMINAL = TERMINAL_STATUSES.map((status) => `s == '${status}'`).join(' or ');
/** The task's time to live from now: its own, or the cap for one without. */
const EXPIRE = "local ttl = redis.call('HGET', KEYS[1], 'ttl') redis.call('PEXPIRE', KEYS[1], (ttl ~= '' and ttl) or ARGV[5])";
/** Stops a script unless the task is the owner's (not found) and still open (refused once finished, as the SDK's store). */
const OPEN_TASK_OF_OWNER = `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return redis.error_reply('not found') end
local s = redis.call('HGET', KEYS[1], 'status')
if ${TERMINAL} then return redis.error_reply('terminal ' .. s) end`;

const SCRIPTS = {
	/**
	 * KEYS task, lease, index, sequence; ARGV owner, taskId, now, ttl ('' for none), pollInterval, keepMs, leaseMs. The
	 * index's order is a sequence every replica draws from, not a clock two of them could tie on.
	 */
	create: `
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'taskId', ARGV[2], 'status', 'working', 'createdAt', ARGV[3], 'lastUpdatedAt', ARGV[3], 'ttl', ARGV[4], 'pollInterval', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('SET', KEYS[2], '1', 'PX', ARGV[7])
redis.call('ZADD', KEYS[3], redis.call('INCR', KEYS[4]), ARGV[2])
if redis.call('PTTL', KEYS[3]) < tonumber(ARGV[6]) then redis.call('PEXPIRE', KEYS[3], ARGV[6]) end`,
	/** KEYS task, lease; ARGV owner, now, message, result, keepMs. The task, failed first if its runner is gone. */
	read: `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return false end
local s = redis.call('HGET', KEYS[1], 'status')
if (s == 'working' or s == 'input_required') and redis.call('EXISTS', KEYS[2]) == 0 then
	redis.call('HSET', KEYS[1], 'status', 'failed', 'statusMessage', ARGV[3], 'lastUpdatedAt', ARGV[2], 'result', ARGV[4])
	${EXPIRE}
end
return redis.call('HGETALL', KEYS[1])`,
	/** KEYS task, lease; ARGV owner, status, result, now, keepMs. */
	finish: `${OPEN_TASK_OF_OWNER}
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'result', ARGV[3], 'lastUpdatedAt', ARGV[4])
redis.call('DEL', KEYS[2])
${EXPIRE}
return 'OK'`,
	/** KEYS task, lease; ARGV owner, status, message, now, keepMs, channel, taskId. */
	setStatus: `${OPEN_TASK_OF_OWNER}
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'lastUpdatedAt', ARGV[4])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'statusMessage', ARGV[3]) end
s = ARGV[2]
if ${TERMINAL} then
	redis.call('DEL', KEYS[2])
	${EXPIRE}
end
if s == 'cancelled' then redis.call('PUBLISH', ARGV[6], ARGV[7]) end
return 'OK'`,
	/** KEYS task, lease; ARGV leaseMs. The lease renewed while the task is open; its status either way. */
	renew: `
local s = redis.call('HGET', KEYS[1], 'status')
if s == 'working' or s == 'input_required' then redis.call('SET', KEYS[2], '1', 'PX', ARGV[1]) end
return s`,
};

export interface RedisTasksOptions {
	prefix: string;
	/** Seals results at rest (the grants' key). */
	secrets: SecretBox;
	heartbeatMs?: number;
	leaseMs?: number;
	/** A connection of its own lost or failing: told, not thrown (node-redis reconnects by itself). */
	onError?: (error: Error) => void;
}

/** A hash's fields as HGETALL gives them through EVAL: name, value, name, value… */
function recordOf(fields: unknown): (TaskRecord & { result?: string }) | undefined {
	if (!Array.isArray(fields) || !fields.length) return undefined;
	const hash: Record<string, string> = {};
	for (let index = 0; index + 1 < fields.length; index += 2) hash[String(fields[index])] = String(fields[index + 1]);
	return {
		taskId: hash.taskId ?? '',
		status: hash.status as TaskStatus,
		...(hash.statusMessage ? { statusMessage: hash.statusMessage } : {}),
		createdAt: hash.createdAt ?? '',
		lastUpdatedAt: hash.lastUpdatedAt ?? '',
		ttl: hash.ttl ? Number(hash.ttl) : null,
		...(hash.pollInterval ? { pollInterval: Number(hash.pollInterval) } : {}),
		...(hash.result !== undefined ? { result: hash.result } : {}),
	};
}

/** The store's refusals in the words of the SDK's in-memory store, which both revisions already answer with. */
function refused(error: unknown, taskId: string, status?: string): Error {
	const message = error instanceof Error ? error.message : String(error);
	if (/not found/.test(message)) return new Error(`Task with ID ${taskId} not found`);
	const terminal = /terminal (\w+)/.exec(message)?.[1];
	if (terminal)
		return new Error(
			status
				? `Cannot update task ${taskId} from terminal status '${terminal}' to '${status}'. Terminal states (completed, failed, cancelled) cannot transition to other states.`
				: `Cannot store result for task ${taskId} in terminal status '${terminal}'. Task results can only be stored once.`,
		);
	return error instanceof Error ? error : new Error(message);
}

export class RedisTaskStore implements TaskStore {
	private readonly running = new Map<string, AbortController>();
	private heartbeat: NodeJS.Timeout | undefined;
	private readonly heartbeatMs: number;
	private readonly leaseMs: number;
	private readonly channel: string;

	private constructor(
		private readonly client: RedisLike,
		private readonly subscriber: RedisLike,
		private readonly options: RedisTasksOptions,
	) {
		this.heartbeatMs = options.heartbeatMs ?? RUNNER_HEARTBEAT_MS;
		this.leaseMs = options.leaseMs ?? RUNNER_LEASE_MS;
		this.channel = `${options.prefix}task-cancelled`;
	}

	/** On `client`'s server, with a connection of its own for the cancels it hears. */
	static async open(client: RedisLike, options: RedisTasksOptions): Promise<RedisTaskStore> {
		const subscriber = client.duplicate();
		subscriber.on('error', (error) => options.onError?.(error));
		await subscriber.connect();
		const store = new RedisTaskStore(client, subscriber, options);
		await subscriber.subscribe(store.channel, (taskId) => store.running.get(taskId)?.abort());
		return store;
	}

	private sealed(taskId: string, result: ToolResult): string {
		return this.options.secrets.seal(JSON.stringify(result), `task:${taskId}`);
	}

	private keys(taskId: string): string[] {
		return [`${this.options.prefix}task:${taskId}`, `${this.options.prefix}task-runner:${taskId}`];
	}

	private index(owner: string): string {
		return `${this.options.prefix}tasks:${owner}`;
	}

	async create(owner: string, options: { ttl: number | null; pollInterval: number }): Promise<TaskRecord> {
		const taskId = randomBytes(16).toString('hex');
		const now = new Date();
		const keepMs = options.ttl ?? UNBOUNDED_TASK_KEEP_MS;
		await this.client.eval(SCRIPTS.create, {
			keys: [...this.keys(taskId), this.index(owner), `${this.options.prefix}task-sequence`],
			arguments: [
				owner,
				taskId,
				now.toISOString(),
				options.ttl === null ? '' : String(options.ttl),
				String(options.pollInterval),
				String(keepMs),
				String(this.leaseMs),
			],
		});
		const iso = now.toISOString();
		return { taskId, status: 'working', createdAt: iso, lastUpdatedAt: iso, ttl: options.ttl, pollInterval: options.pollInterval };
	}

	/** The owner's task with its result text, after the rule for a lost runner. */
	private async read(owner: string, taskId: string): Promise<(TaskRecord & { result?: string }) | undefined> {
		const fields = await this.client.eval(SCRIPTS.read, {
			keys: this.keys(taskId),
			arguments: [
				owner,
				new Date().toISOString(),
				RUNNER_LOST_MESSAGE,
				this.sealed(taskId, runnerLostResult()),
				String(UNBOUNDED_TASK_KEEP_MS),
			],
		});
		return recordOf(fields);
	}

	async get(owner: string, taskId: string): Promise<TaskRecord | undefined> {
		const found = await this.read(owner, taskId);
		if (!found) return undefined;
		const { result: _result, ...task } = found;
		return task;
	}

	async list(owner: string, cursor?: string): Promise<{ tasks: TaskRecord[]; nextCursor?: string }> {
		const ids = await this.client.zRange(this.index(owner), 0, -1);
		const found = await Promise.all(ids.map((taskId) => this.get(owner, taskId)));
		const gone = ids.filter((_, index) => !found[index]);
		if (gone.length) await this.client.zRem(this.index(owner), gone);
		const tasks = found.filter((task): task is TaskRecord => task !== undefined);
		let start = 0;
		if (cursor) {
			const at = tasks.findIndex((task) => task.taskId === cursor);
			if (at < 0) throw new Error(`Invalid cursor: ${cursor}`);
			start = at + 1;
		}
		const page = tasks.slice(start, start + PAGE_SIZE);
		const nextCursor = start + PAGE_SIZE < tasks.length ? page[page.length - 1]?.taskId : undefined;
		return { tasks: page, ...(nextCursor ? { nextCursor } : {}) };
	}

	async finish(owner: string, taskId: string, status: 'completed' | 'failed', result: ToolResult): Promise<void> {
		try {
			await this.client.eval(SCRIPTS.finish, {
				keys: this.keys(taskId),
				arguments: [owner, status, this.sealed(taskId, result), new Date().toISOString(), String(UNBOUNDED_TASK_KEEP_MS)],
			});
		} catch (error) {
			throw refused(error, taskId);
		}
	}

	async result(owner: string, taskId: string): Promise<ToolResult> {
		const found = await this.read(owner, taskId);
		if (!found) throw new Error(`Task with ID ${taskId} not found`);
		if (found.result === undefined) throw new Error(`Task ${taskId} has no result stored`);
		return JSON.parse(this.options.secrets.open(found.result, `task:${taskId}`)) as ToolResult;
	}

	async setStatus(owner: string, taskId: string, status: TaskStatus, message?: string): Promise<void> {
		try {
			await this.client.eval(SCRIPTS.setStatus, {
				keys: this.keys(taskId),
				arguments: [owner, status, message ?? '', new Date().toISOString(), String(UNBOUNDED_TASK_KEEP_MS), this.channel, taskId],
			});
		} catch (error) {
			throw refused(error, taskId, status);
		}
		// Published to every process, this one included; aborted here at once when the work is here.
		if (status === 'cancelled') this.running.get(taskId)?.abort();
	}

	track(taskId: string): AbortSignal {
		const controller = new AbortController();
		this.running.set(taskId, controller);
		this.heartbeat ??= setInterval(() => void this.renew(), this.heartbeatMs).unref();
		return controller.signal;
	}

	done(taskId: string): void {
		this.running.delete(taskId);
		if (!this.running.size && this.heartbeat) {
			clearInterval(this.heartbeat);
			this.heartbeat = undefined;
		}
	}

	/** Renews the leases of the work running here; work whose task is no longer open (cancelled, failed, gone) stops. */
	private async renew(): Promise<void> {
		await Promise.all(
			[...this.running].map(async ([taskId, controller]) => {
				try {
					const status = await this.client.eval(SCRIPTS.renew, { keys: this.keys(taskId), arguments: [String(this.leaseMs)] });
					if (status !== 'working' && status !== 'input_required') controller.abort();
				} catch (error) {
					// Redis unreachable: the work goes on; its lease lapses if this lasts, and the task is failed then.
					this.options.onError?.(error as Error);
				}
			}),
		);
	}

	private closing: Promise<void> | undefined;

	close(): Promise<void> {
		this.closing ??= this.stop();
		return this.closing;
	}

	/** Stops hearing cancels and renewing leases (the tasks of work still running here then fail by the lease rule). */
	private async stop(): Promise<void> {
		if (this.heartbeat) clearInterval(this.heartbeat);
		this.heartbeat = undefined;
		this.running.clear();
		await this.subscriber.unsubscribe(this.channel).catch(() => undefined);
		await (this.subscriber.close ?? this.subscriber.quit)?.call(this.subscriber);
	}
}
