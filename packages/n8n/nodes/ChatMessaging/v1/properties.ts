/**
 * Version 1's parameters, generated from the operation catalogue so that n8n shows exactly what the
 * executor accepts: one operation per endpoint, ids as text, and for each send an Attachment choice and
 * Wait for Status. Held by the UI contract (contract/n8n.json): workflows saved with version 1 depend on
 * every name and default here.
 */
import type { INodeProperties } from 'n8n-workflow';

import { DEFAULT_WAIT_TIMEOUT_S, RESOURCES } from '@chat-messaging/core';
import type { OperationDescriptor, ResourceDescriptor } from '@chat-messaging/core';
import { byName, fieldParameter, n8nText, operationFieldParameters, resourceParameter, WAIT_TARGETS } from '../shared/parameters';

/**
 * Version 1's operations, fixed: workflows saved with it name these, and it offers no other (a new endpoint
 * comes to version 2 only). The UI contract (contract/n8n.json) holds the same list; its test compares them.
 */
export const V1_OPERATIONS: Readonly<Record<string, readonly string[]>> = {
	chat: ['getAll', 'get', 'update', 'close', 'reopen', 'assign', 'unassign', 'markRead', 'markUnread', 'rename', 'setAiAutoresponse'],
	label: ['get', 'add', 'replace', 'removeAll', 'remove'],
	note: ['add'],
	message: ['sendToPhone', 'sendToChat', 'sendToChatName', 'sendToJid', 'get', 'getStatusHistory', 'getAll'],
	reaction: ['get', 'set', 'remove'],
	file: ['getAll', 'uploadFromUrl', 'upload', 'get', 'download', 'delete'],
	account: ['getAll'],
	workspace: ['get'],
	teammate: ['getAll'],
	invitation: ['create', 'revoke'],
	webhook: ['create', 'getAll', 'get', 'update', 'delete'],
};

/** The catalogue as version 1 offers it: its fixed operations, described by their current descriptors. */
export function v1Resources(resources: readonly ResourceDescriptor[] = RESOURCES): ResourceDescriptor[] {
	return resources
		.map((resource) => ({
			...resource,
			operations: resource.operations.filter((op) => V1_OPERATIONS[resource.key]?.includes(op.operation)),
		}))
		.filter((resource) => resource.operations.length > 0);
}

/** The operation each resource opens with in the editor (the first resource opens the node). */
const firstOperation = (resource: ResourceDescriptor): string => resource.operations[0].operation;

function operationParameters(resources: readonly ResourceDescriptor[]): INodeProperties[] {
	return resources.map((resource) => ({
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource.key] } },
		options: resource.operations
			.map((op) => ({ name: op.name, value: op.operation, action: op.action, description: n8nText(op.description) }))
			.sort(byName),
		default: firstOperation(resource),
	}));
}

/** Attachment and wait-for-status parameters of a send operation. */
function sendParameters(op: OperationDescriptor): INodeProperties[] {
	if (!op.sendsMessage) return [];
	const when = (extra: Record<string, string[]>) => ({ show: { resource: [op.resource], operation: [op.operation], ...extra } });
	return [
		{
			displayName: 'Attachment',
			name: 'attachment',
			type: 'options',
			options: [
				{ name: 'None', value: 'none' },
				{ name: 'Binary File', value: 'binary', description: 'Upload a file from the binary data of the input item' },
				{ name: 'File From URL', value: 'url', description: 'The service downloads the file from a public URL' },
			],
			default: 'none',
			description: 'File to send with the message; it is uploaded first, then sent (2 credits instead of 1)',
			displayOptions: when({}),
		},
		{
			displayName: 'Input Binary Field',
			name: 'binaryPropertyName',
			type: 'string',
			default: 'data',
			required: true,
			description: 'Name of the binary property of the input item that holds the file',
			displayOptions: when({ attachment: ['binary'] }),
		},
		{
			displayName: 'Attachment URL',
			name: 'attachmentUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://example.com/file.pdf',
			description: 'Public address of the file',
			displayOptions: when({ attachment: ['url'] }),
		},
		{
			displayName: 'Wait for Status',
			name: 'waitForStatus',
			type: 'options',
			options: WAIT_TARGETS,
			default: 'none',
			description: 'Whether to poll the message until it reaches a status before outputting it (a failed message is an error)',
			displayOptions: when({}),
		},
		{
			displayName: 'Wait Timeout (Seconds)',
			name: 'waitTimeout',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: DEFAULT_WAIT_TIMEOUT_S,
			description: 'How long to wait for the status before failing',
			displayOptions: when({ waitForStatus: ['sent', 'delivered', 'read'] }),
		},
	];
}

/**
 * Every parameter of version 1: resource, operation, then each operation's fields. Takes the catalogue as an
 * argument so a test can show that a new descriptor leaves version 1 as it is.
 */
export function buildProperties(catalogue: readonly ResourceDescriptor[] = RESOURCES): INodeProperties[] {
	const resources = v1Resources(catalogue);
	return [
		resourceParameter(resources),
		...operationParameters(resources),
		...resources.flatMap((resource) => resource.operations.flatMap((op) => operationFieldParameters(op, fieldParameter, sendParameters))),
	];
}
