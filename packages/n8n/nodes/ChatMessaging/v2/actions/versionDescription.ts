/** Version 2's description: what n8n shows and saves, built from the catalogue and each operation's folder. */
import { NodeConnectionTypes } from 'n8n-workflow';
import type { INodeProperties, INodeTypeBaseDescription, INodeTypeDescription } from 'n8n-workflow';

import { chatId, findOperation, RESOURCES, SEND_AND_WAIT_FOR_REPLY_COMPOSITE, type ResourceDescriptor } from '@chat-messaging/core';
import { CREDENTIAL_TYPE } from '../../../shared/transport';
import { AGENT_DEFAULTS_VERSION, withAgentParameters } from '../agents';
import { v2FieldParameter } from '../fields';
import { buildV2Properties, v2Descriptors, v2Subtitle } from './catalogue/description';
import { burstProperties, QUIET_DEFAULT_VERSION } from './burst/burst';
import { conversationProperties } from './getConversation/description';
import { sendAndWaitProperties } from './sendAndWait/description';
import { sendAndWaitWebhook } from './sendAndWait/webhook';
import { sendAndWaitForReplyProperties } from './sendAndWaitForReply/description';
import { sendAndWaitForReplyWebhooks } from './sendAndWaitForReply/webhook';

/**
 * Version 2's parameters: the catalogue's (its operation lists include the composites), then Send and
 * Wait for Reply's own, with the same chat picker as every chat operation, and Send and Wait for
 * Response's, and Get Conversation's; then the tool Description, Output and list limits of agents.ts.
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

export function versionDescription(baseDescription: INodeTypeBaseDescription): INodeTypeDescription {
	return {
		...baseDescription,
		// 2.1 and 2.2: the same parameters with new defaults for new nodes (see agents.ts, burst/burst.ts).
		version: [2, AGENT_DEFAULTS_VERSION, QUIET_DEFAULT_VERSION],
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
		// Waiting executions resume here: Send and Wait for Response's links (GET opens a page, POST answers it),
		// Send and Wait for Reply's deliveries and Wait for Customer to Finish Typing's call (POST); the router
		// tells them apart by the operation.
		webhooks: [sendAndWaitWebhook, ...sendAndWaitForReplyWebhooks],
		properties: chatMessagingV2Properties(),
	};
}
