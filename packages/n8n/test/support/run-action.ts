/** Runs the action node through n8n's execute contract against a sandbox, over real HTTP. */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { sandboxClient } from '../../../../test/support/harness';
import { ChatMessaging } from '../../nodes/ChatMessaging/ChatMessaging.node';
import { createExecuteContext, type Credentials, type RecordedRequest } from './n8n-context';

export interface ActionRun {
	items: INodeExecutionData[];
	json: IDataObject[];
	requests: RecordedRequest[];
}

export interface ActionOptions {
	items?: INodeExecutionData[];
	continueOnFail?: boolean;
	timeZone?: string;
	onError?: 'continueRegularOutput' | 'continueErrorOutput';
	/** The node type to run (one version of the versioned node); version 1 by default. */
	nodeType?: INodeType;
	/** The node's saved version, as this.getNode().typeVersion reports it. */
	typeVersion?: number;
	/** Run as an AI agent's tool (the node type n8n names `…Tool`). */
	tool?: boolean;
}

const node = new ChatMessaging().getNodeType(1);

/** `resource:operation` ids that ran at least once without an error item. */
export const coveredOperations = new Set<string>();

export async function runAction(
	credentials: Credentials,
	parameters: Record<string, unknown> | ((itemIndex: number) => Record<string, unknown>),
	options: ActionOptions = {},
): Promise<ActionRun> {
	const nodeType = options.nodeType ?? node;
	const { context, requests } = createExecuteContext({ properties: nodeType.description.properties, credentials, parameters, ...options });
	const output = (await nodeType.execute!.call(context as unknown as IExecuteFunctions)) as INodeExecutionData[][];
	const items = output[0];
	const first = typeof parameters === 'function' ? parameters(0) : parameters;
	if (!items.some((item) => 'error' in item.json)) coveredOperations.add(`${String(first.resource)}:${String(first.operation)}`);
	return { items, json: items.map((item) => item.json), requests };
}

/** Runs the node and returns the error it throws (fails the test when it does not throw). */
export async function actionError(
	credentials: Credentials,
	parameters: Record<string, unknown> | ((itemIndex: number) => Record<string, unknown>),
	options: ActionOptions = {},
): Promise<{ error: Error & { httpCode?: string | null; description?: string | null }; requests: RecordedRequest[] }> {
	const nodeType = options.nodeType ?? node;
	const { context, requests } = createExecuteContext({ properties: nodeType.description.properties, credentials, parameters, ...options });
	try {
		await nodeType.execute!.call(context as unknown as IExecuteFunctions);
	} catch (error) {
		return { error: error as Error, requests };
	}
	const first = typeof parameters === 'function' ? parameters(0) : parameters;
	throw new Error(`expected ${String(first.resource)}:${String(first.operation)} to fail`);
}

/** Calls the sandbox's control API (/_sandbox/...) or the public API directly: `data`, or the body without an envelope. */
export const sandboxCall = (baseUrl: string, token: string, method: string, path: string, body?: unknown): Promise<IDataObject> =>
	sandboxClient(baseUrl, token).data<IDataObject>(method, path, body);
