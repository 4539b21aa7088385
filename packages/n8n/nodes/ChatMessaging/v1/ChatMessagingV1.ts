/**
 * Version 1 of the action node, as workflows saved before version 2 know it: its parameters are held
 * by the UI contract (contract/n8n.json) and must not change.
 */
import { NodeConnectionTypes } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeBaseDescription, INodeTypeDescription } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../../shared/transport';
import { runItems } from '../shared/items';
import { runOperation } from './operation';
import { buildProperties } from './properties';

export class ChatMessagingV1 implements INodeType {
	description: INodeTypeDescription;

	/** n8n loads ChatMessaging.node.ts, which passes the name, icon and description both versions share. */
	constructor(baseDescription: INodeTypeBaseDescription) {
		this.description = {
			...baseDescription,
			version: 1,
			subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
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
			// Generated from the operation catalogue in packages/core, which the executor validates against.
			properties: buildProperties(),
		};
	}

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await runItems(this, runOperation);
	}
}
