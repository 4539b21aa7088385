/**
 * The HTTP exchange with the service: builds a request from a prepared operation (JSON or multipart
 * body, bearer token), sends it through the injected transport under pacing, waits out 429s, retries
 * only what cannot duplicate an effect, maps failures to errors and unwraps `{status: "ok", data}`.
 * Also fetches the bytes behind a download link.
 */
import { operationId } from '../../catalogue/endpoints';
import { FIELD_KINDS, isHttpUrl } from '../../catalogue/fields';
import type {
	DownloadedFile,
	Effect,
	OperationDescriptor,
	Timing,
	Transport,
	TransportRequest,
	TransportResponse,
} from '../../catalogue/types';
import { ChatMessagingError, inputError, notFoundNamingIds, serviceError, toTransportFailure } from '../errors';
import type { TokenBucket } from '../pacing';
import { isRecord, type PreparedRequest } from '../validation';
import { encodeMultipart } from './multipart';
import { filenameOf, header } from './headers';
import { backoff, isRateLimited, mayRetry, rateLimitWait, type RetryPolicy } from './retry';

export interface HttpExchangeOptions {
	/** Already normalized (normalizeBaseUrl). */
	baseUrl: string;
	transport: Transport;
	timing: Timing;
	/** Adds `Authorization: Bearer` itself; leave out when the transport authenticates (n8n). */
	token?: string;
	retry: RetryPolicy;
	/** Client-side pacing shared by every request of this exchange; none when undefined. */
	bucket?: TokenBucket;
	timeoutMs?: number;
}

/** What the retry rules need to know about one call. */
export interface CallInfo {
	id: string;
	effect: Effect;
	paced: boolean;
	/** Epoch ms: failures are retried until then instead of `maxAttempts` times. */
	deadline?: number;
}

/** The ids a request's path holds, by their field names (`/chats/{chat_id}` sent as `/chats/42`: chat_id 42). */
function pathIds(op: OperationDescriptor, prepared: PreparedRequest): Array<[string, string]> {
	const names: string[] = [];
	const pattern = op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, name: string) => {
		names.push(name);
		return '([^/]+)';
	});
	const match = new RegExp(`^${pattern}$`).exec(prepared.path);
	if (!match) return [];
	return names.map((name, index) => [name, decodeURIComponent(match[index + 1] ?? '')]);
}

export class HttpExchange {
	constructor(private readonly options: HttpExchangeOptions) {}

	get baseUrl(): string {
		return this.options.baseUrl;
	}

	/** One operation's request, answered: the `data` of the service's envelope (or the body itself). */
	async send(op: OperationDescriptor, prepared: PreparedRequest, deadline?: number): Promise<unknown> {
		let response: TransportResponse;
		try {
			response = await this.exchange(this.buildRequest(op, prepared), { id: operationId(op), effect: op.effect, paced: true, deadline });
		} catch (error) {
			// A list's 404 is its "nothing here" (the pager's to read), not a missing record.
			if (error instanceof ChatMessagingError && !op.pagination) throw notFoundNamingIds(error, pathIds(op, prepared));
			throw error;
		}
		const body = response.body;
		if (isRecord(body) && 'data' in body) return body.data;
		return body === '' ? null : body;
	}

	buildRequest(op: OperationDescriptor, prepared: PreparedRequest): TransportRequest {
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

	/**
	 * One request through pacing and the retry rules; resolves with a success response, or throws
	 * the mapped error. A service answer of `{status: "error"}` is an error whatever its status.
	 * - A 429 was not processed: it is waited out (Retry-After plus jitter) without using up an attempt, up
	 *   to `maxRateLimitWaitMs` in total, and it lowers the pace of everyone sharing the pacer; when the pace
	 *   cannot go lower (fixed, or at its minimum), everyone sharing the pacer waits the Retry-After too.
	 * - Other failures are retried when `mayRetry` allows, up to `maxAttempts`, or until `deadline`.
	 * - A DELETE answered 404 after an attempt that may have gone through has done its work.
	 */
	async exchange(request: TransportRequest, call: CallInfo): Promise<TransportResponse> {
		const { timing, retry, bucket } = this.options;
		let failures = 0;
		let rateLimitedMs = 0;
		let mayHaveApplied = false;
		const retryAfterFailure = async (): Promise<boolean> => {
			failures++;
			const delay = backoff(retry, timing, failures);
			const allowed =
				call.deadline === undefined
					? failures < retry.maxAttempts
					: failures < retry.listPageAttempts && timing.now() + delay < call.deadline;
			if (allowed) await timing.sleep(delay);
			return allowed;
		};
		for (;;) {
			if (call.paced) await bucket?.take();
			let response: TransportResponse;
			try {
				response = await this.options.transport(request);
			} catch (error) {
				const failure = toTransportFailure(error);
				if (mayRetry(call.effect, failure) && (await retryAfterFailure())) {
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
			const rateLimited = isRateLimited(response);
			// A refusal slows this client down; one it cannot slow down for holds all of it back (below).
			let slowedDown = false;
			if (call.paced && bucket) {
				if (rateLimited) slowedDown = bucket.refused();
				else bucket.answered();
			}
			const ok = response.status >= 200 && response.status < 300 && !(isRecord(body) && body.status === 'error');
			if (ok) return response;
			if (response.status === 404 && mayHaveApplied && request.method === 'DELETE') {
				return { status: 200, headers: response.headers, body: { status: 'ok', data: null } };
			}
			if (rateLimited) {
				const wait = rateLimitWait(retry, timing, response);
				if (wait !== undefined && rateLimitedMs + wait <= retry.maxRateLimitWaitMs) {
					rateLimitedMs += wait;
					if (call.paced && !slowedDown) bucket?.pause(wait);
					await timing.sleep(wait);
					continue;
				}
			} else if (mayRetry(call.effect, response) && (await retryAfterFailure())) {
				mayHaveApplied = true;
				continue;
			}
			const error = serviceError(response.status, body, call.id);
			if (response.status >= 500 && call.effect === 'create') {
				throw error.with(`${error.message}. It may have taken effect: check before repeating it`, { mayHaveTakenEffect: true });
			}
			throw error;
		}
	}

	/**
	 * Fetches the bytes behind a download link (a file's or an event attachment's short-lived URL).
	 * The token goes only to the service's own origin; a link elsewhere is fetched without it. Safe to
	 * retry; only requests to the service are paced.
	 */
	async download(url: string, known: { filename?: string; mimeType?: string }): Promise<DownloadedFile> {
		if (!isHttpUrl(url)) throw inputError('url', `${FIELD_KINDS.url.message}, got "${url}"`);
		const target = new URL(url);
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
}
