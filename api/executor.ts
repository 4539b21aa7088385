/**
 * The one executor both platforms drive: validates input, sends through an injected transport with
 * injected timing, unwraps `{status: "ok", data}`, maps errors, retries only what cannot duplicate an
 * effect, paces itself under the service's rate and pages through lists.
 */
import { findOperation, operationId } from './catalogue';
import { ChatMessagingError, inputError, serviceError, toTransportFailure, type TransportFailure } from './errors';
import { SERVICE_RATE_LIMIT, TokenBucket, type RateLimit } from './pacing';
import { encodeMultipart, isRecord, prepareRequest, type PreparedRequest } from './validation';
import type { BinaryInput, OperationDescriptor, Timing, Transport, TransportRequest, TransportResponse } from './types';

export interface RetryPolicy {
	/** Attempts in total, the first included. */
	maxAttempts: number;
	/** First back-off; doubles each retry, with full jitter. */
	baseDelayMs: number;
	maxDelayMs: number;
	/** Longest `Retry-After` honoured; a longer one fails the call instead of stalling it. */
	maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 10_000, maxRetryAfterMs: 60_000 };

export interface ExecutorOptions {
	baseUrl: string;
	transport: Transport;
	timing: Timing;
	/** Adds `Authorization: Bearer` itself; leave out when the transport authenticates (n8n). */
	token?: string;
	retry?: Partial<RetryPolicy>;
	/** Client-side pacing; `false` turns it off. */
	rateLimit?: RateLimit | false;
	/** Pages fetched at once when walking a list; 1 walks sequentially. */
	pageConcurrency?: number;
	timeoutMs?: number;
}

export interface RunOptions {
	/** For paginated operations: fetch every page (default) or stop at `limit` items. */
	returnAll?: boolean;
	limit?: number;
}

/** An attachment for a send: bytes to upload, or a public URL the service downloads. */
export type Attachment = { binary: BinaryInput } | { url: string; filename?: string; contentType?: string };

export type WaitTarget = 'sent' | 'delivered' | 'read';
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
		throw inputError('baseUrl', `must be an http(s) URL such as https://api.example.com, got "${baseUrl}"`);
	return trimmed;
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

	constructor(private readonly options: ExecutorOptions) {
		this.baseUrl = normalizeBaseUrl(options.baseUrl);
		this.retry = { ...DEFAULT_RETRY, ...options.retry };
		const rate = options.rateLimit === undefined ? SERVICE_RATE_LIMIT : options.rateLimit;
		if (rate) this.bucket = new TokenBucket(rate, options.timing);
		this.pageConcurrency = Math.max(1, Math.floor(options.pageConcurrency ?? 4));
	}

	/**
	 * Runs one catalogue operation. Paginated operations return all items (or up to `limit`) unless
	 * the input names a `page`; read-modify-write operations read first.
	 */
	async run(operation: string | OperationDescriptor, input: Record<string, unknown> = {}, runOptions: RunOptions = {}): Promise<unknown> {
		const op = typeof operation === 'string' ? findOperation(operation) : operation;
		if (op.readModifyWrite) {
			prepareRequest(op, input); // validate the caller's input before the read
			const current = await this.run(op.readModifyWrite.read, input);
			return this.call(findOperation(op.readModifyWrite.write), op.readModifyWrite.combine(input, current));
		}
		if (op.pagination && (input.page === undefined || input.page === null || input.page === '')) {
			const limit = runOptions.returnAll === false ? (runOptions.limit ?? 50) : undefined;
			if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
				throw inputError('limit', `must be a whole number of at least 1, got ${limit}`);
			return this.paginate(op, op.pagination.itemsKey, input, limit);
		}
		return this.call(op, input);
	}

	/** One validated request (retries included); returns the unwrapped data. */
	async call(op: OperationDescriptor, input: Record<string, unknown>): Promise<unknown> {
		const prepared = prepareRequest(op, input);
		const data = await this.send(op, prepared);
		return this.unwrap(op, data);
	}

	private unwrap(op: OperationDescriptor, data: unknown): unknown {
		if (!op.unwrap || op.pagination) return data;
		if (Array.isArray(data)) return data;
		return isRecord(data) && op.unwrap in data ? data[op.unwrap] : data;
	}

	/** Walks `has_more_pages` with bounded concurrency; items come in sequential-walk order. */
	private async paginate(op: OperationDescriptor, itemsKey: string, input: Record<string, unknown>, limit?: number): Promise<unknown[]> {
		prepareRequest(op, input); // a bad filter fails before the first page is asked for
		const fetchPage = async (page: number) => {
			const data = await this.call(op, { ...input, page });
			const items = isRecord(data) && Array.isArray(data[itemsKey]) ? (data[itemsKey] as unknown[]) : [];
			return { items, hasMore: isRecord(data) && data.has_more_pages === true };
		};
		const enough = (count: number) => limit !== undefined && count >= limit;
		const first = await fetchPage(1);
		const items = [...first.items];
		let more = first.hasMore && first.items.length > 0 && !enough(items.length);
		const pageSize = first.items.length;
		let next = 2;
		while (more) {
			const needed = limit === undefined ? this.pageConcurrency : Math.ceil((limit - items.length) / pageSize);
			const batch = Math.max(1, Math.min(this.pageConcurrency, needed));
			const pages = await Promise.all(Array.from({ length: batch }, (_, index) => fetchPage(next + index)));
			next += batch;
			for (const page of pages) {
				items.push(...page.items);
				// An empty page that claims more would loop forever; a sequential walk stops there too.
				if (!page.hasMore || page.items.length === 0 || enough(items.length)) {
					more = false;
					break;
				}
			}
		}
		return limit === undefined ? items : items.slice(0, limit);
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
	private mayRetry(op: OperationDescriptor, outcome: { status: number } | TransportFailure): boolean {
		if ('status' in outcome) {
			if (outcome.status === 429) return true; // rate-limited requests were not processed
			return outcome.status >= 500 && op.effect !== 'create'; // a 5xx send may have gone through
		}
		return op.effect !== 'create' || !outcome.requestSent;
	}

	private backoff(attempt: number): number {
		const ceiling = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
		return Math.round(this.options.timing.random() * ceiling);
	}

	private async send(op: OperationDescriptor, prepared: PreparedRequest): Promise<unknown> {
		const request = this.buildRequest(op, prepared);
		const id = operationId(op);
		for (let attempt = 1; ; attempt++) {
			await this.bucket?.take();
			let response: TransportResponse;
			try {
				response = await this.options.transport(request);
			} catch (error) {
				const failure = toTransportFailure(error);
				if (attempt < this.retry.maxAttempts && this.mayRetry(op, failure)) {
					await this.options.timing.sleep(this.backoff(attempt));
					continue;
				}
				const hint = !failure.requestSent
					? ` (is ${this.baseUrl} reachable?)`
					: op.effect === 'create'
						? '. It may have taken effect: check before repeating it'
						: '';
				throw new ChatMessagingError(`Could not reach the service: ${failure.message}${hint}`, {
					kind: 'network',
					networkCode: failure.code,
					operation: id,
				});
			}
			const body = response.body;
			const ok = response.status >= 200 && response.status < 300 && !(isRecord(body) && body.status === 'error');
			if (ok) {
				if (isRecord(body) && 'data' in body) return body.data;
				return body === '' ? null : body;
			}
			if (attempt < this.retry.maxAttempts && this.mayRetry(op, response)) {
				const hinted = retryAfterMs(response, this.options.timing.now());
				if (hinted === undefined || hinted <= this.retry.maxRetryAfterMs) {
					await this.options.timing.sleep(hinted ?? this.backoff(attempt));
					continue;
				}
			}
			const error = serviceError(response.status, body, id);
			if (response.status >= 500 && op.effect === 'create') {
				error.message += '. It may have taken effect: check before repeating it';
			}
			throw error;
		}
	}

	/**
	 * Sends a message with an optional attachment: the bytes are uploaded (POST /files_upload) or the
	 * URL registered (POST /files) first, then the send carries the file's uid.
	 */
	async sendMessage(operation: string, input: Record<string, unknown>, attachment?: Attachment): Promise<Record<string, unknown>> {
		const op = findOperation(operation);
		if (!op.sendsMessage) throw new Error(`${operation} does not send a message`);
		if (!attachment) return (await this.call(op, input)) as Record<string, unknown>;
		// Validate everything but the file before uploading, so bad input costs no upload.
		prepareRequest(op, { ...input, file_uid: 'pending-upload' });
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
		const sent = (await this.call(op, { ...input, file_uid: file.uid })) as Record<string, unknown>;
		return { ...sent, file };
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
		if (!(target in STATUS_RANK)) throw inputError('waitFor', `must be sent, delivered or read, got "${target}"`);
		const deadline = this.options.timing.now() + waitOptions.timeoutMs;
		const interval = Math.max(100, waitOptions.intervalMs ?? 2000);
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
