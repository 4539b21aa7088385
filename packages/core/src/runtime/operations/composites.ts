/**
 * The one handler of each composite operation (catalogue/composites.ts). Adapters hand over a flat
 * input named like the composite's fields and options; every input is checked before the first
 * request, and errors name the composite's fields.
 */
import { findOperation } from '../../catalogue/catalogue';
import {
	compositeVariant,
	SEND_AND_WAIT_COMPOSITE,
	SEND_AND_WAIT_FOR_REPLY_COMPOSITE,
	SEND_COMPOSITE,
	sendAndWaitInputs,
	type CompositeDescriptor,
	type CompositeVariant,
	type SendingComposite,
	type ResumeUrls,
} from '../../catalogue/composites';
import { DEFAULT_REPLY_POLL_S, DEFAULT_REPLY_TIMEOUT_S, DEFAULT_WAIT_TIMEOUT_S, WAIT_TARGETS } from '../../catalogue/defaults';
import { isHttpUrl } from '../../catalogue/fields';
import type { BinaryInput, FieldDescriptor } from '../../catalogue/types';
import { ChatMessagingError, inputError } from '../errors';
import { registerComposite, type Executor } from '../executor';
import type { ChatEvent } from '../events';
import { replyWatchFor, waitForReply } from '../replies';
import { isBlank, isRecord } from '../validation';
import type { Attachment } from './attachment';
import { registerConversationHandler } from './conversation';
import type { CompositeRunOptions } from './registry';
import type { WaitTarget } from './waitForStatus';

export type { CompositeRunOptions } from './registry';

const optionNamed = (composite: CompositeDescriptor, name: string): FieldDescriptor => {
	const found = composite.options.find((option) => option.name === name);
	if (!found) throw new Error(`${composite.operation} has no option ${name}`);
	return found;
};

/** A composite run cancelled before its send: nothing was sent. */
function cancelledBeforeSending(composite: CompositeDescriptor): ChatMessagingError {
	return new ChatMessagingError(`${composite.name} was cancelled before sending: nothing was sent`, {
		kind: 'timeout',
		errorCode: 'wait_cancelled',
		operation: `${composite.resource}:${composite.operation}`,
		mayHaveTakenEffect: false,
	});
}

/** The variant the input picks (its default when none), or an error naming the choices. */
export function compositeVariantOf(composite: SendingComposite, input: Record<string, unknown>): CompositeVariant {
	const { variants } = composite;
	const value = isBlank(input[variants.name]) ? variants.default : String(input[variants.name]).trim();
	const variant = compositeVariant(composite, value);
	if (!variant)
		throw inputError(
			variants.name,
			`must be one of ${variants.options.map((option) => option.value).join(', ')}, got "${value}"`,
			variants.displayName,
		);
	return variant;
}

/** The variant's own fields from the input (the composite's options and the variant choice left out). */
function variantInput(composite: SendingComposite, variant: CompositeVariant, input: Record<string, unknown>): Record<string, unknown> {
	const names = new Set(findOperation(variant.operation).fields.map((field) => field.name));
	return Object.fromEntries(Object.entries(input).filter(([name]) => names.has(name) && name !== composite.variants.name));
}

/** A number of seconds above 0; blank is the option's default. */
function seconds(option: FieldDescriptor, value: unknown, fallback: number, minimum = 0): number {
	const amount = isBlank(value) ? fallback : Number(value);
	if (!Number.isFinite(amount) || amount <= minimum)
		throw inputError(
			option.name,
			`must be a number of seconds ${minimum ? `of at least ${minimum}` : 'above 0'}, got ${String(value)}`,
			option.displayName,
		);
	return amount;
}

const isBinary = (value: unknown): value is BinaryInput =>
	isRecord(value) && value.data instanceof Uint8Array && typeof value.filename === 'string';

/** An attachment as given: `{binary}`, `{url}`, bytes with their name, or an http(s) URL. */
function attachmentOf(value: unknown): Attachment | undefined {
	if (isBlank(value)) return undefined;
	const option = optionNamed(SEND_COMPOSITE, 'attachment');
	if (isRecord(value) && 'binary' in value && isBinary(value.binary)) return { binary: value.binary };
	if (isBinary(value)) return { binary: value };
	const url = typeof value === 'string' ? value.trim() : isRecord(value) && typeof value.url === 'string' ? value.url.trim() : '';
	if (!isHttpUrl(url))
		throw inputError(
			option.name,
			`must be an http(s) URL or a file's bytes, got "${typeof value === 'string' ? value : typeof value}"`,
			option.displayName,
		);
	if (typeof value === 'string') return { url };
	const record = value as Record<string, unknown>;
	return {
		url,
		filename: typeof record.filename === 'string' ? record.filename : undefined,
		contentType: typeof record.contentType === 'string' ? record.contentType : undefined,
	};
}

/**
 * Send: the send of the Send To choice, with an attachment uploaded or registered first, then, when
 * asked, waiting for a status. A send whose answer was lost is looked up, never sent twice.
 */
export async function runSend(
	executor: Executor,
	input: Record<string, unknown>,
	options: CompositeRunOptions = {},
): Promise<Record<string, unknown>> {
	const variant = compositeVariantOf(SEND_COMPOSITE, input);
	const attachment = attachmentOf(input.attachment);
	const waitOption = optionNamed(SEND_COMPOSITE, 'waitForStatus');
	const target = isBlank(input.waitForStatus) ? 'none' : String(input.waitForStatus);
	let waitFor: WaitTarget | undefined;
	if (target !== 'none') {
		if (!(WAIT_TARGETS as readonly string[]).includes(target))
			throw inputError(waitOption.name, `must be none, sent, delivered or read, got "${target}"`, waitOption.displayName);
		waitFor = target as WaitTarget;
	}
	const timeoutS = seconds(optionNamed(SEND_COMPOSITE, 'waitTimeout'), input.waitTimeout, DEFAULT_WAIT_TIMEOUT_S);
	if (options.cancelled?.()) throw cancelledBeforeSending(SEND_COMPOSITE);
	return executor.sendAndWait(variant.operation, variantInput(SEND_COMPOSITE, variant, input), {
		attachment,
		waitFor,
		timeoutMs: Math.round(timeoutS * 1000),
		onWaiting: options.onWaiting,
		onProgress: options.onProgress,
		reportEveryMs: options.reportEveryMs,
		cancelled: options.cancelled,
		timing: options.timing,
	});
}

/** Send and Wait for Reply, read and checked: what to send, and how long and how often to look. */
export interface ReplyWaitPlan {
	/** The Send To choice (the composite's default when none was given). */
	sendTo: string;
	sendOperation: string;
	sendInput: Record<string, unknown>;
	timeoutMs: number;
	pollMs: number;
}

/** Every input of Send and Wait for Reply checked before the first request (platforms waiting their own way use it too). */
export function planSendAndWaitForReply(executor: Executor, input: Record<string, unknown>): ReplyWaitPlan {
	const composite = SEND_AND_WAIT_FOR_REPLY_COMPOSITE;
	const variant = compositeVariantOf(composite, input);
	const text = composite.fields.find((entry) => entry.field.name === 'text')?.field ?? { name: 'text', displayName: 'Message' };
	const sendsFile = !isBlank(input.attachment) || !isBlank(input.file_uid);
	const noText = typeof input.text === 'string' ? !input.text.trim() : isBlank(input.text);
	if (noText && !sendsFile) throw inputError(text.name, 'is required: the text to send', text.displayName);
	const sendInput = variantInput(composite, variant, input);
	// With an attachment the send is checked before the upload, by Send (sendWithAttachment).
	if (isBlank(input.attachment)) executor.prepare(findOperation(variant.operation), sendInput);
	const timeoutS = seconds(optionNamed(composite, 'replyTimeout'), input.replyTimeout, DEFAULT_REPLY_TIMEOUT_S);
	const pollS = seconds(optionNamed(composite, 'pollInterval'), input.pollInterval, DEFAULT_REPLY_POLL_S, 0);
	if (pollS < 1) throw inputError('pollInterval', `must be 1 or more, got ${pollS}`, optionNamed(composite, 'pollInterval').displayName);
	return {
		sendTo: variant.value,
		sendOperation: variant.operation,
		sendInput,
		timeoutMs: Math.round(timeoutS * 1000),
		pollMs: pollS * 1000,
	};
}

/** The outcome of Send and Wait for Reply: the send's answer, the chat waited in, and the reply (or none). */
export type ReplyWaitResult = Record<string, unknown> & {
	chat_id: number | string;
	message_uid: string;
	replied: boolean;
	reply: ChatEvent | null;
	timed_out?: true;
	waited_ms?: number;
	cancelled?: true;
};

/**
 * Send and Wait for Reply by polling: sends (Send, with its attachment and Wait for Status), then reads
 * the chat's messages after the sent one until the customer answers or the time-out passes (an
 * outcome, not an error).
 */
export async function runSendAndWaitForReply(
	executor: Executor,
	input: Record<string, unknown>,
	options: CompositeRunOptions = {},
): Promise<ReplyWaitResult> {
	const plan = planSendAndWaitForReply(executor, input);
	if (options.cancelled?.()) throw cancelledBeforeSending(SEND_AND_WAIT_FOR_REPLY_COMPOSITE);
	// Send's handler: the attachment first, a lost answer looked up (never sent twice), Wait for Status.
	const sent = await runSend(executor, { ...input, [SEND_COMPOSITE.variants.name]: plan.sendTo }, options);
	const watch = await replyWatchFor(executor, sent);
	options.onSent?.(sent, watch);
	const outcome = await waitForReply(executor, watch, {
		timeoutMs: plan.timeoutMs,
		intervalMs: plan.pollMs,
		timing: options.timing ?? executor.timing,
		cancelled: options.cancelled,
		onProgress: options.onProgress,
		reportEveryMs: options.reportEveryMs,
	});
	const result: ReplyWaitResult = {
		...sent,
		chat_id: watch.chat_id,
		message_uid: watch.message_uid,
		replied: 'reply' in outcome,
		reply: null,
	};
	if ('reply' in outcome) result.reply = outcome.reply;
	if ('timedOut' in outcome) Object.assign(result, { timed_out: true, waited_ms: outcome.waitedMs });
	if ('cancelled' in outcome) result.cancelled = true;
	return result;
}

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

/**
 * Send and Wait: the send (through Send, so a send whose answer was lost is looked up, never sent
 * twice) of the message with its links. The wait is the platform's: it pauses until a link is opened.
 */
export async function runSendAndWait(
	executor: Executor,
	input: Record<string, unknown> & { resumeUrls?: ResumeUrls },
	options: CompositeRunOptions = {},
): Promise<Record<string, unknown>> {
	const plan = planSendAndWait(input, input.resumeUrls);
	return runSend(executor, plan.sendInput, options);
}

/** Registers each composite's handler on its descriptor, for Executor.run; the core's index calls it once. */
export function registerCompositeHandlers(): void {
	registerComposite(SEND_COMPOSITE, runSend);
	registerComposite(SEND_AND_WAIT_FOR_REPLY_COMPOSITE, runSendAndWaitForReply);
	registerComposite(SEND_AND_WAIT_COMPOSITE, runSendAndWait);
	registerConversationHandler();
}
