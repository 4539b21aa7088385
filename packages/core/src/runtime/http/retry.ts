/**
 * When a failed request may be repeated, and how long to wait first: back-off with full jitter for
 * failures, Retry-After plus jitter for 429s.
 */
import type { Effect, Timing, TransportResponse } from '../../catalogue/types';
import type { TransportFailure } from '../errors';
import { retryAfterMs } from './headers';

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

/** Whether a failed attempt may be repeated without risking a second effect. */
export function mayRetry(effect: Effect, outcome: { status: number } | TransportFailure): boolean {
	if ('status' in outcome) {
		if (outcome.status === 429) return true; // rate-limited requests were not processed
		return outcome.status >= 500 && effect !== 'create'; // a 5xx send may have gone through
	}
	return effect !== 'create' || !outcome.requestSent;
}

export function backoff(retry: RetryPolicy, timing: Timing, attempt: number): number {
	const ceiling = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));
	return Math.round(timing.random() * ceiling);
}

/**
 * Whether the service refused the request for its rate: a 429, or its `rate_limit_exceeded` code in whatever status
 * it comes (the spec names the code without tying it to a status). Either way the request was not processed.
 */
export function isRateLimited(response: Pick<TransportResponse, 'status' | 'body'>): boolean {
	if (response.status === 429) return true;
	const body = response.body as { error_code?: unknown } | null | undefined;
	return typeof body === 'object' && body !== null && !Array.isArray(body) && body.error_code === 'rate_limit_exceeded';
}

/**
 * How long to wait out a 429: Retry-After (or the back-off) plus up to 20 % jitter, so clients
 * refused together do not come back together. Undefined when Retry-After is beyond the cap.
 */
export function rateLimitWait(retry: RetryPolicy, timing: Timing, response: TransportResponse): number | undefined {
	const hinted = retryAfterMs(response, timing.now());
	if (hinted !== undefined && hinted > retry.maxRetryAfterMs) return undefined;
	const base = hinted ?? backoff(retry, timing, 1) + retry.baseDelayMs;
	return Math.round(base * (1 + 0.2 * timing.random()));
}
