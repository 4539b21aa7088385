/**
 * The one handler of each composite operation (catalogue/composites.ts), registered in operations/registry.ts. Adapters hand over a flat
 * input named like the composite's fields and options; every input is checked before the first
 * request, and errors name the composite's fields.
 */
import { findOperation } from '../../catalogue/endpoints';
import {
	SEND_AND_WAIT_COMPOSITE,
	SEND_AND_WAIT_FOR_REPLY_COMPOSITE,
	SEND_COMPOSITE,
	type CompositeDescriptor,
	type ResumeUrls,
} from '../../catalogue/composites';
import { DEFAULT_REPLY_POLL_S, DEFAULT_REPLY_TIMEOUT_S, DEFAULT_WAIT_TIMEOUT_S, WAIT_TARGETS } from '../../catalogue/defaults';
import { isHttpUrl } from '../../catalogue/fields';
import type { BinaryInput, FieldDescriptor } from '../../catalogue/types';
import { ChatMessagingError, inputError } from '../errors';
import type { Executor } from '../executor';
import type { ChatEvent } from '../events/delivery';
import { replyWatchFor, waitForReply } from '../events/replies';
import { isBlank, isRecord } from '../validation';
import type { Attachment } from '../operations/attachment';
import { compositeVariantOf, variantInput } from './compositeInput';
import { registerConversationHandler } from './conversation';
import { registerComposite, type CompositeRunOptions } from '../operations/registry';
import { planSendAndWait } from './sendAndWaitPlan';
import type { WaitTarget } from '../operations/waitForStatus';

export type { CompositeRunOptions } from '../operations/registry';

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
	registerComposite<Executor>(SEND_COMPOSITE, runSend);
	registerComposite<Executor>(SEND_AND_WAIT_FOR_REPLY_COMPOSITE, runSendAndWaitForReply);
	registerComposite<Executor>(SEND_AND_WAIT_COMPOSITE, runSendAndWait);
	registerConversationHandler();
}
