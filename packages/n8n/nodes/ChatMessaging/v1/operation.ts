/**
 * Version 1 runs one catalogue operation for one input item: reads the item's parameters into the flat
 * input the executor takes, adds attachments and wait-for-status for sends, and shapes the result
 * into output JSON objects.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { DEFAULT_WAIT_TIMEOUT_S, FIELD_KINDS, inputError, isHttpUrl, LIST_DEFAULTS, operationId, WAIT_TARGETS } from '@chat-messaging/core';
import type { Attachment, Executor, OperationDescriptor, WaitTarget } from '@chat-messaging/core';
import { addUploadedBytes, downloadItem, readBinary } from '../shared/binary';
import { jsonItems, resultToJson, shownResult, type OutputItem } from '../shared/items';
import { isListOperation, optionalCollectionName, optionalFields, topLevelFields } from '../shared/parameters';
import { v1Resources } from './properties';

/** The operations version 1 runs: its fixed list. */
const V1_OPERATION_LIST = v1Resources().flatMap((resource) => resource.operations);

/** The flat executor input of one item, keyed by the descriptor fields' wire names. */
async function readInput(context: IExecuteFunctions, op: OperationDescriptor, itemIndex: number): Promise<Record<string, unknown>> {
	const input: Record<string, unknown> = {};
	for (const field of topLevelFields(op)) input[field.name] = context.getNodeParameter(field.name, itemIndex, '');
	const optional = optionalFields(op);
	if (optional.length) {
		const collection = context.getNodeParameter(optionalCollectionName(op), itemIndex, {}) as IDataObject;
		for (const field of optional) {
			if (collection[field.name] !== undefined) input[field.name] = collection[field.name];
		}
	}
	await addUploadedBytes(context, op, input, itemIndex);
	return input;
}

async function readAttachment(context: IExecuteFunctions, itemIndex: number): Promise<Attachment | undefined> {
	const mode = context.getNodeParameter('attachment', itemIndex, 'none') as string;
	if (mode === 'none' || !mode) return undefined;
	if (mode === 'binary') return { binary: await readBinary(context, itemIndex, 'binaryPropertyName') };
	if (mode === 'url') {
		const url = String(context.getNodeParameter('attachmentUrl', itemIndex, '') ?? '').trim();
		if (!url) throw inputError('attachmentUrl', 'is required when the attachment comes from a URL', 'Attachment URL');
		if (!isHttpUrl(url)) throw inputError('attachmentUrl', `${FIELD_KINDS.url.message}, got "${url}"`, 'Attachment URL');
		return { url };
	}
	throw inputError('attachment', `must be none, binary or url, got "${mode}"`, 'Attachment');
}

function readWait(context: IExecuteFunctions, itemIndex: number): { target: WaitTarget; timeoutMs: number } | undefined {
	const target = String(context.getNodeParameter('waitForStatus', itemIndex, 'none') ?? 'none');
	if (target === 'none' || !target) return undefined;
	if (!(WAIT_TARGETS as readonly string[]).includes(target))
		throw inputError('waitForStatus', `must be none, sent, delivered or read, got "${target}"`, 'Wait for Status');
	const seconds = Number(context.getNodeParameter('waitTimeout', itemIndex, DEFAULT_WAIT_TIMEOUT_S));
	if (!Number.isFinite(seconds) || seconds <= 0)
		throw inputError('waitTimeout', `must be a number of seconds above 0, got ${seconds}`, 'Wait Timeout (Seconds)');
	return { target: target as WaitTarget, timeoutMs: Math.round(seconds * 1000) };
}

/** Runs the item's operation; every parameter is read and checked before the first request. */
export async function runOperation(context: IExecuteFunctions, executor: Executor, itemIndex: number): Promise<OutputItem[]> {
	const resource = context.getNodeParameter('resource', itemIndex) as string;
	const operation = context.getNodeParameter('operation', itemIndex) as string;
	const op = V1_OPERATION_LIST.find((candidate) => candidate.resource === resource && candidate.operation === operation);
	if (!op) throw inputError('operation', `"${operation}" is not an operation of resource "${resource}"`, 'Operation');
	const input = await readInput(context, op, itemIndex);
	if (op.download) return [await downloadItem(context, executor, op, input, itemIndex)];

	if (op.sendsMessage) {
		const attachment = await readAttachment(context, itemIndex);
		const wait = readWait(context, itemIndex);
		const sent = await executor.sendAndWait(operationId(op), input, { attachment, waitFor: wait?.target, timeoutMs: wait?.timeoutMs });
		return jsonItems([sent as IDataObject]);
	}

	if (isListOperation(op)) {
		const returnAll = context.getNodeParameter('returnAll', itemIndex, false) as boolean;
		const limit = returnAll ? undefined : Number(context.getNodeParameter('limit', itemIndex, LIST_DEFAULTS.limit));
		if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
			throw inputError('limit', `must be a whole number of at least 1, got ${limit}`, 'Limit');
		const result = shownResult(context, op, await executor.run(op, input, { returnAll, limit }));
		const json = resultToJson(op, result);
		return jsonItems(limit === undefined ? json : json.slice(0, limit));
	}

	return jsonItems(resultToJson(op, shownResult(context, op, await executor.run(op, input))));
}
