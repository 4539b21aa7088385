/**
 * Runs one catalogue operation for one input item: reads the item's parameters into the flat
 * input the executor takes, adds attachments and wait-for-status for sends, and shapes the result
 * into output JSON objects.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import {
	DEFAULT_WAIT_TIMEOUT_S,
	FIELD_KINDS,
	inputError,
	isHttpUrl,
	LIST_DEFAULTS,
	OPERATIONS,
	operationId,
	WAIT_TARGETS,
} from '@chat-messaging/core';
import type { Attachment, BinaryInput, DownloadedFile, Executor, OperationDescriptor, WaitTarget } from '@chat-messaging/core';
import { binaryField, isListOperation, optionalCollectionName, optionalFields, topLevelFields } from './properties';

const isRecord = (value: unknown): value is IDataObject => !!value && typeof value === 'object' && !Array.isArray(value);

/** Reads the bytes of an input item's binary property, naming the parameter when they are missing. */
export async function readBinary(
	context: IExecuteFunctions,
	itemIndex: number,
	parameter: string,
	label = 'Input Binary Field',
): Promise<BinaryInput> {
	const propertyName = String(context.getNodeParameter(parameter, itemIndex, 'data') ?? '').trim();
	return await readBinaryProperty(context, itemIndex, propertyName, parameter, label);
}

/** The bytes of the binary property `propertyName` of an input item; errors name `parameter` as `label`. */
export async function readBinaryProperty(
	context: IExecuteFunctions,
	itemIndex: number,
	propertyName: string,
	parameter: string,
	label: string,
): Promise<BinaryInput> {
	if (!propertyName) throw inputError(parameter, 'is required: name the binary property that holds the file', label);
	const item = context.getInputData()[itemIndex];
	if (!item?.binary?.[propertyName]) {
		const available = Object.keys(item?.binary ?? {});
		throw inputError(
			parameter,
			`the input item has no binary property "${propertyName}"${available.length ? ` (it has: ${available.join(', ')})` : ' (it has no binary data)'}`,
			label,
		);
	}
	const metadata = context.helpers.assertBinaryData(itemIndex, propertyName);
	const buffer = await context.helpers.getBinaryDataBuffer(itemIndex, propertyName);
	return {
		data: new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength),
		filename: metadata.fileName || `${propertyName}${metadata.fileExtension ? `.${metadata.fileExtension}` : ''}`,
		mimeType: metadata.mimeType,
	};
}

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

/** For an upload (file:upload): the item's binary data as the bytes, and the file's own name and type unless the user set them. */
export async function addUploadedBytes(
	context: IExecuteFunctions,
	op: OperationDescriptor,
	input: Record<string, unknown>,
	itemIndex: number,
): Promise<void> {
	const bytesField = binaryField(op);
	if (!bytesField) return;
	const binary = await readBinary(context, itemIndex, 'binaryPropertyName');
	input[bytesField.name] = binary;
	if (input.filename === undefined || input.filename === '') input.filename = binary.filename;
	if ((input.content_type === undefined || input.content_type === '') && binary.mimeType) input.content_type = binary.mimeType;
}

/** Output JSON objects for a result: lists of records become one object each. */
export function resultToJson(op: OperationDescriptor, result: unknown): IDataObject[] {
	if (Array.isArray(result)) {
		if (result.every(isRecord)) return result;
		return [{ [op.unwrap ?? 'data']: result }];
	}
	if (isRecord(result)) return [result];
	if (result === undefined || result === null || result === '') return [{ success: true }];
	return [{ data: result as IDataObject[keyof IDataObject] }];
}

/** The downloaded bytes as n8n binary data, the file record as the item's JSON. */
export async function downloadItem(
	context: IExecuteFunctions,
	executor: Executor,
	op: OperationDescriptor,
	input: Record<string, unknown>,
	itemIndex: number,
): Promise<OutputItem> {
	const property = String(context.getNodeParameter('binaryPropertyName', itemIndex, 'data') ?? '').trim();
	if (!property)
		throw inputError('binaryPropertyName', 'is required: name the binary field to put the file in', 'Put Output File in Field');
	const file = (await executor.run(op, input)) as DownloadedFile;
	const bytes = Buffer.from(file.data.buffer, file.data.byteOffset, file.data.byteLength);
	return {
		json: (file.file ?? {}) as IDataObject,
		binary: { [property]: await context.helpers.prepareBinaryData(bytes, file.filename, file.mimeType) },
	};
}

/** One output item of an operation, before n8n's pairing. */
export type OutputItem = Pick<INodeExecutionData, 'json' | 'binary'>;

export const jsonItems = (json: IDataObject[]): OutputItem[] => json.map((item) => ({ json: item }));

/** Runs the item's operation; every parameter is read and checked before the first request. */
export async function runOperation(context: IExecuteFunctions, executor: Executor, itemIndex: number): Promise<OutputItem[]> {
	const resource = context.getNodeParameter('resource', itemIndex) as string;
	const operation = context.getNodeParameter('operation', itemIndex) as string;
	const op = OPERATIONS.find((candidate) => candidate.resource === resource && candidate.operation === operation);
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
		const result = await executor.run(op, input, { returnAll, limit });
		const json = resultToJson(op, result);
		return jsonItems(limit === undefined ? json : json.slice(0, limit));
	}

	return jsonItems(resultToJson(op, await executor.run(op, input)));
}
