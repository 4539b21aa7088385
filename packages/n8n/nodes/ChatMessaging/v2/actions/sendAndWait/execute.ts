/**
 * Send and Wait for Response's execute: the composite's input from the parameters, n8n's signed resume
 * URLs as its links, then the execution waits.
 */
import { WAIT_INDEFINITELY } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { inputError, SEND_AND_WAIT_COMPOSITE, sendAndWaitInputs } from '@chat-messaging/core';
import { createExecutor, n8nTiming } from '../../../../shared/transport';
import { locatorValue } from '../../fields';
import { secondsPerUnit, waitOnce } from '../wait';
import { keepWait, randomId, WAIT_PARAMETER } from './resumeLinks';

const { message, responseType, messageButtonLabel, responseFormTitle, responseFormDescription, responseFormButtonLabel } =
	sendAndWaitInputs;

/** When the wait ends without a response: never, unless Limit Wait Time is added. */
function waitTill(context: IExecuteFunctions): Date {
	const limit = context.getNodeParameter('options.limitWaitTime.values', 0, {}) as IDataObject;
	if (!Object.keys(limit).length) return WAIT_INDEFINITELY;
	if (limit.limitType === 'atSpecifiedTime') {
		const at = new Date(String(limit.maxDateAndTime ?? ''));
		if (Number.isNaN(at.getTime())) throw inputError('Max Date and Time', `is not a date and time, got "${String(limit.maxDateAndTime)}"`);
		return at;
	}
	const amount = Number(limit.resumeAmount ?? 1);
	const seconds = secondsPerUnit(String(limit.resumeUnit ?? 'hours'), 'Unit');
	if (!Number.isFinite(amount) || amount < 0) throw inputError('Amount', `must be 0 or more, got ${String(limit.resumeAmount)}`);
	return new Date(n8nTiming.now() + amount * (seconds * 1000));
}

/** The composite's input from the parameters (the core checks it all before the first request). */
function readInput(context: IExecuteFunctions): Record<string, unknown> {
	const { variants } = SEND_AND_WAIT_COMPOSITE;
	const sendTo = String(context.getNodeParameter(variants.name, 0, variants.default));
	const input: Record<string, unknown> = { [variants.name]: sendTo, message: context.getNodeParameter('message', 0, '') };
	for (const { field, variants: targets } of SEND_AND_WAIT_COMPOSITE.fields) {
		if (field !== message && targets.includes(sendTo)) input[field.name] = locatorValue(field, context.getNodeParameter(field.name, 0, ''));
	}
	input.responseType = context.getNodeParameter('responseType', 0, responseType.default);
	Object.assign(input, context.getNodeParameter('approvalOptions.values', 0, {}) as IDataObject);
	const options = context.getNodeParameter('options', 0, {}) as IDataObject;
	for (const option of [messageButtonLabel, responseFormTitle, responseFormDescription, responseFormButtonLabel])
		if (options[option.name] !== undefined) input[option.name] = options[option.name];
	return input;
}

/**
 * Sends the message with its links and puts the execution to wait until a person answers on the page
 * a link opens (or the limit passes: n8n then resumes with the node's input items).
 */
export async function executeSendAndWait(context: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await waitOnce(context, { name: SEND_AND_WAIT_COMPOSITE.name, waitsFor: 'response' }, async (items) => {
		const input = readInput(context);
		const until = waitTill(context);
		const id = randomId();
		const approve = context.getSignedResumeUrl({ approved: 'true', [WAIT_PARAMETER]: id });
		const resumeUrls = { approve, disapprove: context.getSignedResumeUrl({ approved: 'false', [WAIT_PARAMETER]: id }), respond: approve };
		keepWait(context, { id, formToken: randomId(), host: new URL(approve).host });
		const executor = await createExecutor(context);
		await executor.run(SEND_AND_WAIT_COMPOSITE, { ...input, resumeUrls });
		await context.putExecutionToWait(until);
		return [items];
	});
}
