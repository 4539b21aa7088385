/**
 * How Wait for Customer to Finish Typing ends on time. n8n resumes a timed wait only when its wait tracker looks
 * (once a minute, for waits ending within the next 70 s), so a wait of a few seconds ended 30 to 90 s late. The
 * wait therefore has two parts:
 *
 * - in this process: when the quiet time is up, the process that put the execution to wait calls the execution's
 *   resume URL (n8n 2.x signs it with the execution's own token), and n8n resumes it at once through the node's
 *   waiting webhook, with the items the node was given; n8n claims a waiting execution once, so this call and
 *   n8n's own resume never both run it;
 * - in n8n's database: the execution's timed wait ends FALLBACK_AFTER_SECONDS after the quiet time, for when that
 *   call never comes (n8n stopped or restarted during the wait, or cannot reach its own webhook URL). Nothing is
 *   kept only in memory: a lost call makes the answer late, never lost or doubled.
 *
 * A quiet time of TRACKED_WAIT_SECONDS or more needs neither part: n8n's timed wait ends on time by itself.
 *
 * The call only makes the execution go on sooner: the webhook takes nothing from the request, and Get Burst to
 * Answer decides from the chat as the service holds it. Timers are n8n-workflow's `sleep` (nodes may not set their own).
 */
import type { IExecuteFunctions, INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { n8nTiming } from '../../../../shared/transport';

/**
 * How long after the quiet time n8n's own timed wait ends. Over 70 s: n8n's wait tracker schedules only waits that
 * end within 70 s of its look, so it never schedules one that the call resumes first; a later wait of the same
 * execution (another node) can then not be ended early by a timer left from this one.
 */
export const FALLBACK_AFTER_SECONDS = 90;

/**
 * From this long on, n8n's wait tracker (a look every 60 s at the waits ending within 70 s) always schedules the
 * wait's end before it comes, so the timed wait alone ends on time, as n8n's own Wait node relies on.
 */
export const TRACKED_WAIT_SECONDS = 65;

/** Tries of the call while n8n is still saving the execution as waiting, or cannot be reached; a second apart. */
const CALL_TRIES = 8;

/** The execution's resume URL for this node: n8n routes it to the node's waiting webhook (path: the node's id). */
function resumeUrl(context: IExecuteFunctions): string | undefined {
	const url = String(context.getWorkflowDataProxy(0).$execution.resumeUrl ?? '');
	try {
		const parsed = new URL(url);
		parsed.pathname = `${parsed.pathname.replace(/\/+$/, '')}/${encodeURIComponent(context.getNode().id)}`;
		return parsed.toString();
	} catch {
		return undefined;
	}
}

/** Whether an answer of n8n's waiting webhook says the execution is not saved as waiting yet (worth another try). */
const stillRunning = (status: number, body: unknown): boolean => status === 409 && /running/i.test(JSON.stringify(body ?? ''));

/** Calls the resume URL once the quiet time is up; the caller does not wait for it (the execution is saved as waiting first). */
export function resumeWhenQuiet(context: IExecuteFunctions, quietUntil: number): void {
	const url = resumeUrl(context);
	if (!url) {
		context.logger.warn('Chat Messaging: n8n gave this execution no resume URL; it goes on when its timed wait ends');
		return;
	}
	void (async () => {
		await n8nTiming.sleep(Math.max(0, quietUntil - n8nTiming.now()));
		let problem = '';
		for (let attempt = 1; attempt <= CALL_TRIES; attempt++) {
			try {
				const answer = (await context.helpers.httpRequest({
					method: 'POST',
					url,
					body: {},
					json: true,
					returnFullResponse: true,
					ignoreHttpStatusErrors: true,
					timeout: 10_000,
				})) as { statusCode: number; body: unknown };
				if (!stillRunning(answer.statusCode, answer.body)) {
					if (answer.statusCode < 300 || answer.statusCode === 409) return; // resumed now, or by n8n already
					problem = `HTTP ${answer.statusCode}`;
					break;
				}
				problem = 'the execution was not saved as waiting yet';
			} catch (error) {
				problem = (error as Error).message;
			}
			if (attempt < CALL_TRIES) await n8nTiming.sleep(1000);
		}
		context.logger.warn(
			`Chat Messaging: could not resume the waiting execution when the customer went quiet (${problem}); n8n resumes it ${FALLBACK_AFTER_SECONDS} s later`,
		);
	})().catch(() => undefined);
}

/**
 * The call at the resume URL: the execution goes on with the items the node was given (as n8n passes them on when a
 * timed wait ends). Anything unexpected leaves it waiting for its timed end.
 */
export function wakeWebhook(context: IWebhookFunctions): IWebhookResponseData {
	const given: unknown = context.evaluateExpression('{{ $input.all() }}');
	if (!Array.isArray(given)) return { webhookResponse: { status: 'ok', ignored: 'no items to go on with' } };
	const items = (given as INodeExecutionData[]).map((item, index): INodeExecutionData => ({
		json: { ...item.json },
		...(item.binary ? { binary: item.binary } : {}),
		pairedItem: { item: index },
	}));
	return { workflowData: [items] };
}
