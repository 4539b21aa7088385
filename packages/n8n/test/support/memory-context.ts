/**
 * The memory the AI Agent gets from Chat Messaging Memory's supplyData, run with n8n's sub-node contract (parameters
 * as a saved node holds them, requests through httpRequestWithAuthentication, recorded), as the tests call it.
 */
import type { INodeProperties, ISupplyDataFunctions } from 'n8n-workflow';

import { ChatMessagingMemory } from '../../nodes/ChatMessagingMemory/ChatMessagingMemory.node';
import { authenticatedHttp, makeNode, resolveParameters, type Credentials, type RecordedRequest } from './n8n-context';

export interface LangchainMemory {
	loadMemoryVariables(values: Record<string, unknown>): Promise<{ chat_history: Array<{ content: unknown; _getType(): string }> }>;
	saveContext(input: Record<string, unknown>, output: Record<string, unknown>): Promise<void>;
}

/** The memory the AI Agent gets from supplyData, with the parameters a saved node holds. */
export async function supplied(parameters: Record<string, unknown>, credentials: Credentials) {
	const node = makeNode('chatMessagingMemory', parameters);
	const requests: RecordedRequest[] = [];
	const http = authenticatedHttp(credentials, requests, node);
	const values = resolveParameters(new ChatMessagingMemory().description.properties as INodeProperties[], parameters);
	let runs = 0;
	const context = {
		getNode: () => node,
		getNodeParameter: (name: string, _item: number, fallback?: unknown) => values[name] ?? fallback,
		getCredentials: async () => ({ ...credentials }),
		getTimezone: () => 'UTC',
		helpers: {
			httpRequestWithAuthentication(this: unknown, type: string, request: never) {
				return http(type, request);
			},
		},
		// What the SDK's log wrapper records of each call, as n8n shows it in the sub-node's output.
		addInputData: () => ({ index: runs++ }),
		addOutputData: () => undefined,
		getNextRunIndex: () => runs,
		logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
	} as unknown as ISupplyDataFunctions;
	const { response } = await new ChatMessagingMemory().supplyData.call(context, 0);
	return { memory: response as LangchainMemory, requests };
}

/** The text of a message as the agent's model gets it (a string, or content blocks). */
export const textOf = (content: unknown): string =>
	Array.isArray(content) ? content.map((block: { text?: unknown }) => String(block.text ?? '')).join('') : String(content);
