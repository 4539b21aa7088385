/**
 * Version 2 of the action node: pickers instead of raw ids, one Send with a Send To choice, filters
 * that say what they do (issue 11). Same catalogue, executor and item handling as version 1.
 */
import { NodeConnectionTypes } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeBaseDescription, INodeTypeDescription } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../../shared/transport';
import { runItems } from '../items';
import { methods } from './methods';
import { runOperationV2 } from './operation';
import { buildV2Properties, v2Subtitle } from './properties';

export class ChatMessagingV2 implements INodeType {
	description: INodeTypeDescription;

	methods = methods;

	constructor(baseDescription: INodeTypeBaseDescription) {
		this.description = {
			...baseDescription,
			version: 2,
			subtitle: v2Subtitle(),
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
			properties: buildV2Properties(),
		};
	}

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await runItems(this, runOperationV2);
	}
}
