/** Send and Wait's input checked and its text built (the handler in compositeHandlers.ts sends it through Send). */
import { SEND_AND_WAIT_COMPOSITE, SEND_COMPOSITE, sendAndWaitInputs, type ResumeUrls } from '../../catalogue/composites';
import { isHttpUrl } from '../../catalogue/fields';
import type { FieldDescriptor } from '../../catalogue/types';
import { inputError } from '../errors';
import { isBlank } from '../validation';
import { compositeVariantOf, variantInput } from './compositeInput';

/** Send and Wait, read and checked: the send it makes and how the recipient answers. */
export interface SendAndWaitPlan {
	/** The input of Send (`message:send`): the Send To choice, its addressing and the text with the links. */
	sendInput: Record<string, unknown>;
	responseType: 'approval' | 'freeText';
	approvalType: 'single' | 'double';
}

/** An option of Send and Wait: one of its choices, its default when blank. */
function choiceOf(option: FieldDescriptor, value: unknown): string {
	const chosen = isBlank(value) ? String(option.default) : String(value).trim();
	const choices = option.options ?? [];
	if (!choices.some((choice) => choice.value === chosen))
		throw inputError(
			option.name,
			`must be one of ${choices.map((choice) => choice.value).join(', ')}, got "${chosen}"`,
			option.displayName,
		);
	return chosen;
}

/** A label of Send and Wait: one line of text, its default when blank. */
function labelOf(option: FieldDescriptor, value: unknown): string {
	const label = isBlank(value) ? String(option.default) : String(value).trim();
	if (/[\r\n]/.test(label)) throw inputError(option.name, 'must be one line', option.displayName);
	return label;
}

/** A resume URL the platform handed over: absolute http(s), or the platform is broken (not the user's input). */
function resumeUrl(urls: ResumeUrls | undefined, answer: keyof ResumeUrls): string {
	const url = urls?.[answer];
	if (typeof url !== 'string' || !isHttpUrl(url))
		throw new Error(`Send and Wait needs the platform's resume URL for "${answer}", got ${String(url)}`);
	return url;
}

/**
 * Every input of Send and Wait checked before the first request, and the text built: the message,
 * then one line per link ("Approve: <url>"), as chat apps show links in plain text.
 * `resumeUrls` come from the platform, which pauses the run until one of them is opened.
 */
export function planSendAndWait(input: Record<string, unknown>, resumeUrls: ResumeUrls | undefined): SendAndWaitPlan {
	const composite = SEND_AND_WAIT_COMPOSITE;
	const inputs = sendAndWaitInputs;
	const variant = compositeVariantOf(composite, input);
	const message = typeof input.message === 'string' ? input.message.trim() : '';
	if (!message) throw inputError(inputs.message.name, 'is required: the text to send', inputs.message.displayName);
	const responseType = choiceOf(inputs.responseType, input.responseType) as SendAndWaitPlan['responseType'];
	const approvalType = choiceOf(inputs.approvalType, input.approvalType) as SendAndWaitPlan['approvalType'];
	const links: Array<[string, string]> = [];
	if (responseType === 'freeText') {
		links.push([labelOf(inputs.messageButtonLabel, input.messageButtonLabel), resumeUrl(resumeUrls, 'respond')]);
	} else {
		links.push([labelOf(inputs.approveLabel, input.approveLabel), resumeUrl(resumeUrls, 'approve')]);
		if (approvalType === 'double')
			links.push([labelOf(inputs.disapproveLabel, input.disapproveLabel), resumeUrl(resumeUrls, 'disapprove')]);
	}
	const text = `${message}\n\n${links.map(([label, url]) => `${label}: ${url}`).join('\n')}`;
	const sendInput = { ...variantInput(SEND_COMPOSITE, variant, input), [composite.variants.name]: variant.value, text };
	return { sendInput, responseType, approvalType };
}
