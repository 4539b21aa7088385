/**
 * Runs every input item through one operation runner: ITEM_CONCURRENCY at a time (the shared pacer
 * keeps them under the service's rate), output in input order with exact pairing; and the output
 * items a result becomes. Shared by every version of the action node.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { redactReceiverUrls, type Executor, type OperationDescriptor } from '@chat-messaging/core';
import { errorItemJson, toNodeError } from '../../shared/errors';
import { createExecutor } from '../../shared/transport';

/** One output item of an operation, before n8n's pairing. */
export type OutputItem = Pick<INodeExecutionData, 'json' | 'binary'>;

export const jsonItems = (json: IDataObject[]): OutputItem[] => json.map((item) => ({ json: item }));

const isRecord = (value: unknown): value is IDataObject => !!value && typeof value === 'object' && !Array.isArray(value);

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

/**
 * Whether the node runs as an AI agent's tool: n8n runs the tool variant as the node type's name with `Tool`
 * appended (what its `@tool` display option reads).
 */
export const runsAsTool = (context: IExecuteFunctions): boolean => context.getNode().type.endsWith('Tool');

/**
 * A result as the node outputs it: for an agent's tool, receivers' secrets masked (the core's rule), since what a
 * tool returns goes to a model and its logs; the regular node outputs the service's answer, which saved
 * workflows use (a subscription's address, to compare or re-create it).
 */
export function shownResult(context: IExecuteFunctions, op: OperationDescriptor, result: unknown): unknown {
	return runsAsTool(context) ? redactReceiverUrls(op, result) : result;
}

/** Items in flight at once: enough to keep a paced send queue full, few enough to stay gentle. */
const ITEM_CONCURRENCY = 8;

export type ItemRunner = (context: IExecuteFunctions, executor: Executor, itemIndex: number) => Promise<OutputItem[]>;

/**
 * Continue On Fail turns a failed item into an error item; otherwise no item starts after the first
 * failure, those already running finish, and the first failure (by item order) fails the execution.
 */
export async function runItems(context: IExecuteFunctions, runItem: ItemRunner): Promise<INodeExecutionData[][]> {
	const items = context.getInputData();
	const results: INodeExecutionData[][] = new Array(items.length);
	const continueOnFail = context.continueOnFail();
	let executor: Executor;
	try {
		executor = await createExecutor(context);
	} catch (error) {
		if (!continueOnFail) throw toNodeError(context.getNode(), error, 0);
		return [items.map((_, itemIndex) => ({ json: errorItemJson(error, context.getNode().onError), pairedItem: { item: itemIndex } }))];
	}
	const failures: Array<{ itemIndex: number; error: unknown }> = [];
	let next = 0;
	const worker = async () => {
		while (next < items.length && (continueOnFail || failures.length === 0)) {
			const itemIndex = next++;
			try {
				const outputs = await runItem(context, executor, itemIndex);
				results[itemIndex] = outputs.map((output) => ({ ...output, pairedItem: { item: itemIndex } }));
			} catch (error) {
				if (continueOnFail)
					results[itemIndex] = [{ json: errorItemJson(error, context.getNode().onError), pairedItem: { item: itemIndex } }];
				else failures.push({ itemIndex, error });
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(ITEM_CONCURRENCY, items.length) }, worker));
	if (failures.length) {
		const first = failures.reduce((earliest, failure) => (failure.itemIndex < earliest.itemIndex ? failure : earliest));
		throw toNodeError(context.getNode(), first.error, first.itemIndex);
	}
	return [results.flat()];
}
