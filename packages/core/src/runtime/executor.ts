/**
 * The one executor both platforms drive: validates input, sends through an injected transport with
 * injected timing, unwraps `{status: "ok", data}`, maps errors, retries only what cannot duplicate an
 * effect, paces itself under the service's rate and pages through lists.
 */
import { findOperation, operationId } from '../catalogue/catalogue';
import { DEFAULT_WAIT_TIMEOUT_S, statusPollInterval, WAIT_TARGETS } from '../catalogue/defaults';
import {
	ChatMessagingError,
	inputError,
	isNotFound,
	redactError,
	serviceError,
	toTransportFailure,
	unexpectedResponse,
	type TransportFailure,
} from './errors';
import { SERVICE_RATE_LIMIT, sharedBucket, TokenBucket, type RateLimit } from './pacing';
import { encodeMultipart, isBlank, isRecord, prepareRequest, type PreparedRequest } from './validation';
import type {
	BinaryInput,
	DownloadedFile,
	Effect,
	OperationDescriptor,
	Pagination,
	Timing,
	Transport,
	TransportRequest,
	TransportResponse,
} from '../catalogue/types';

export interface RetryPolicy {
	/** Attempts after failures, the first included; 429s do not count (see maxRateLimitWaitMs). */
	maxAttempts: number;
	/** First back-off; doubles each retry, with full jitter. */
	baseDelayMs: number;
	maxDelayMs: number;
	/** Longest single `Retry-After` honoured; a longer one fails the call instead of stalling it. */
	maxRetryAfterMs: number;
	/** Total time one call may spend waiting out 429s (each wait is Retry-After plus up to 20 % jitter). */
	maxRateLimitWaitMs: number;
	/**
	 * Return All: the pages of one listing retry their failures until this much time has passed since
	 * the listing began, instead of `maxAttempts` each, so a long list survives a bad spell of faults.
	 */
	listBudgetMs: number;
	/** Within that budget, attempts per page (a page failing this often in a row is not a passing fault). */
	listPageAttempts: number;
	/** After a send in doubt, how long to let the service finish before looking for the message. */
	sendSettleMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
	maxAttempts: 4,
	baseDelayMs: 500,
	maxDelayMs: 10_000,
	maxRetryAfterMs: 60_000,
	maxRateLimitWaitMs: 120_000,
	listBudgetMs: 300_000,
	listPageAttempts: 12,
	sendSettleMs: 1000,
};

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

export interface RunOptions {
	/** For paginated operations: fetch every page (default) or stop at `limit` items. */
	returnAll?: boolean;
	limit?: number;
}

/** An attachment for a send: bytes to upload, or a public URL the service downloads. */
export type Attachment = { binary: BinaryInput } | { url: string; filename?: string; contentType?: string };

export type WaitTarget = (typeof WAIT_TARGETS)[number];
const STATUS_RANK: Record<string, number> = { queued: 0, sent: 1, delivered: 2, read: 3 };

/** Strips trailing slashes: the live service answers `…/chats/` with an HTML 404. */
export function normalizeBaseUrl(baseUrl: string): string {
	const trimmed = String(baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
	let protocol = '';
	try {
		protocol = new URL(trimmed).protocol;
	} catch {
		// reported below
	}
	if (protocol !== 'http:' && protocol !== 'https:')
		throw inputError('baseUrl', `must be an http(s) URL such as https://api.example.com, got "${baseUrl}"`, 'Base URL');
	return trimmed;
}

const unexpectedAnswer = (op: OperationDescriptor, expected: string, data: unknown): ChatMessagingError =>
	unexpectedResponse(`${op.method} ${op.path}`, expected, data, operationId(op));

/** The file name of a Content-Disposition header (`filename*=UTF-8''…` preferred). */
function filenameOf(disposition: string | undefined): string {
	if (!disposition) return '';
	const extended = /filename\*\s*=\s*(?:UTF-8)?''([^;]+)/i.exec(disposition);
	if (extended) {
		try {
			return decodeURIComponent(extended[1].trim());
		} catch {
			// fall through to the plain name
		}
	}
	return /filename\s*=\s*"?([^";]+)"?/i.exec(disposition)?.[1].trim() ?? '';
}

function header(response: TransportResponse, name: string): string | undefined {
	const value = response.headers[name] ?? response.headers[name.toLowerCase()];
	return Array.isArray(value) ? value[0] : value;
}

/** Retry-After in milliseconds: delta-seconds or an HTTP date. */
function retryAfterMs(response: TransportResponse, now: number): number | undefined {
	const value = header(response, 'retry-after');
	if (!value) return undefined;
	if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export class Executor {
	readonly baseUrl: string;
	private readonly retry: RetryPolicy;
	private readonly bucket?: TokenBucket;
	private readonly pageConcurrency: number;

	/** Never shown in an error: the token and whatever the adapter adds. */
	private readonly secrets: readonly string[];

	constructor(private readonly options: ExecutorOptions) {
		this.secrets = [options.token ?? '', ...(options.secrets ?? [])].filter(Boolean);
		try {
			this.baseUrl = normalizeBaseUrl(options.baseUrl);
		} catch (error) {
			throw redactError(error, this.secrets); // the token pasted into the base URL field
		}
		this.retry = { ...DEFAULT_RETRY, ...options.retry };
		const rate = options.rateLimit === undefined ? SERVICE_RATE_LIMIT : options.rateLimit;
		if (rate)
			this.bucket = options.pacingKey ? sharedBucket(options.pacingKey, rate, options.timing) : new TokenBucket(rate, options.timing);
		this.pageConcurrency = Math.max(1, Math.floor(options.pageConcurrency ?? 8));
	}

	/**
	 * Runs one catalogue operation. Paginated operations return all items (or up to `limit`) unless
	 * the input names a `page`; read-modify-write operations read first.
	 */
	async run(operation: string | OperationDescriptor, input: Record<string, unknown> = {}, runOptions: RunOptions = {}): Promise<unknown> {
		return this.redacting(() => this.runOperation(operation, input, runOptions));
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
		const op = typeof operation === 'string' ? findOperation(operation) : operation;
		if (!op.pagination) throw new Error(`${operationId(op)} is not a paginated list`);
		// A named page comes back as the page's data, its items array checked (fetchPage).
		const data = (await this.run(op, { ...input, [op.pagination.pageParam]: page })) as Record<string, unknown>;
		const items = data[op.pagination.itemsKey] as unknown[];
		return { items: items.filter(isRecord), more: data.has_more_pages === true && items.length > 0 };
	}

	private async runOperation(
		operation: string | OperationDescriptor,
		input: Record<string, unknown>,
		runOptions: RunOptions,
	): Promise<unknown> {
		const op = typeof operation === 'string' ? findOperation(operation) : operation;
		if (op.readModifyWrite) {
			this.prepare(op, input); // validate the caller's input before the read
			const current = await this.run(op.readModifyWrite.read, input);
			return this.call(findOperation(op.readModifyWrite.write), op.readModifyWrite.combine(input, current));
		}
		if (op.download) return this.downloadRecord(op, op.download, input);
		if (op.sendsMessage) return this.sendResolvingDoubt(op, input);
		if (op.pagination && (input.page === undefined || input.page === null || input.page === '')) {
			const limit = runOptions.returnAll === false ? (runOptions.limit ?? 50) : undefined;
			if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
				throw inputError('limit', `must be a whole number of at least 1, got ${limit}`, 'Limit');
			return this.paginate(op, op.pagination, input, limit);
		}
		return this.call(op, input);
	}

	/** Reads the record, then the bytes its short-lived URL links to. */
	private async downloadRecord(
		op: OperationDescriptor,
		keys: NonNullable<OperationDescriptor['download']>,
		input: Record<string, unknown>,
	) {
		const record = await this.call(op, input);
		const url = isRecord(record) ? record[keys.urlKey] : undefined;
		if (!isRecord(record) || typeof url !== 'string' || !url) throw unexpectedAnswer(op, `data.${keys.urlKey}`, record);
		const text = (key: string) => (typeof record[key] === 'string' && record[key] ? String(record[key]) : undefined);
		return { ...(await this.downloadUrl(url, { filename: text(keys.filenameKey), mimeType: text(keys.mimeTypeKey) })), file: record };
	}

	/**
	 * One validated request (retries included); returns the unwrapped data. With a `deadline` (epoch
	 * ms) failures are retried until then instead of `maxAttempts` times.
	 */
	async call(op: OperationDescriptor, input: Record<string, unknown>, deadline?: number): Promise<unknown> {
		const prepared = this.prepare(op, input);
		if (op.pagination) return this.fetchPage(op, op.pagination, input, prepared, deadline);
		const data = await this.send(op, prepared, deadline);
		return this.unwrap(op, data);
	}

	private prepare(op: OperationDescriptor, input: Record<string, unknown>): PreparedRequest {
		return prepareRequest(op, input, { timeZone: this.options.timeZone });
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
		throw unexpectedAnswer(op, `data.${op.unwrap}`, data);
	}

	/**
	 * One page of a list, `data` as the service sent it. A 404 is the service's "entities not found"
	 * (GET /chats documents it for a page past the end or a filter matching nothing): an empty last
	 * page, once the parent record, if the list has one, is known to exist.
	 */
	private async fetchPage(
		op: OperationDescriptor,
		pagination: Pagination,
		input: Record<string, unknown>,
		prepared: PreparedRequest,
		deadline?: number,
	): Promise<Record<string, unknown>> {
		let data: unknown;
		try {
			data = await this.send(op, prepared, deadline);
		} catch (error) {
			if (!isNotFound(error)) throw error;
			const page = Number(prepared.query[pagination.pageParam] ?? 1);
			if (page <= 1 && pagination.parent) await this.confirmParent(pagination.parent, input);
			return { has_more_pages: false, [pagination.itemsKey]: [] };
		}
		if (!isRecord(data) || !Array.isArray(data[pagination.itemsKey])) throw unexpectedAnswer(op, `data.${pagination.itemsKey}`, data);
		return data;
	}

	/** Reads the record a list hangs under; its 404 names the id that does not exist. */
	private async confirmParent(parentId: string, input: Record<string, unknown>): Promise<void> {
		try {
			await this.run(parentId, input);
		} catch (error) {
			if (!isNotFound(error)) throw error;
			const ids = findOperation(parentId).fields.filter((field) => field.in === 'path');
			const named = ids.map((field) => `${field.name} ${String(input[field.name])}`).join(', ');
			throw new ChatMessagingError(`${named}: not found (${(error as Error).message})`, {
				kind: 'service',
				httpStatus: 404,
				field: ids[0]?.name,
				operation: parentId,
			});
		}
	}

	/**
	 * Walks `has_more_pages` through a sliding window: the next page is asked as soon as one answers,
	 * up to `pageConcurrency` at once, and items come in sequential-walk order. Pages asked past the
	 * end (at most window − 1) are ignored, answers and failures alike; a failure before the end fails
	 * the walk.
	 */
	private async paginate(
		op: OperationDescriptor,
		pagination: Pagination,
		input: Record<string, unknown>,
		limit?: number,
	): Promise<unknown[]> {
		this.prepare(op, input); // a bad filter fails before the first page is asked for
		// One budget in time for the whole listing: a page retries its failures until then, so a long
		// list outlasts a bad spell of faults instead of failing on one page's fourth attempt.
		const deadline = this.options.timing.now() + this.retry.listBudgetMs;
		type Outcome = { items: unknown[]; last: boolean } | { error: unknown };
		const fetch = async (page: number): Promise<Outcome> => {
			try {
				const data = (await this.call(op, { ...input, page }, deadline)) as Record<string, unknown>;
				const items = data[pagination.itemsKey] as unknown[];
				// An empty page that claims more would loop forever; a sequential walk stops there too.
				return { items, last: data.has_more_pages !== true || items.length === 0 };
			} catch (error) {
				return { error };
			}
		};

		const first = await fetch(1);
		if ('error' in first) throw first.error;
		const items = [...first.items];
		// Never partial data as if complete: a failure names how far the listing got, and returns nothing.
		const stopped = (error: unknown, pages: number) =>
			error instanceof ChatMessagingError
				? new ChatMessagingError(
						`${error.message} (the list stopped after ${pages} page${pages === 1 ? '' : 's'}, ${items.length} items; none is returned)`,
						{
							kind: error.kind,
							httpStatus: error.httpStatus,
							errorCode: error.errorCode,
							errors: error.errors,
							field: error.field,
							operation: error.operation,
							networkCode: error.networkCode,
							responseText: error.responseText,
						},
					)
				: error;
		const enough = () => limit !== undefined && items.length >= limit;
		if (first.last || enough()) return limit === undefined ? items : items.slice(0, limit);

		// With a limit, no page beyond the one that completes it is asked for.
		const lastWanted = limit === undefined ? Infinity : Math.ceil(limit / first.items.length);
		const outcomes = new Map<number, Outcome>();
		const inFlight = new Map<number, Promise<void>>();
		let endsAt = Infinity; // lowest page known to be the last
		let next = 2;
		let taken = 1; // pages whose items are in `items`
		for (;;) {
			for (let outcome = outcomes.get(taken + 1); outcome; outcome = outcomes.get(taken + 1)) {
				outcomes.delete(++taken);
				if ('error' in outcome) throw stopped(outcome.error, taken - 1);
				items.push(...outcome.items);
				if (outcome.last || enough()) return limit === undefined ? items : items.slice(0, limit);
			}
			while (inFlight.size < this.pageConcurrency && next <= lastWanted && next <= endsAt) {
				const page = next++;
				inFlight.set(
					page,
					fetch(page).then((outcome) => {
						inFlight.delete(page);
						outcomes.set(page, outcome);
						if (!('error' in outcome) && outcome.last) endsAt = Math.min(endsAt, page);
					}),
				);
			}
			await Promise.race(inFlight.values());
		}
	}

	private buildRequest(op: OperationDescriptor, prepared: PreparedRequest): TransportRequest {
		const search = new URLSearchParams(prepared.query).toString();
		const headers: Record<string, string> = { Accept: 'application/json' };
		if (this.options.token) headers.Authorization = `Bearer ${this.options.token}`;
		let body: string | Uint8Array | undefined;
		if (prepared.multipart) {
			const boundary = `----chat-messaging-${Math.floor(this.options.timing.random() * 1e16).toString(36)}`;
			body = encodeMultipart(prepared.multipart, boundary);
			headers['Content-Type'] = `multipart/form-data; boundary=${boundary}`;
		} else if (prepared.body) {
			body = JSON.stringify(prepared.body);
			headers['Content-Type'] = 'application/json';
		}
		return {
			method: op.method,
			url: `${this.baseUrl}${prepared.path}${search ? `?${search}` : ''}`,
			headers,
			body,
			timeoutMs: this.options.timeoutMs ?? 30_000,
		};
	}

	/** Whether a failed attempt may be repeated without risking a second effect. */
	private mayRetry(effect: Effect, outcome: { status: number } | TransportFailure): boolean {
		if ('status' in outcome) {
			if (outcome.status === 429) return true; // rate-limited requests were not processed
			return outcome.status >= 500 && effect !== 'create'; // a 5xx send may have gone through
		}
		return effect !== 'create' || !outcome.requestSent;
	}

	private backoff(attempt: number): number {
		const ceiling = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
		return Math.round(this.options.timing.random() * ceiling);
	}

	private async send(op: OperationDescriptor, prepared: PreparedRequest, deadline?: number): Promise<unknown> {
		const response = await this.exchange(this.buildRequest(op, prepared), {
			id: operationId(op),
			effect: op.effect,
			paced: true,
			deadline,
		});
		const body = response.body;
		if (isRecord(body) && 'data' in body) return body.data;
		return body === '' ? null : body;
	}

	/**
	 * One request through pacing and the retry rules; resolves with a success response, or throws
	 * the mapped error. A service answer of `{status: "error"}` is an error whatever its status.
	 * - A 429 was not processed: it is waited out (Retry-After plus jitter, and everyone sharing the
	 *   pacer waits too) without using up an attempt, up to `maxRateLimitWaitMs` in total.
	 * - Other failures are retried when `mayRetry` allows, up to `maxAttempts`, or until `deadline`.
	 * - A DELETE answered 404 after an attempt that may have gone through has done its work.
	 */
	private async exchange(
		request: TransportRequest,
		call: { id: string; effect: Effect; paced: boolean; deadline?: number },
	): Promise<TransportResponse> {
		const timing = this.options.timing;
		let failures = 0;
		let rateLimitedMs = 0;
		let mayHaveApplied = false;
		const retryAfterFailure = async (): Promise<boolean> => {
			failures++;
			const delay = this.backoff(failures);
			const allowed =
				call.deadline === undefined
					? failures < this.retry.maxAttempts
					: failures < this.retry.listPageAttempts && timing.now() + delay < call.deadline;
			if (allowed) await timing.sleep(delay);
			return allowed;
		};
		for (;;) {
			if (call.paced) await this.bucket?.take();
			let response: TransportResponse;
			try {
				response = await this.options.transport(request);
			} catch (error) {
				const failure = toTransportFailure(error);
				if (this.mayRetry(call.effect, failure) && (await retryAfterFailure())) {
					mayHaveApplied ||= failure.requestSent;
					continue;
				}
				const hint = !failure.requestSent
					? ` (is ${request.url.startsWith(this.baseUrl) ? this.baseUrl : new URL(request.url).origin} reachable?)`
					: call.effect === 'create'
						? '. It may have taken effect: check before repeating it'
						: '';
				throw new ChatMessagingError(`Could not reach the service: ${failure.message}${hint}`, {
					kind: 'network',
					networkCode: failure.code,
					operation: call.id,
					mayHaveTakenEffect: call.effect === 'create' && failure.requestSent,
				});
			}
			const body = response.body;
			const ok = response.status >= 200 && response.status < 300 && !(isRecord(body) && body.status === 'error');
			if (ok) return response;
			if (response.status === 404 && mayHaveApplied && request.method === 'DELETE') {
				return { status: 200, headers: response.headers, body: { status: 'ok', data: null } };
			}
			if (response.status === 429) {
				const wait = this.rateLimitWait(response);
				if (wait !== undefined && rateLimitedMs + wait <= this.retry.maxRateLimitWaitMs) {
					rateLimitedMs += wait;
					if (call.paced) this.bucket?.pause(wait);
					await timing.sleep(wait);
					continue;
				}
			} else if (this.mayRetry(call.effect, response) && (await retryAfterFailure())) {
				mayHaveApplied = true;
				continue;
			}
			const error = serviceError(response.status, body, call.id);
			if (response.status >= 500 && call.effect === 'create') {
				throw new ChatMessagingError(`${error.message}. It may have taken effect: check before repeating it`, {
					kind: 'service',
					httpStatus: error.httpStatus,
					errorCode: error.errorCode,
					errors: error.errors,
					operation: call.id,
					responseText: error.responseText,
					mayHaveTakenEffect: true,
				});
			}
			throw error;
		}
	}

	/**
	 * How long to wait out a 429: Retry-After (or the back-off) plus up to 20 % jitter, so clients
	 * refused together do not come back together. Undefined when Retry-After is beyond the cap.
	 */
	private rateLimitWait(response: TransportResponse): number | undefined {
		const hinted = retryAfterMs(response, this.options.timing.now());
		if (hinted !== undefined && hinted > this.retry.maxRetryAfterMs) return undefined;
		const base = hinted ?? this.backoff(1) + this.retry.baseDelayMs;
		return Math.round(base * (1 + 0.2 * this.options.timing.random()));
	}

	/**
	 * Fetches the bytes behind a download link (a file's or an event attachment's short-lived URL).
	 * The token goes only to the service's own origin; a link elsewhere is fetched without it. Safe to
	 * retry; only requests to the service are paced.
	 */
	async download(url: string, known: { filename?: string; mimeType?: string } = {}): Promise<DownloadedFile> {
		return this.redacting(() => this.downloadUrl(url, known));
	}

	private async downloadUrl(url: string, known: { filename?: string; mimeType?: string }): Promise<DownloadedFile> {
		let target: URL;
		try {
			target = new URL(url);
		} catch {
			throw inputError('url', `must be an http(s) URL, got "${url}"`);
		}
		if (target.protocol !== 'http:' && target.protocol !== 'https:') throw inputError('url', `must be an http(s) URL, got "${url}"`);
		const ownOrigin = target.origin === new URL(this.baseUrl).origin;
		const request: TransportRequest = {
			method: 'GET',
			url: target.href,
			headers: { Accept: '*/*', ...(ownOrigin && this.options.token ? { Authorization: `Bearer ${this.options.token}` } : {}) },
			timeoutMs: this.options.timeoutMs ?? 30_000,
			responseType: 'bytes',
			authenticate: ownOrigin,
		};
		const response = await this.exchange(request, { id: 'file:download', effect: 'read', paced: ownOrigin });
		const data = response.body instanceof Uint8Array ? response.body : new TextEncoder().encode(String(response.body ?? ''));
		const fromPath = decodeURIComponent(target.pathname.split('/').pop() ?? '');
		return {
			data,
			filename: known.filename ?? (filenameOf(header(response, 'content-disposition')) || fromPath || 'download'),
			mimeType: known.mimeType ?? (header(response, 'content-type')?.split(';')[0].trim() || 'application/octet-stream'),
		};
	}

	/**
	 * Sends a message with an optional attachment: the bytes are uploaded (POST /files_upload) or the
	 * URL registered (POST /files) first, then the send carries the file's uid.
	 */
	async sendMessage(operation: string, input: Record<string, unknown>, attachment?: Attachment): Promise<Record<string, unknown>> {
		return this.redacting(() => this.sendWithAttachment(operation, input, attachment));
	}

	private async sendWithAttachment(
		operation: string,
		input: Record<string, unknown>,
		attachment?: Attachment,
	): Promise<Record<string, unknown>> {
		const op = findOperation(operation);
		if (!op.sendsMessage) throw new Error(`${operation} does not send a message`);
		if (!attachment) return this.sendResolvingDoubt(op, input);
		// Validate everything but the file before uploading, so bad input costs no upload.
		this.prepare(op, { ...input, file_uid: 'pending-upload' });
		const file = (
			'binary' in attachment
				? await this.run('file:upload', {
						file: attachment.binary,
						filename: attachment.binary.filename,
						content_type: attachment.binary.mimeType,
					})
				: await this.run('file:uploadFromUrl', {
						download_url: attachment.url,
						filename: attachment.filename,
						content_type: attachment.contentType,
					})
		) as Record<string, unknown>;
		const sent = await this.sendResolvingDoubt(op, { ...input, file_uid: file.uid });
		return { ...sent, file };
	}

	/**
	 * Sends once. When the answer is lost in a way that may hide a stored message (5xx, reset, time-out
	 * after the request was written), the chat's recent messages tell: found, it is reported sent with its
	 * uid (`recovered: true`); proven absent, it is sent once more, which is safe. Only when the service
	 * cannot tell (no way to find the chat, or several identical candidates) does "may have taken effect"
	 * remain. A message is never sent twice.
	 */
	private async sendResolvingDoubt(op: OperationDescriptor, input: Record<string, unknown>): Promise<Record<string, unknown>> {
		for (let attempt = 1; ; attempt++) {
			const startedAt = this.options.timing.now();
			try {
				return this.rememberSent((await this.call(op, input)) as Record<string, unknown>);
			} catch (error) {
				if (!(error instanceof ChatMessagingError) || !error.mayHaveTakenEffect || this.options.resolveDoubtfulSends === false) throw error;
				// Let a request still in progress on the service finish before looking for its message.
				await this.options.timing.sleep(this.retry.sendSettleMs);
				const found = await this.findSentMessage(op, input, startedAt).catch(() => undefined);
				if (found === undefined) throw error;
				if (found.message) {
					const message = found.message;
					return this.rememberSent({
						message_uid: message.uid,
						chat_id: message.chat_id ?? found.chatId,
						status: message.status,
						recovered: true,
					});
				}
				if (attempt >= 2) throw error; // absent twice: report, do not loop
			}
		}
	}

	/** uids of messages this executor sent, so an older identical message is never taken for a lost one. */
	private readonly sentUids = new Set<string>();

	private rememberSent(sent: Record<string, unknown>): Record<string, unknown> {
		if (typeof sent.message_uid === 'string') {
			this.sentUids.add(sent.message_uid);
			if (this.sentUids.size > 1000) this.sentUids.delete(this.sentUids.values().next().value as string);
		}
		return sent;
	}

	/**
	 * Looks for the message a send in doubt may have stored: in the chat it went to (by chat id, exact
	 * `+phone`, exact name, or the phone of a contact JID), among the workspace's own messages since a
	 * minute before the send, the one with the same text and attachment this executor has not sent
	 * before. Undefined when the service cannot tell (a group JID: the chat list has no JID filter;
	 * several chats or candidates).
	 */
	private async findSentMessage(
		op: OperationDescriptor,
		input: Record<string, unknown>,
		startedAt: number,
	): Promise<{ chatId?: unknown; message?: Record<string, unknown> } | undefined> {
		const chats = await this.chatsOfSend(op, input);
		if (chats === undefined || chats.length > 1) return undefined;
		if (chats.length === 0) return {}; // no chat: a send would have created one, so nothing was stored
		const chatId = chats[0];
		const after = new Date(startedAt - 60_000).toISOString();
		const recent = (await this.run(
			'message:getAll',
			{ chat_id: chatId, from_me: true, after },
			{ returnAll: false, limit: 100 },
		)) as unknown[];
		const text = typeof input.text === 'string' ? input.text : '';
		const withFile = !isBlank(input.file_uid);
		const candidates = recent.filter(
			(item): item is Record<string, unknown> =>
				isRecord(item) &&
				typeof item.uid === 'string' &&
				!this.sentUids.has(item.uid) &&
				item.from_me !== false &&
				String(item.text ?? '') === text &&
				(!withFile || item.has_attachment === true),
		);
		if (candidates.length > 1) return undefined;
		return { chatId, message: candidates[0] };
	}

	/** The chats a send addresses: ids, [] when none exists, undefined when the service cannot tell. */
	private async chatsOfSend(op: OperationDescriptor, input: Record<string, unknown>): Promise<unknown[] | undefined> {
		const list = async (filter: Record<string, unknown>) =>
			(await this.run('chat:getAll', filter, { returnAll: false, limit: 50 })) as Array<Record<string, unknown>>;
		const account = typeof input.chatapp_account_id === 'string' && input.chatapp_account_id ? input.chatapp_account_id : undefined;
		const onAccount = (chats: Array<Record<string, unknown>>) =>
			account ? chats.filter((chat) => chat.chatapp_account_id === account) : chats;
		const byPhone = async (phone: string) =>
			onAccount((await list({ phone: `+${phone.replace(/^\+/, '')}` })).filter((chat) => chat.is_group !== true));
		if (!isBlank(input.chat_id) && op.fields.some((field) => field.name === 'chat_id')) return [Number(input.chat_id)];
		if (typeof input.phone === 'string' || typeof input.phone === 'number')
			return (await byPhone(String(input.phone).trim())).map((chat) => chat.id);
		if (typeof input.chat_name === 'string' && op.fields.some((field) => field.name === 'chat_name' && field.required)) {
			const name = input.chat_name.trim().toLowerCase();
			return (await list({ name: input.chat_name.trim() }))
				.filter((chat) => String(chat.name ?? '').toLowerCase() === name)
				.map((chat) => chat.id);
		}
		if (typeof input.jid === 'string') {
			const jid = input.jid.trim();
			const [id, server] = jid.split('@');
			if (server !== 'c.us' || !/^\d+$/.test(id ?? '')) return undefined; // a group or channel: no way to find it by JID
			return (await byPhone(id)).filter((chat) => chat.jid === jid).map((chat) => chat.id);
		}
		return undefined;
	}

	/**
	 * Sends (see sendMessage), then, when asked, waits for the message to reach a status: the one
	 * send-then-wait both platforms run. `onWaiting` lets a platform show that it waits.
	 */
	async sendAndWait(
		operation: string,
		input: Record<string, unknown>,
		options: { attachment?: Attachment; waitFor?: WaitTarget; timeoutMs?: number; onWaiting?: (target: WaitTarget) => void } = {},
	): Promise<Record<string, unknown>> {
		const sent = await this.sendMessage(operation, input, options.attachment);
		if (!options.waitFor) return sent;
		options.onWaiting?.(options.waitFor);
		const message = await this.waitForStatus(String(sent.message_uid), options.waitFor, {
			timeoutMs: options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_S * 1000,
		});
		return { ...sent, status: message.status, message };
	}

	/**
	 * Polls GET /messages/{uid} until the message reaches `target` (or a later status), fails, or the
	 * time runs out. Returns the message record; a failed message or a time-out is an error.
	 */
	async waitForStatus(
		messageUid: string,
		target: WaitTarget,
		waitOptions: { timeoutMs: number; intervalMs?: number },
	): Promise<Record<string, unknown>> {
		return this.redacting(() => this.pollStatus(messageUid, target, waitOptions));
	}

	private async pollStatus(
		messageUid: string,
		target: WaitTarget,
		waitOptions: { timeoutMs: number; intervalMs?: number },
	): Promise<Record<string, unknown>> {
		if (!(target in STATUS_RANK)) throw inputError('waitFor', `must be sent, delivered or read, got "${target}"`, 'Wait For');
		const deadline = this.options.timing.now() + waitOptions.timeoutMs;
		const interval = Math.max(100, waitOptions.intervalMs ?? statusPollInterval(waitOptions.timeoutMs));
		for (;;) {
			const message = (await this.run('message:get', { message_uid: messageUid })) as Record<string, unknown>;
			const status = String(message?.status ?? '');
			if (status === 'failed') {
				throw new ChatMessagingError(`Message ${messageUid} failed to send (its credits are restored)`, {
					kind: 'service',
					errorCode: 'message_failed',
					operation: 'message:get',
				});
			}
			if ((STATUS_RANK[status] ?? -1) >= STATUS_RANK[target]) return message;
			const left = deadline - this.options.timing.now();
			if (left <= 0) {
				throw new ChatMessagingError(
					`Message ${messageUid} did not reach "${target}" in ${waitOptions.timeoutMs} ms (last status: ${status || 'unknown'})`,
					{
						kind: 'timeout',
						operation: 'message:get',
					},
				);
			}
			await this.options.timing.sleep(Math.min(interval, left));
		}
	}
}
