/**
 * Runs one item with version 2's parameters: picked ids are read out of their resource locators
 * (a chat URL through the api's URL rule), Send runs the send its Send To choice names, and the
 * rest is version 1's path (the executor reads a tri-state "Any" as no filter).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import {
	chatIdFromUrl,
	DEFAULT_SEND_TO,
	inputError,
	isRecord,
	OPERATIONS,
	operationId,
	SEND_OPERATION,
	SEND_TARGETS,
	sendOperation,
	WAIT_TARGETS,
} from '@chat-messaging/core';
import type { Attachment, Executor, FieldDescriptor, OperationDescriptor, WaitTarget } from '@chat-messaging/core';
import { addUploadedBytes, downloadItem, jsonItems, readBinaryProperty, resultToJson, type OutputItem } from '../operation';
import { isListOperation, optionalCollectionName, optionalFields, topLevelFields } from '../properties';

/**
 * The value of a parameter that may be a resource locator (`{mode, value}`): the id itself, or for
 * "By URL" the chat id in the URL. A plain value (an expression's result) is taken as it is.
 */
export function locatorValue(field: FieldDescriptor, raw: unknown): unknown {
	if (!isRecord(raw) || !('mode' in raw)) return raw;
	const value = raw.value;
	if (raw.mode !== 'url') return typeof value === 'string' ? value.trim() : value;
	const url = String(value ?? '').trim();
	if (!url) return '';
	const id = chatIdFromUrl(url);
	if (id === undefined)
		throw inputError(field.name, `is not a chat URL such as https://<web app>/chats/42, got "${url}"`, field.displayName);
	return id;
}

/** The flat executor input of one item, from the parameters version 2 shows for the operation. */
function readInput(
	context: IExecuteFunctions,
	op: OperationDescriptor,
	itemIndex: number,
	collectionName: string,
): Record<string, unknown> {
	const input: Record<string, unknown> = {};
	for (const field of topLevelFields(op)) input[field.name] = locatorValue(field, context.getNodeParameter(field.name, itemIndex, ''));
	const optional = optionalFields(op);
	if (optional.length) {
		const collection = context.getNodeParameter(collectionName, itemIndex, {}) as IDataObject;
		for (const field of optional) {
			if (collection[field.name] !== undefined) input[field.name] = locatorValue(field, collection[field.name]);
		}
	}
	return input;
}

/** Attachment and wait-for-status from a Send's Options. */
async function readSendOptions(
	context: IExecuteFunctions,
	itemIndex: number,
	options: IDataObject,
): Promise<{ attachment?: Attachment; waitFor?: WaitTarget; timeoutMs?: number }> {
	const binaryName = options.attachmentBinaryField === undefined ? '' : String(options.attachmentBinaryField).trim();
	const url = options.attachmentUrl === undefined ? '' : String(options.attachmentUrl).trim();
	if (options.attachmentBinaryField !== undefined && !binaryName)
		throw inputError(
			'attachmentBinaryField',
			'is empty: name the binary field that holds the file, or remove the option',
			'Attachment From Binary Field',
		);
	if (binaryName && url)
		throw inputError(
			'attachmentUrl',
			'and Attachment From Binary Field are both set: a message takes one attachment',
			'Attachment From URL',
		);
	let attachment: Attachment | undefined;
	if (binaryName) {
		attachment = {
			binary: await readBinaryProperty(context, itemIndex, binaryName, 'attachmentBinaryField', 'Attachment From Binary Field'),
		};
	} else if (url) {
		if (!/^https?:\/\/[^\s]+$/i.test(url)) throw inputError('attachmentUrl', `must be an http(s) URL, got "${url}"`, 'Attachment From URL');
		attachment = { url };
	}
	const target = options.waitForStatus === undefined ? 'none' : String(options.waitForStatus);
	if (target === 'none' || !target) return { attachment };
	if (!(WAIT_TARGETS as readonly string[]).includes(target))
		throw inputError('waitForStatus', `must be none, sent, delivered or read, got "${target}"`, 'Wait for Status');
	const seconds = options.waitTimeout === undefined ? 60 : Number(options.waitTimeout);
	if (!Number.isFinite(seconds) || seconds <= 0)
		throw inputError('waitTimeout', `must be a number of seconds above 0, got ${seconds}`, 'Wait Timeout (Seconds)');
	return { attachment, waitFor: target as WaitTarget, timeoutMs: Math.round(seconds * 1000) };
}

async function send(context: IExecuteFunctions, executor: Executor, itemIndex: number): Promise<OutputItem[]> {
	const sendTo = String(context.getNodeParameter('sendTo', itemIndex, DEFAULT_SEND_TO));
	if (!SEND_TARGETS.some((target) => target.value === sendTo))
		throw inputError('sendTo', `must be one of ${SEND_TARGETS.map((target) => target.value).join(', ')}, got "${sendTo}"`, 'Send To');
	const op = sendOperation(sendTo);
	const input = readInput(context, op, itemIndex, 'options');
	const options = context.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const { attachment, waitFor, timeoutMs } = await readSendOptions(context, itemIndex, options);
	const sent = await executor.sendAndWait(operationId(op), input, { attachment, waitFor, timeoutMs });
	return jsonItems([sent as IDataObject]);
}

/** Runs the item's operation; every parameter is read and checked before the first request. */
export async function runOperationV2(context: IExecuteFunctions, executor: Executor, itemIndex: number): Promise<OutputItem[]> {
	const resource = context.getNodeParameter('resource', itemIndex) as string;
	const operation = context.getNodeParameter('operation', itemIndex) as string;
	if (resource === 'message' && operation === SEND_OPERATION.operation) return await send(context, executor, itemIndex);
	const op = OPERATIONS.find(
		(candidate) => candidate.resource === resource && candidate.operation === operation && !candidate.sendsMessage,
	);
	if (!op) throw inputError('operation', `"${operation}" is not an operation of resource "${resource}"`, 'Operation');
	const input = readInput(context, op, itemIndex, optionalCollectionName(op));
	await addUploadedBytes(context, op, input, itemIndex);
	if (op.download) return [await downloadItem(context, executor, op, input, itemIndex)];
	if (isListOperation(op)) {
		const returnAll = context.getNodeParameter('returnAll', itemIndex, false) as boolean;
		const limit = returnAll ? undefined : Number(context.getNodeParameter('limit', itemIndex, 50));
		if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
			throw inputError('limit', `must be a whole number of at least 1, got ${limit}`, 'Limit');
		const json = resultToJson(op, await executor.run(op, input, { returnAll, limit }));
		return jsonItems(limit === undefined ? json : json.slice(0, limit));
	}
	return jsonItems(resultToJson(op, await executor.run(op, input)));
}
