/**
 * Runs one item of an operation of the catalogue with version 2's parameters, generically: picked ids
 * are read out of their resource locators (a chat URL through the api's URL rule), and the executor
 * reads a tri-state "Any" as no filter.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import {
	inputError,
	LIST_DEFAULTS,
	OPERATIONS,
	OUTPUT_WHEN_UNSET,
	operationOutput,
	outputChoiceProblem,
	recordShape,
	selectedFieldNames,
	shapeOutput,
} from '@chat-messaging/core';
import type { Executor, OperationDescriptor } from '@chat-messaging/core';
import { addUploadedBytes, downloadItem } from '../../../shared/binary';
import { jsonItems, resultToJson, shownResult, type OutputItem } from '../../../shared/items';
import { isListOperation, optionalCollectionName } from '../../../shared/parameters';
import { AGENT_DEFAULTS_VERSION, OUTPUT_FIELDS_PARAMETER, OUTPUT_PARAMETER, TOOL_LIMIT_PARAMETER } from '../../agents';
import { readInput } from '../../fields';

/** Runs the item's operation; every parameter is read and checked before the first request. */
export async function executeCatalogueOperation(
	context: IExecuteFunctions,
	executor: Executor,
	itemIndex: number,
	{ resource, operation }: { resource: string; operation: string },
): Promise<OutputItem[]> {
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
