/**
 * The links of one wait of Send and Wait for Response, kept with the execution by execute() and read
 * back by the links' webhook.
 */
import { randomBytes } from 'crypto';
import type { IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

import { SEND_AND_WAIT_COMPOSITE } from '@chat-messaging/core';

/**
 * One wait of this node: the id its links carry, the token only the page its links open carries, and
 * the host the links point at. n8n signs a resume link by execution and node only, so without an id of
 * its own a link sent for an earlier wait of this node in the same execution (a loop) would answer the
 * current one. The wait is kept in the execution's custom data: n8n saves it with the waiting execution
 * (in regular and queue mode alike) and hands it back to the links' webhook; the id is signed with the
 * rest of the link, so knowing it forges nothing.
 */
export interface Wait {
	id: string;
	formToken: string;
	host: string;
}

/** The links' query parameter naming the wait they were sent for. */
export const WAIT_PARAMETER = 'wait';
/** The execution's custom data key of the current wait (one key: an execution waits on one node at a time). */
const WAIT_KEY = 'chatMessagingWait';
/** The page's form field carrying the wait's form token. */
export const FORM_TOKEN_FIELD = 'formToken';

export const randomId = (): string => randomBytes(16).toString('hex');

/** Keeps the wait with the execution, or fails before anything is sent when n8n would not keep it. */
export function keepWait(context: IExecuteFunctions, wait: Wait): void {
	const value = JSON.stringify(wait);
	context.customData.set(WAIT_KEY, value);
	if (context.customData.get(WAIT_KEY) !== value)
		throw new Error(
			`${SEND_AND_WAIT_COMPOSITE.name} keeps the id of each wait in the execution's custom data, which n8n did not store ` +
				'(an execution holds at most 10 custom data keys): set fewer with Execution Data or $execution.customData',
		);
}

/** The wait the execution is in: a Wait, none (a wait begun by a version of this node without ids), or unreadable. */
export function currentWait(context: IWebhookFunctions): Wait | 'none' | 'unreadable' {
	let value: unknown;
	try {
		value = context.customData.get(WAIT_KEY);
	} catch {
		return 'unreadable';
	}
	if (value === undefined) return 'none';
	try {
		const wait = JSON.parse(String(value)) as Partial<Wait>;
		if (typeof wait.id === 'string' && typeof wait.formToken === 'string' && typeof wait.host === 'string') return wait as Wait;
	} catch {
		// Not a wait this node stored: refused below.
	}
	return 'unreadable';
}
