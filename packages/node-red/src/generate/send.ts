/**
 * One Send with Send To: the catalogue's composite `message:send` (packages/core/src/catalogue/composites.ts), whose
 * node property `sendTo` picks which of the four send descriptors runs; the four stay available for flows saved with them.
 */
import { SEND_COMPOSITE } from '@chat-messaging/core';
import type { FieldDescriptor, OperationDescriptor, ResourceDescriptor } from '@chat-messaging/core';
import { CONVERSATION_DESCRIPTOR } from '../shared/conversation';

/** A send field and the Send To choices that show it; `key` tells apart two fields of one wire name. */
export interface SendRow {
	field: FieldDescriptor;
	sendTo: string[];
	key: string;
}

export function sendRows(): SendRow[] {
	const seen = new Set<string>();
	return SEND_COMPOSITE.fields.map(({ field, variants }) => {
		const key = seen.has(field.name) ? `${field.name}-${variants.join('-')}` : field.name;
		seen.add(field.name);
		return { field, sendTo: [...variants], key };
	});
}

/** The Send composite in the shape the editor lists operations: first in the Message resource. */
export const SEND_DESCRIPTOR: OperationDescriptor = {
	resource: SEND_COMPOSITE.resource,
	operation: SEND_COMPOSITE.operation,
	name: SEND_COMPOSITE.name,
	action: SEND_COMPOSITE.action,
	description: SEND_COMPOSITE.description,
	method: 'POST',
	path: '(by Send To)',
	effect: SEND_COMPOSITE.effect,
	requireOneOf: ['text', 'file_uid'],
	sendsMessage: true,
	fields: sendRows().map((row) => row.field),
};

/** The resources as the editor shows them: Send first among the Message operations, Get Conversation last. */
export const editorResources = (resources: readonly ResourceDescriptor[]): ResourceDescriptor[] =>
	resources.map((resource) =>
		resource.key === 'message' && !resource.operations.some((op) => op.operation === SEND_DESCRIPTOR.operation)
			? { ...resource, operations: [SEND_DESCRIPTOR, ...resource.operations, CONVERSATION_DESCRIPTOR] }
			: resource,
	);

/** A field's key in its operation: the wire name, or for Send a name told apart from a namesake (sendRows). */
export const fieldKeyIn = (op: OperationDescriptor, field: FieldDescriptor): string =>
	op === SEND_DESCRIPTOR ? (sendRows().find((row) => row.field === field)?.key ?? field.name) : field.name;
