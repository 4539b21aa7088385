/**
 * For the contract's tests: the parts of the packages a catalogue would generate, without building, so a
 * test can change a descriptor in memory and see what the contract check would say of it. The check
 * itself (contract.ts) reads only the built packages.
 */
import type { ResourceDescriptor } from '@chat-messaging/core';

import { buildProperties } from '../packages/n8n/nodes/ChatMessaging/v1/properties';
import { chatMessagingV2Properties } from '../packages/n8n/nodes/ChatMessaging/v2/actions/versionDescription';
import { editorHtml } from '../packages/node-red/src/generate';
import type { ContractOverrides } from './contract';

export const overridesFor = (resources: readonly ResourceDescriptor[]): ContractOverrides => ({
	// Versions 2 and 2.1 share their properties (their differences are `@version` conditions).
	n8nProperties: {
		chatMessaging: { 1: buildProperties(resources), 2: chatMessagingV2Properties(resources), 2.1: chatMessagingV2Properties(resources) },
	},
	nodeRedEditorHtml: editorHtml(resources),
});
