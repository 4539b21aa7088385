/**
 * The one executor both platforms drive: validates input, then hands each operation to its part —
 * the HTTP exchange (http/: base URL, request building, retry and pacing, multipart, downloads), the
 * pager (pager.ts) and the operation handlers (operations/: read-modify-write, file download, send
 * with attachment, recovery of a send whose answer was lost, waiting for a status). Every error
 * leaves it without a secret in it.
 */
import { findOperation, operationId } from '../catalogue/endpoints';
import { findComposite } from '../catalogue/catalogue';
import type { CompositeDescriptor } from '../catalogue/composites';
import { DEFAULT_WAIT_TIMEOUT_S, LIST_DEFAULTS } from '../catalogue/defaults';
import type { DownloadedFile, OperationDescriptor, Timing, Transport } from '../catalogue/types';
import { inputError, redactError, unexpectedResponse } from './errors';
import { normalizeBaseUrl } from './http/baseUrl';
import { HttpExchange } from './http/exchange';
import { DEFAULT_RETRY, type RetryPolicy } from './http/retry';
import { sendWithAttachment, type Attachment } from './operations/attachment';
import { compositeHandler, type CompositeRunOptions } from './operations/registry';
import { downloadRecord } from './operations/download';
import { readModifyWrite } from './operations/readModifyWrite';
import type { OperationRunner, RunOptions } from './operations/runner';
import { SendRecovery } from './operations/sendRecovery';
import { pollStatus, type StatusWaitOptions, type WaitTarget } from './operations/waitForStatus';
import { SERVICE_RATE_LIMIT, sharedBucket, TokenBucket, type RateLimit } from './pacing';
import { Pager, type ListPosition } from './pager';
import { isRecord, prepareRequest, type PreparedRequest } from './validation';

export { normalizeBaseUrl } from './http/baseUrl';
export { type RetryPolicy } from './http/retry';
export type { Attachment } from './operations/attachment';
export type { RunOptions } from './operations/runner';
export type { StatusWaitOptions, WaitTarget } from './operations/waitForStatus';
export type { ListPosition } from './pager';

export interface ExecutorOptions {
	baseUrl: string;
	transport: Transport;
	timing: Timing;
	/** Adds `Authorization: Bearer` itself; leave out when the transport authenticates (n8n). */
	token?: string;
	retry?: Partial<RetryPolicy>;
	/** Client-side pacing; `false` turns it off. */
	rateLimit?: RateLimit | false;
	/**
	 * Shares pacing with every executor of the same client in this process (see `pacingKey`): the
	 * service limits per token. Without it the executor paces on its own.
	 */
	pacingKey?: string;
	/** Values never to show in an error (the token is always one): credentials the transport adds itself. */
	secrets?: readonly string[];
	/**
	 * Pages fetched at once when walking a list; 1 walks sequentially. Default 8: at 150 ms a round trip, the
	 * pace (28/s) needs about 4 in flight, and a window of 4 capped the walk at 4 / 0.15 s = 27/s.
	 */
	pageConcurrency?: number;
	timeoutMs?: number;
	/** IANA zone for date-times given without one (n8n passes the workflow's). */
	timeZone?: string;
	/** Look for the message of a send in doubt and resend it when proven absent (default true; off only to measure). */
	resolveDoubtfulSends?: boolean;
}

export class Executor implements OperationRunner {
	readonly baseUrl: string;
	readonly timing: Timing;
	private readonly http: HttpExchange;
	private readonly pager: Pager;
	private readonly recovery: SendRecovery;

	/** Never shown in an error: the token and whatever the adapter adds. */
	private readonly secrets: readonly string[];

	constructor(private readonly options: ExecutorOptions) {
		this.secrets = [options.token ?? '', ...(options.secrets ?? [])].filter(Boolean);
		try {
			this.baseUrl = normalizeBaseUrl(options.baseUrl);
		} catch (error) {
			throw redactError(error, this.secrets); // the token pasted into the base URL field
		}
		this.timing = options.timing;
		const retry = { ...DEFAULT_RETRY, ...options.retry };
		const rate = options.rateLimit === undefined ? SERVICE_RATE_LIMIT : options.rateLimit;
		const bucket = rate
			? options.pacingKey
				? sharedBucket(options.pacingKey, rate, options.timing)
				: new TokenBucket(rate, options.timing)
			: undefined;
		this.http = new HttpExchange({
			baseUrl: this.baseUrl,
			transport: options.transport,
			timing: options.timing,
			token: options.token,
			retry,
			bucket,
			timeoutMs: options.timeoutMs,
		});
		this.pager = new Pager(this, this.http, {
			listBudgetMs: retry.listBudgetMs,
			pageConcurrency: Math.max(1, Math.floor(options.pageConcurrency ?? 8)),
		});
		this.recovery = new SendRecovery(this, { settleMs: retry.sendSettleMs, enabled: options.resolveDoubtfulSends !== false });
	}

	/**
	 * Runs one operation of the catalogue, endpoint or composite (`message:send`,
	 * `message:sendAndWaitForReply`: see CATALOGUE). Paginated operations return all items (or up to
	 * `limit`) unless the input names a `page`; read-modify-write operations read first.
	 */
	async run(
		operation: string | OperationDescriptor | CompositeDescriptor,
		input: Record<string, unknown> = {},
		runOptions: RunOptions & CompositeRunOptions = {},
	): Promise<unknown> {
		const id = typeof operation === 'string' ? operation : operationId(operation);
		const composite =
			typeof operation === 'string'
				? findComposite(operation)
				: 'kind' in operation && operation.kind === 'composite'
					? operation
					: undefined;
		if (composite) {
			const handler = compositeHandler<Executor>(id);
			if (!handler) throw new Error(`${id} has no handler: registerCompositeHandlers() registers them (@chat-messaging/core calls it)`);
			return this.redacting(() => handler(this, input, runOptions));
		}
		return this.redacting(() => this.runOperation(operation as string | OperationDescriptor, input, runOptions));
	}

	/** Every error leaves the executor without a secret in it. */
	private async redacting<T>(work: () => Promise<T>): Promise<T> {
		try {
			return await work();
		} catch (error) {
			throw redactError(error, this.secrets);
		}
	}

	/**
	 * One page of a paginated list: its records, and whether another page follows. For callers that
	 * walk a list themselves (a poll that stops at the first old chat, a picker that loads lazily).
	 * A page holding nothing ends the list whatever `has_more_pages` says, so no caller loops forever.
	 */
	async listPage(
		operation: string | OperationDescriptor,
		input: Record<string, unknown>,
		page: number,
	): Promise<{ items: Record<string, unknown>[]; more: boolean }> {
		return this.pager.listPage(typeof operation === 'string' ? findOperation(operation) : operation, input, page);
	}

	/**
	 * Up to `limit` records of a paginated list from a position on (the list's start is page 1, skip 0),
	 * walked as Return All walks, and where the list goes on, when it does: for callers that hand a list
	 * out in parts and continue it later (the MCP server's cursor).
	 */
	async listFrom(
		operation: string | OperationDescriptor,
		input: Record<string, unknown>,
		from: ListPosition,
		limit: number,
	): Promise<{ items: unknown[]; next?: ListPosition }> {
		return this.redacting(async () => {
			const op = typeof operation === 'string' ? findOperation(operation) : operation;
			if (!op.pagination) throw new Error(`${operationId(op)} is not a paginated list`);
			if (!Number.isInteger(limit) || limit < 1) throw inputError('limit', `must be a whole number of at least 1, got ${limit}`, 'Limit');
			if (!Number.isInteger(from.page) || from.page < 1 || !Number.isInteger(from.skip) || from.skip < 0)
				throw new Error(`Not a list position: page ${from.page}, skip ${from.skip}`);
			return this.pager.walkFrom(op, op.pagination, input, from, limit);
		});
	}

	private async runOperation(
		operation: string | OperationDescriptor,
		input: Record<string, unknown>,
		runOptions: RunOptions,
	): Promise<unknown> {
		const op = typeof operation === 'string' ? findOperation(operation) : operation;
		if (op.readModifyWrite) return readModifyWrite(this, op, op.readModifyWrite, input);
		if (op.download) return downloadRecord(this, this.http, op, op.download, input);
		if (op.sendsMessage) return this.recovery.send(op, input);
		if (op.pagination && (input.page === undefined || input.page === null || input.page === '')) {
			const limit = runOptions.returnAll === false ? (runOptions.limit ?? LIST_DEFAULTS.limit) : undefined;
			if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
				throw inputError('limit', `must be a whole number of at least 1, got ${limit}`, 'Limit');
			return this.pager.walk(op, op.pagination, input, limit);
		}
		return this.call(op, input);
	}

	/**
	 * One validated request (retries included); returns the unwrapped data. With a `deadline` (epoch
	 * ms) failures are retried until then instead of `maxAttempts` times.
	 */
	async call(op: OperationDescriptor, input: Record<string, unknown>, deadline?: number): Promise<unknown> {
		const prepared = this.prepare(op, input);
		if (op.pagination) return this.pager.fetchPage(op, op.pagination, input, prepared, deadline);
		const data = await this.http.send(op, prepared, deadline);
		return this.unwrap(op, data);
	}

	/** Validates the input and builds the request without sending it: bad input fails before any request. */
	prepare(op: OperationDescriptor, input: Record<string, unknown>): PreparedRequest {
		return prepareRequest(op, input, { timeZone: this.options.timeZone, serviceUrl: this.baseUrl });
	}

	/**
	 * The member the descriptor names, or an error naming what came back: reading an unknown shape as
	 * "nothing" would, for GET /webhooks, make every activation add subscriptions up to the limit.
	 */
	private unwrap(op: OperationDescriptor, data: unknown): unknown {
		if (!op.unwrap) return data;
		// The spec does not show every list's `data`: the array itself is an answer it allows.
		if (Array.isArray(data)) return data;
		if (isRecord(data) && op.unwrap in data) return data[op.unwrap];
		throw unexpectedResponse(`${op.method} ${op.path}`, `data.${op.unwrap}`, data, operationId(op));
	}

	/**
	 * Fetches the bytes behind a download link (a file's or an event attachment's short-lived URL).
	 * The token goes only to the service's own origin; a link elsewhere is fetched without it.
	 */
	async download(url: string, known: { filename?: string; mimeType?: string } = {}): Promise<DownloadedFile> {
		return this.redacting(() => this.http.download(url, known));
	}

	/**
	 * Sends a message with an optional attachment: the bytes are uploaded (POST /files_upload) or the
	 * URL registered (POST /files) first, then the send carries the file's uid.
	 */
	async sendMessage(operation: string, input: Record<string, unknown>, attachment?: Attachment): Promise<Record<string, unknown>> {
		return this.redacting(async () => {
			const op = findOperation(operation);
			if (!op.sendsMessage) throw new Error(`${operation} does not send a message`);
			if (!attachment) return this.recovery.send(op, input);
			return sendWithAttachment(this, this.recovery, op, input, attachment);
		});
	}

	/**
	 * Sends (see sendMessage), then, when asked, waits for the message to reach a status: the one
	 * send-then-wait both platforms run. `onWaiting` lets a platform show that it waits.
	 */
	async sendAndWait(
		operation: string,
		input: Record<string, unknown>,
		options: {
			attachment?: Attachment;
			waitFor?: WaitTarget;
			timeoutMs?: number;
			onWaiting?: (target: WaitTarget) => void;
		} & Omit<StatusWaitOptions, 'timeoutMs' | 'intervalMs'> = {},
	): Promise<Record<string, unknown>> {
		const { attachment, waitFor, timeoutMs, onWaiting, ...waiting } = options;
		const sent = await this.sendMessage(operation, input, attachment);
		if (!waitFor) return sent;
		onWaiting?.(waitFor);
		const message = await this.waitForStatus(String(sent.message_uid), waitFor, {
			...waiting,
			timeoutMs: timeoutMs ?? DEFAULT_WAIT_TIMEOUT_S * 1000,
		});
		return { ...sent, status: message.status, message };
	}

	/**
	 * Polls GET /messages/{uid} until the message reaches `target` (or a later status), fails, or the
	 * time runs out. Returns the message record; a failed message, a time-out or a cancelled wait is an error.
	 */
	async waitForStatus(messageUid: string, target: WaitTarget, waitOptions: StatusWaitOptions): Promise<Record<string, unknown>> {
		return this.redacting(() => pollStatus(this, messageUid, target, waitOptions));
	}
}
