/**
 * Runs one item with version 2's parameters: picked ids are read out of their resource locators
 * (a chat URL through the api's URL rule), Send runs the send its Send To choice names, and the
 * rest takes the steps both versions share (the executor reads a tri-state "Any" as no filter).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import {
	chatIdFromUrl,
	compositeVariantOf,
	findOperation,
	inputError,
	isRecord,
	LIST_DEFAULTS,
	OPERATIONS,
	OUTPUT_WHEN_UNSET,
	operationOutput,
	outputChoiceProblem,
	recordShape,
	selectedFieldNames,
	SEND_COMPOSITE,
	shapeOutput,
} from '@chat-messaging/core';
import type { Executor, FieldDescriptor, OperationDescriptor } from '@chat-messaging/core';
import { addUploadedBytes, downloadItem, readBinaryProperty } from '../shared/binary';
import { jsonItems, resultToJson, shownResult, type OutputItem } from '../shared/items';
import { isListOperation, optionalCollectionName, optionalFields, topLevelFields } from '../shared/parameters';
import { getConversation, isConversation } from './conversation';
import { AGENT_DEFAULTS_VERSION, OUTPUT_FIELDS_PARAMETER, OUTPUT_PARAMETER, TOOL_LIMIT_PARAMETER } from './agents';

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
async function send(context: IExecuteFunctions, executor: Executor, itemIndex: number): Promise<OutputItem[]> {
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

/** Runs the item's operation; every parameter is read and checked before the first request. */
export async function runOperationV2(context: IExecuteFunctions, executor: Executor, itemIndex: number): Promise<OutputItem[]> {
	const resource = context.getNodeParameter('resource', itemIndex) as string;
	const operation = context.getNodeParameter('operation', itemIndex) as string;
	if (resource === SEND_COMPOSITE.resource && operation === SEND_COMPOSITE.operation) return await send(context, executor, itemIndex);
	if (isConversation(resource, operation)) return await getConversation(context, executor, itemIndex, locatorValue);
	const op = OPERATIONS.find(
		(candidate) => candidate.resource === resource && candidate.operation === operation && !candidate.sendsMessage,
	);
	if (!op) throw inputError('operation', `"${operation}" is not an operation of resource "${resource}"`, 'Operation');
	const input = readInput(context, op, itemIndex, optionalCollectionName(op));
	await addUploadedBytes(context, op, input, itemIndex);
	if (op.download) return [await downloadItem(context, executor, op, input, itemIndex)];
	const output = readOutputChoice(context, op, itemIndex);
	if (isListOperation(op)) {
		const returnAll = context.getNodeParameter('returnAll', itemIndex, false) as boolean;
		// A tool of version 2.1 has its own, smaller limit instead of Limit (see agents.ts).
		const limitParameter = context.getNodeParameter(TOOL_LIMIT_PARAMETER, itemIndex, null) === null ? 'limit' : TOOL_LIMIT_PARAMETER;
		const limit = returnAll ? undefined : Number(context.getNodeParameter(limitParameter, itemIndex, LIST_DEFAULTS.limit));
		if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
			throw inputError('limit', `must be a whole number of at least 1, got ${limit}`, 'Limit');
		const json = resultToJson(op, shownResult(context, op, output(await executor.run(op, input, { returnAll, limit }))));
		return jsonItems(limit === undefined ? json : json.slice(0, limit));
	}
	return jsonItems(resultToJson(op, shownResult(context, op, output(await executor.run(op, input)))));
}

/**
 * The Output choice of an operation that returns records, checked before any request; from version
 * 2.1 deletes output `{ deleted: true }`. A node without the parameter reads Raw, as before it existed.
 */
function readOutputChoice(context: IExecuteFunctions, op: OperationDescriptor, itemIndex: number): (result: unknown) => unknown {
	if (op.method === 'DELETE')
		return context.getNode().typeVersion >= AGENT_DEFAULTS_VERSION ? (result) => operationOutput(op, result) : (result) => result;
	if (!recordShape(op)) return (result) => result;
	const mode = String(context.getNodeParameter(OUTPUT_PARAMETER, itemIndex, OUTPUT_WHEN_UNSET));
	const fields = mode === 'selected' ? selectedFieldNames(String(context.getNodeParameter(OUTPUT_FIELDS_PARAMETER, itemIndex, ''))) : [];
	// The core's rule, as Node-RED's action node applies it.
	const problem = outputChoiceProblem({ mode, fields });
	if (problem?.part === 'mode') throw inputError(OUTPUT_PARAMETER, problem.message, 'Output');
	if (problem) throw inputError(OUTPUT_FIELDS_PARAMETER, problem.message, 'Fields');
	return (result) => shapeOutput(op, result, { mode, fields });
}
