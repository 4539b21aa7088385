/**
 * Send: the composite `message:send` with the Send To choice's fields and the Options (an attachment,
 * waiting for a status) as its input.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { compositeVariantOf, findOperation, inputError, SEND_COMPOSITE } from '@chat-messaging/core';
import type { Executor } from '@chat-messaging/core';
import { readBinaryProperty } from '../../../shared/binary';
import { jsonItems, type OutputItem } from '../../../shared/items';
import { readInput } from '../../fields';

/**
 * The attachment of a Send's Options: the item's binary field, or a URL (the core checks it). n8n
 * offers both as two options, so both set is refused here.
 */
async function readAttachment(context: IExecuteFunctions, itemIndex: number, options: IDataObject): Promise<unknown> {
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
	if (binaryName)
		return { binary: await readBinaryProperty(context, itemIndex, binaryName, 'attachmentBinaryField', 'Attachment From Binary Field') };
	return url || undefined;
}

/** Send: the composite `message:send` with the Send To choice's fields and the Options as its input. */
export async function executeSend(context: IExecuteFunctions, executor: Executor, itemIndex: number): Promise<OutputItem[]> {
	const { variants } = SEND_COMPOSITE;
	const sendTo = String(context.getNodeParameter(variants.name, itemIndex, variants.default));
	const op = findOperation(compositeVariantOf(SEND_COMPOSITE, { [variants.name]: sendTo }).operation);
	const options = context.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const input = {
		...readInput(context, op, itemIndex, 'options'),
		[variants.name]: sendTo,
		attachment: await readAttachment(context, itemIndex, options),
		waitForStatus: options.waitForStatus,
		waitTimeout: options.waitTimeout,
	};
	return jsonItems([(await executor.run(SEND_COMPOSITE, input)) as IDataObject]);
}
