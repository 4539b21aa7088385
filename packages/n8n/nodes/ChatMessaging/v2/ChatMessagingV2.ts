/**
 * Version 2 of the action node: pickers instead of raw ids, one Send with a Send To choice, filters
 * that say what they do. Same catalogue, executor and item handling as version 1. Laid out as n8n's
 * Airtable v2 node: the description in actions/versionDescription.ts, one router in actions/router.ts,
 * each operation with parameters or a webhook of its own in its folder under actions/.
 */
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeBaseDescription,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { router, webhookRouter } from './actions/router';
import { versionDescription } from './actions/versionDescription';
import { methods } from './methods';

export class ChatMessagingV2 implements INodeType {
	description: INodeTypeDescription;

	methods = methods;

	constructor(baseDescription: INodeTypeBaseDescription) {
		this.description = versionDescription(baseDescription);
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await webhookRouter(this);
	}

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router(this);
	}
}
