/**
 * A long wait as the client follows it: progress notifications for a call that carries a progressToken (clients
 * give up on a call after 60 s of silence unless progress resets their time-out), and pauses that end as soon as
 * the call is cancelled, so a wait stops at once, not after its pause.
 */
import type { Timing, WaitProgress } from '@chat-messaging/core';

export interface ProgressNotification {
	method: 'notifications/progress';
	params: { progressToken: string | number; progress: number; total: number; message: string };
}

const seconds = (ms: number) => Math.round(ms / 1000);

/** What a wait is at, in words. */
function progressMessage(progress: WaitProgress): string {
	const what =
		progress.awaiting === 'reply'
			? `Waiting for the customer's reply to message ${progress.message_uid}`
			: `Waiting for message ${progress.message_uid} to be ${progress.awaiting}`;
	return `${what}: ${seconds(progress.elapsedMs)} s of at most ${seconds(progress.timeoutMs)} s, ${progress.looks} ${progress.looks === 1 ? 'look' : 'looks'}`;
}

/** Progress notifications for a call with a progressToken (none without): the time waited out of the wait's time-out, in ms. */
export function progressReporter(
	token: string | number | undefined,
	send: (notification: ProgressNotification) => Promise<void>,
): ((progress: WaitProgress) => void) | undefined {
	if (token === undefined) return undefined;
	let last = -1;
	return (progress) => {
		// The protocol wants the value to grow with every notification.
		last = Math.max(last + 1, progress.elapsedMs);
		send({
			method: 'notifications/progress',
			params: { progressToken: token, progress: last, total: progress.timeoutMs, message: progressMessage(progress) },
		}).catch(() => undefined);
	};
}

/** The executor's time with pauses that end as soon as the call is cancelled. */
export function cancellable(timing: Timing, signal: AbortSignal): Timing {
	return {
		now: () => timing.now(),
		random: () => timing.random(),
		sleep: (ms) =>
			signal.aborted
				? Promise.resolve()
				: new Promise<void>((resolve) => {
						const done = () => {
							clearTimeout(timer);
							signal.removeEventListener('abort', done);
							resolve();
						};
						const timer = setTimeout(done, ms);
						signal.addEventListener('abort', done, { once: true });
					}),
	};
}
