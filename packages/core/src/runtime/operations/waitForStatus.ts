/** Waiting for a sent message to reach a status (sent, delivered, read) by polling GET /messages/{uid}. */
import { statusPollInterval, WAIT_TARGETS } from '../../catalogue/defaults';
import { ChatMessagingError, inputError } from '../errors';
import type { Timing } from '../../catalogue/types';
import { pauseBetweenLooks, type WaitReporting } from '../waiting';
import type { OperationRunner } from './runner';

export type WaitTarget = (typeof WAIT_TARGETS)[number];
const STATUS_RANK: Record<string, number> = { queued: 0, sent: 1, delivered: 2, read: 3 };

export interface StatusWaitOptions extends WaitReporting {
	timeoutMs: number;
	intervalMs?: number;
	/** Timing of the wait (a platform whose pauses end early when the call is cancelled); the runner's by default. */
	timing?: Timing;
}

/**
 * Polls until the message reaches `target` (or a later status), fails, or the time runs out. Returns
 * the message record; a failed message or a time-out is an error.
 */
export async function pollStatus(
	runner: OperationRunner,
	messageUid: string,
	target: WaitTarget,
	waitOptions: StatusWaitOptions,
): Promise<Record<string, unknown>> {
	if (!(target in STATUS_RANK)) throw inputError('waitFor', `must be sent, delivered or read, got "${target}"`, 'Wait For');
	const timing = waitOptions.timing ?? runner.timing;
	const startedAt = timing.now();
	const deadline = startedAt + waitOptions.timeoutMs;
	const interval = Math.max(100, waitOptions.intervalMs ?? statusPollInterval(waitOptions.timeoutMs));
	let looks = 0;
	const report = () =>
		waitOptions.onProgress?.({
			awaiting: target,
			message_uid: messageUid,
			elapsedMs: timing.now() - startedAt,
			timeoutMs: waitOptions.timeoutMs,
			looks,
		});
	for (;;) {
		if (waitOptions.cancelled?.()) throw waitCancelled(messageUid, target);
		const message = (await runner.run('message:get', { message_uid: messageUid })) as Record<string, unknown>;
		looks++;
		const status = String(message?.status ?? '');
		if (status === 'failed') {
			throw new ChatMessagingError(`Message ${messageUid} failed to send (its credits are restored)`, {
				kind: 'service',
				errorCode: 'message_failed',
				operation: 'message:get',
			});
		}
		if ((STATUS_RANK[status] ?? -1) >= STATUS_RANK[target]) return message;
		const left = deadline - timing.now();
		if (left <= 0) {
			throw new ChatMessagingError(
				`Message ${messageUid} did not reach "${target}" in ${waitOptions.timeoutMs} ms (last status: ${status || 'unknown'})`,
				{
					kind: 'timeout',
					operation: 'message:get',
				},
			);
		}
		report();
		await pauseBetweenLooks(timing, Math.min(interval, left), waitOptions, report);
	}
}

/** A status wait stopped by its caller: the message was sent, its status is unknown. */
function waitCancelled(messageUid: string, target: WaitTarget): ChatMessagingError {
	return new ChatMessagingError(`Stopped waiting for message ${messageUid} to reach "${target}": the message was sent`, {
		kind: 'timeout',
		errorCode: 'wait_cancelled',
		operation: 'message:get',
	});
}
