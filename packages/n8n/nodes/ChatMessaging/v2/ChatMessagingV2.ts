/**
 * Version 2 of the action node: pickers instead of raw ids, one Send with a Send To choice, filters
 * that say what they do. Same catalogue, executor and item handling as version 1.
 */
import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeBaseDescription,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { findOperation, RESOURCES, SEND_AND_WAIT_FOR_REPLY_COMPOSITE, type ResourceDescriptor } from '@chat-messaging/core';
import { chatId } from '@chat-messaging/core';
import { CREDENTIAL_TYPE } from '../../shared/transport';
import { runItems } from '../shared/items';
import { methods } from './methods';
import { conversationProperties } from './conversation';
import { runOperationV2 } from './operation';
import { AGENT_DEFAULTS_VERSION, withAgentParameters } from './agents';
import { buildV2Properties, v2Descriptors, v2FieldParameter, v2Subtitle } from './properties';
import {
	executeSendAndWaitForReply,
	SEND_AND_WAIT_FOR_REPLY,
	sendAndWaitForReplyProperties,
	sendAndWaitForReplyWebhook,
	sendAndWaitForReplyWebhooks,
} from './sendAndWaitForReply';
import { BURST_RESOURCE, burstProperties, executeBurst } from './burst/burst';
import { executeSendAndWait, SEND_AND_WAIT, sendAndWaitProperties, sendAndWaitWebhook, sendAndWaitWebhookAnswer } from './sendAndWait';

/**
 * Version 2's parameters: the catalogue's (its operation lists include the composites), then Send and
 * Wait for Reply's own, with the same chat picker as every chat operation, and Send and Wait for
 * Response's (sendAndWait.ts); then the tool Description, Output and list limits of agents.ts.
 */
export function chatMessagingV2Properties(resources: readonly ResourceDescriptor[] = RESOURCES): INodeProperties[] {
	const composite = SEND_AND_WAIT_FOR_REPLY_COMPOSITE;
	if (!resources.some((resource) => resource.key === composite.resource))
		return withAgentParameters(buildV2Properties(resources), resources, v2Descriptors);
	const properties = [
		...buildV2Properties(resources),
		...sendAndWaitForReplyProperties(
			{ resource: [composite.resource], operation: [composite.operation] },
			v2FieldParameter(chatId, true, findOperation('chat:get')),
		),
		...sendAndWaitProperties(),
		...conversationProperties(),
		...burstProperties,
	];
	return withAgentParameters(properties, resources, v2Descriptors);
}

export class ChatMessagingV2 implements INodeType {
	description: INodeTypeDescription;

	methods = methods;

	constructor(baseDescription: INodeTypeBaseDescription) {
		this.description = {
			...baseDescription,
			// 2.1: the same parameters with new defaults for new nodes (see agents.ts).
			version: [2, AGENT_DEFAULTS_VERSION],
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
			// Waiting executions resume here: Send and Wait for Response's links (GET opens a page, POST answers it)
			// and Send and Wait for Reply's deliveries (POST, sendAndWaitForReply.ts); webhook() tells them apart by the operation.
			webhooks: [sendAndWaitWebhook, ...sendAndWaitForReplyWebhooks],
			properties: chatMessagingV2Properties(),
		};
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		if (this.getNodeParameter('operation', '') === SEND_AND_WAIT) return sendAndWaitWebhookAnswer(this);
		return await sendAndWaitForReplyWebhook(this);
	}

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const composite = SEND_AND_WAIT_FOR_REPLY_COMPOSITE;
		const operation = this.getNodeParameter('operation', 0);
		if (this.getNodeParameter('resource', 0) === composite.resource && operation === SEND_AND_WAIT_FOR_REPLY) {
			return await executeSendAndWaitForReply(this);
		}
		if (this.getNodeParameter('resource', 0) === composite.resource && operation === SEND_AND_WAIT) return await executeSendAndWait(this);
		const burst = this.getNodeParameter('resource', 0) === BURST_RESOURCE ? await executeBurst(this, operation) : undefined;
		if (burst) return burst;
		return await runItems(this, runOperationV2);
	}
}
