/**
 * Maps the api's ChatMessagingError onto n8n's error classes and "Continue On Fail" items. Neither
 * carries request headers, so the token cannot leak through them.
 */
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IDataObject, INode, JsonObject } from 'n8n-workflow';

import { ChatMessagingError } from '@chat-messaging/core';

function asChatMessagingError(error: unknown): ChatMessagingError | undefined {
	return error instanceof ChatMessagingError ? error : undefined;
}

function describeService(error: ChatMessagingError): string {
	const parts: string[] = [];
	if (error.errorCode) parts.push(`error_code: ${error.errorCode}`);
	if (error.httpStatus) parts.push(`HTTP ${error.httpStatus}`);
	if (error.errors?.length) parts.push(error.errors.map((item) => `${(item.fields ?? []).join('.')}: ${item.msg}`).join('; '));
	if (error.networkCode) parts.push(`network error ${error.networkCode}`);
	if (error.operation) parts.push(`operation ${error.operation}`);
	return parts.join(' | ');
}

/**
 * Input errors become NodeOperationError (they name the field); service, network and time-out
 * errors become NodeApiError with the service's message, its error_code and the HTTP status.
 */
export function toNodeError(node: INode, error: unknown, itemIndex?: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	const chatError = asChatMessagingError(error);
	if (!chatError) {
		return new NodeOperationError(node, error instanceof Error ? error : String(error), { itemIndex });
	}
	if (chatError.kind === 'input') {
		return new NodeOperationError(node, chatError.message, {
			itemIndex,
			description: chatError.field ? `Check the "${chatError.field}" parameter` : undefined,
		});
	}
	// n8n rewrites the message of connection errors into its own wording ("The service refused the
	// connection ..."), so the description repeats ours, which names the address.
	const details = describeService(chatError);
	return new NodeApiError(node, chatError.toJSON() as JsonObject, {
		message: chatError.message,
		description: chatError.kind === 'network' ? `${chatError.message} | ${details}` : details,
		httpCode: chatError.httpStatus ? String(chatError.httpStatus) : undefined,
		itemIndex,
	});
}

/** Item names of the error's details that differ from their names in ChatMessagingError.toJSON(). */
const ITEM_NAMES: Record<string, string> = {
	errorCode: 'error_code',
	httpStatus: 'http_status',
	networkCode: 'network_code',
	mayHaveTakenEffect: 'may_have_taken_effect',
};

/**
 * The JSON of a "Continue On Fail" error item. Under "Continue (regular output)" the details sit
 * beside `error` (error_code, http_status, ...). Under "Continue (using error output)" n8n moves an
 * item to the error output only when its JSON holds nothing but `error`, `message` and `details`
 * (WorkflowExecute.handleNodeErrorOutput), so the same details go under `details` there.
 */
export function errorItemJson(error: unknown, onError?: INode['onError']): IDataObject {
	const chatError = asChatMessagingError(error);
	let json: IDataObject;
	if (!chatError) {
		const message = error instanceof Error ? error.message : String(error);
		const description = (error as { description?: unknown } | null)?.description;
		json = { error: message, ...(typeof description === 'string' && description ? { description } : {}) };
	} else {
		// The error's own plain data, in the snake_case names items have always used.
		json = { error: chatError.message };
		for (const [key, value] of Object.entries(chatError.toJSON())) {
			if (key !== 'message') json[ITEM_NAMES[key] ?? key] = value as IDataObject[keyof IDataObject];
		}
	}
	if (onError !== 'continueErrorOutput') return json;
	const { error: message, ...details } = json;
	return Object.keys(details).length ? { error: message, details } : { error: message };
}
