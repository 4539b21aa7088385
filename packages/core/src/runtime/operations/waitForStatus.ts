/** Waiting for a sent message to reach a status (sent, delivered, read) by polling GET /messages/{uid}. */
import { statusPollInterval, WAIT_TARGETS } from '../../catalogue/defaults';
import { ChatMessagingError, inputError } from '../errors';
import type { OperationRunner } from './runner';

export type WaitTarget = (typeof WAIT_TARGETS)[number];
const STATUS_RANK: Record<string, number> = { queued: 0, sent: 1, delivered: 2, read: 3 };

/**
 * Polls until the message reaches `target` (or a later status), fails, or the time runs out. Returns
 * the message record; a failed message or a time-out is an error.
 */
export async function pollStatus(
	runner: OperationRunner,
	messageUid: string,
	target: WaitTarget,
	waitOptions: { timeoutMs: number; intervalMs?: number },
): Promise<Record<string, unknown>> {
	if (!(target in STATUS_RANK)) throw inputError('waitFor', `must be sent, delivered or read, got "${target}"`, 'Wait For');
	const timing = runner.timing;
	const deadline = timing.now() + waitOptions.timeoutMs;
	const interval = Math.max(100, waitOptions.intervalMs ?? statusPollInterval(waitOptions.timeoutMs));
	for (;;) {
		const message = (await runner.run('message:get', { message_uid: messageUid })) as Record<string, unknown>;
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
		await timing.sleep(Math.min(interval, left));
	}
}
