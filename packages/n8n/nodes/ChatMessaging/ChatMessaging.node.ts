/**
 * The action node, as n8n loads it: version 1 for workflows saved before version 2 (its parameters
 * held by the UI contract); versions 2, 2.1 and 2.2 from one implementation (v2/), 2.2 for new nodes, as
 * defaultVersion says (2.1's new defaults: v2/agents.ts; 2.2's: v2/actions/burst/burst.ts).
 */
import { VersionedNodeType } from 'n8n-workflow';
import type { INodeTypeBaseDescription, IVersionedNodeType } from 'n8n-workflow';

import { ChatMessagingV1 } from './v1/ChatMessagingV1';
import { ChatMessagingV2 } from './v2/ChatMessagingV2';

export class ChatMessaging extends VersionedNodeType {
	constructor() {
		// What every version shares: type name, icon, group, and the version new nodes get.
		const baseDescription: INodeTypeBaseDescription = {
			displayName: 'Chat Messaging',
			name: 'chatMessaging',
			icon: { light: 'file:../../icons/chat-messaging.svg', dark: 'file:../../icons/chat-messaging.dark.svg' },
			group: ['output'],
			description: 'Send chat-app messages and manage chats, labels, notes, files, teammates and webhooks',
			defaultVersion: 2.2,
			usableAsTool: true,
		};
		const nodeVersions: IVersionedNodeType['nodeVersions'] = {
			1: new ChatMessagingV1(baseDescription),
			2: new ChatMessagingV2(baseDescription),
			2.1: new ChatMessagingV2(baseDescription),
			2.2: new ChatMessagingV2(baseDescription),
		};
		super(nodeVersions, baseDescription);
	}
}
