/**
 * Files in and out of the action node, the same in every version: the bytes of an input item's binary
 * property (for an upload or an attachment) and a downloaded file as the output item's binary data.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { inputError } from '@chat-messaging/core';
import type { BinaryInput, DownloadedFile, Executor, OperationDescriptor } from '@chat-messaging/core';
import { binaryDataOf } from '../../shared/files';
import type { OutputItem } from './items';
import { binaryField } from './parameters';

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
	return { json: (file.file ?? {}) as IDataObject, binary: { [property]: await binaryDataOf(context.helpers, file) } };
}
