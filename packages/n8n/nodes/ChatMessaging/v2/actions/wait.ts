/**
 * What both wait operations (Send and Wait for Response, Send and Wait for Reply) share: they send one
 * message and wait once per execution, and their waits are given in the same units.
 */
import type { IExecuteFunctions, INodeExecutionData, INodePropertyOptions } from 'n8n-workflow';

import { inputError } from '@chat-messaging/core';
import { toNodeError } from '../../../shared/errors';

/** The units of a wait's time (Limit Wait Time, Time-Out), as n8n's own Wait node offers them. */
export const TIME_UNIT_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Minutes', value: 'minutes' },
	{ name: 'Hours', value: 'hours' },
	{ name: 'Days', value: 'days' },
];

const SECONDS_PER_UNIT = new Map([
	['minutes', 60],
	['hours', 3600],
	['days', 86400],
]);

/** Seconds in one unit; an unknown unit is refused naming `label`, the parameter it was read from. */
export function secondsPerUnit(unit: string, label: string): number {
	const seconds = SECONDS_PER_UNIT.get(unit);
	if (seconds === undefined) throw inputError(label, `must be minutes, hours or days, got "${unit}"`);
	return seconds;
}

/**
 * Runs a wait operation: one message per execution, since n8n resumes an execution once, so more than
 * one input item is refused with advice rather than silently narrowed to the first. With Continue On
 * Fail a failure becomes the one error item.
 */
export async function waitOnce(
	context: IExecuteFunctions,
	operation: { name: string; waitsFor: 'response' | 'reply' },
	wait: (items: INodeExecutionData[]) => Promise<INodeExecutionData[][]>,
): Promise<INodeExecutionData[][]> {
	const items = context.getInputData();
	try {
		if (items.length > 1)
			throw inputError(
				operation.name,
				`waits for one ${operation.waitsFor} per execution, but got ${items.length} input items: send them one by one (Loop Over Items with a batch size of 1)`,
			);
		return await wait(items);
	} catch (error) {
		if (context.continueOnFail()) return [[{ json: { error: (error as Error).message }, pairedItem: { item: 0 } }]];
		throw toNodeError(context.getNode(), error, 0);
	}
}
