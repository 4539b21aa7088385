/**
 * What a long wait (a reply, a message status) tells the platform running it while it waits, and how it
 * pauses between two looks: in parts, with a report after each, so a caller that gives up on a silent call
 * (an MCP client after 60 s without a progress notification) keeps waiting, and a cancelled wait ends at
 * the next part instead of after the whole pause.
 */
import type { Timing } from '../catalogue/types';

/** How a wait goes. */
export interface WaitProgress {
	/** What is awaited: the customer's reply, or a status of the sent message. */
	awaiting: 'reply' | 'sent' | 'delivered' | 'read';
	/** The sent message waited on. */
	message_uid: string;
	/** Time waited so far, and the most the wait takes. */
	elapsedMs: number;
	timeoutMs: number;
	/** Looks so far (each one a read of the chat's messages or of the message). */
	looks: number;
}

/** What a platform may pass to a wait: a report of its progress, and a way to stop it. */
export interface WaitReporting {
	/** Called after each look and, during a long pause, at least every `reportEveryMs`. */
	onProgress?: (progress: WaitProgress) => void;
	/** The longest silence between two reports (default WAIT_REPORT_EVERY_MS). */
	reportEveryMs?: number;
	/** Stops the wait early (a node closing, a call cancelled); checked between looks and between parts of a pause. */
	cancelled?: () => boolean;
}

/** A report at least every 10 s: well inside the 60 s an MCP client waits for a sign of life by default. */
export const WAIT_REPORT_EVERY_MS = 10_000;

/**
 * Pauses `ms` before the next look. With a reporter, in parts of at most `reportEveryMs`, reporting after
 * each part but the last (the look that follows reports); without one, in one sleep. Returns early once
 * `cancelled` says so.
 */
export async function pauseBetweenLooks(timing: Timing, ms: number, reporting: WaitReporting, report: () => void): Promise<void> {
	const every = Math.max(100, reporting.reportEveryMs ?? WAIT_REPORT_EVERY_MS);
	const until = timing.now() + ms;
	for (;;) {
		if (reporting.cancelled?.()) return;
		const left = until - timing.now();
		if (left <= 0) return;
		await timing.sleep(reporting.onProgress ? Math.min(left, every) : left);
		if (reporting.onProgress && until - timing.now() > 0 && !reporting.cancelled?.()) report();
	}
}
