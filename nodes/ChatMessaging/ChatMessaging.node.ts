import { NodeConnectionTypes } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

import type { Executor } from '../../api';
import { errorItemJson, toNodeError } from '../shared/errors';
import { CREDENTIAL_TYPE, createExecutor } from '../shared/transport';
import { runOperation } from './operation';
import { buildProperties } from './properties';

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
		// Generated from the operation catalogue in api/, which the executor validates against.
		properties: buildProperties(),
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const output: INodeExecutionData[] = [];
		let executor: Executor | undefined;
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			try {
				executor ??= await createExecutor(this);
				const results = await runOperation(this, executor, itemIndex);
				output.push(...results.map((result) => ({ ...result, pairedItem: { item: itemIndex } })));
			} catch (error) {
				if (this.continueOnFail()) {
					output.push({ json: errorItemJson(error, this.getNode().onError), pairedItem: { item: itemIndex } });
					continue;
				}
				throw toNodeError(this.getNode(), error, itemIndex);
			}
		}
		return [output];
	}
}
