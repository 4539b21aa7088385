import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import type { Executor } from '../../api';
import { errorItemJson, toNodeError } from '../shared/errors';
import { CREDENTIAL_TYPE, createExecutor } from '../shared/transport';
import { runOperation } from './operation';
import { buildProperties } from './properties';
import {
	executeSendAndWaitForReply,
	SEND_AND_WAIT_FOR_REPLY,
	sendAndWaitForReplyWebhook,
	sendAndWaitForReplyWebhooks,
	withSendAndWaitForReply,
} from './sendAndWaitForReply';

/** Items in flight at once: enough to keep a paced send queue full, few enough to stay gentle. */
const ITEM_CONCURRENCY = 8;

export class ChatMessaging implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Chat Messaging',
		name: 'chatMessaging',
		icon: { light: 'file:chat-messaging.svg', dark: 'file:chat-messaging.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Send chat-app messages and manage chats, labels, notes, files, teammates and webhooks',
		defaults: {
			name: 'Chat Messaging',
		},
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: CREDENTIAL_TYPE,
				required: true,
			},
		],
		// Send and Wait for Reply resumes a waiting execution through this webhook (n8n's resume URL).
		webhooks: sendAndWaitForReplyWebhooks,
		// Generated from the operation catalogue in api/, which the executor validates against; plus
		// Send and Wait for Reply, which is not one endpoint.
		properties: withSendAndWaitForReply(buildProperties()),
	};

	/**
	 * Items run ITEM_CONCURRENCY at a time (the shared pacer keeps them under the service's rate), and
	 * come out in input order with exact pairing. Continue On Fail turns a failed item into an error item;
	 * otherwise no item starts after the first failure, those already running finish, and the first
	 * failure (by item order) fails the execution.
	 */
	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await sendAndWaitForReplyWebhook(this);
	}

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		if (this.getNodeParameter('resource', 0) === 'message' && this.getNodeParameter('operation', 0) === SEND_AND_WAIT_FOR_REPLY) {
			return await executeSendAndWaitForReply(this);
		}
		const items = this.getInputData();
		const results: INodeExecutionData[][] = new Array(items.length);
		const continueOnFail = this.continueOnFail();
		let executor: Executor;
		try {
			executor = await createExecutor(this);
		} catch (error) {
			if (!continueOnFail) throw toNodeError(this.getNode(), error, 0);
			return [items.map((_, itemIndex) => ({ json: errorItemJson(error, this.getNode().onError), pairedItem: { item: itemIndex } }))];
		}
		const failures: Array<{ itemIndex: number; error: unknown }> = [];
		let next = 0;
		const worker = async () => {
			while (next < items.length && (continueOnFail || failures.length === 0)) {
				const itemIndex = next++;
				try {
					const outputs = await runOperation(this, executor, itemIndex);
					results[itemIndex] = outputs.map((output) => ({ ...output, pairedItem: { item: itemIndex } }));
				} catch (error) {
					if (continueOnFail)
						results[itemIndex] = [{ json: errorItemJson(error, this.getNode().onError), pairedItem: { item: itemIndex } }];
					else failures.push({ itemIndex, error });
				}
			}
		};
		await Promise.all(Array.from({ length: Math.min(ITEM_CONCURRENCY, items.length) }, worker));
		if (failures.length) {
			const first = failures.reduce((earliest, failure) => (failure.itemIndex < earliest.itemIndex ? failure : earliest));
			throw toNodeError(this.getNode(), first.error, first.itemIndex);
		}
		return [results.flat()];
	}
}
