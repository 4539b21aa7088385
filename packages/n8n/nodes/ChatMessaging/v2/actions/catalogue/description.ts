/**
 * Version 2's Resource and Operation choices and the parameters of every operation it runs directly,
 * generated from the catalogue like version 1's: the four ways to send are one Send operation with a
 * Send To choice (send/), the composites are listed beside the endpoints.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { ALL_COMPOSITES, COMPOSITES, RESOURCES, SEND_COMPOSITE, SEND_TARGETS } from '@chat-messaging/core';
import type { OperationDescriptor, ResourceDescriptor } from '@chat-messaging/core';
import { byName, n8nText, operationFieldParameters, resourceParameter } from '../../../shared/parameters';
import { v2FieldParameter } from '../../fields';
import { sendParameters } from '../send/description';
import { BURST_OPERATIONS, BURST_RESOURCE } from '../burst/burst';

/** The resource and operation a new node opens with: sending a message, what most workflows do. */
const DEFAULT_RESOURCE = 'message';

interface OperationOption {
	name: string;
	value: string;
	action: string;
	description: string;
}

/**
 * The operations version 2 lists for a resource: the endpoints it runs directly and the composites of
 * the catalogue (for messages, Send in place of the four sends, and Send and Wait for Reply), in
 * alphabetical order as n8n's lint wants for five or more.
 */
function v2Operations(resource: ResourceDescriptor): OperationOption[] {
	const option = (op: { name: string; operation: string; action: string; description: string }): OperationOption => ({
		name: op.name,
		value: op.operation,
		action: op.action,
		description: n8nText(op.description),
	});
	// Every composite, Send and Wait for Response too: n8n pauses an execution and serves its links.
	const composites = ALL_COMPOSITES.filter((composite) => composite.resource === resource.key);
	const burst = resource.key === BURST_RESOURCE ? BURST_OPERATIONS : [];
	return [...v2Descriptors(resource).map(option), ...composites.map(option), ...burst.map(option)].sort(byName);
}

/**
 * The operation a node opens on for each resource, fixed: n8n does not store a parameter left at its default, so
 * another default would change what saved workflows run. (They were the first listed; a new operation whose name
 * sorts before must not take the place.)
 */
const V2_DEFAULT_OPERATIONS: Readonly<Record<string, string>> = {
	chat: 'assign',
	label: 'add',
	note: 'add',
	reaction: 'get',
	file: 'delete',
	account: 'getAll',
	workspace: 'get',
	teammate: 'getAll',
	invitation: 'create',
	webhook: 'create',
};

/** The operation a new node opens on for a resource: for messages, Send; a resource added later, its first listed. */
const v2DefaultOperation = (resource: ResourceDescriptor): string =>
	COMPOSITES.some((composite) => composite === SEND_COMPOSITE && composite.resource === resource.key)
		? SEND_COMPOSITE.operation
		: (V2_DEFAULT_OPERATIONS[resource.key] ?? String(v2Operations(resource)[0]?.value ?? ''));

/** The descriptors version 2 runs directly (every operation but the four sends, which Send replaces). */
export const v2Descriptors = (resource: ResourceDescriptor): OperationDescriptor[] => resource.operations.filter((op) => !op.sendsMessage);

function operationParameters(resources: readonly ResourceDescriptor[]): INodeProperties[] {
	return resources.map((resource) => {
		const options: INodePropertyOptions[] = v2Operations(resource);
		return {
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			displayOptions: { show: { resource: [resource.key] } },
			options,
			default: v2DefaultOperation(resource),
		};
	});
}

/** Every parameter of version 2; takes the catalogue as an argument like version 1's builder. */
export function buildV2Properties(resources: readonly ResourceDescriptor[] = RESOURCES): INodeProperties[] {
	return [
		{ ...resourceParameter(resources), default: resources.some((r) => r.key === DEFAULT_RESOURCE) ? DEFAULT_RESOURCE : resources[0]?.key },
		...operationParameters(resources),
		...(resources.some((r) => r.key === 'message') ? sendParameters() : []),
		...resources.flatMap((resource) => v2Descriptors(resource).flatMap((op) => operationFieldParameters(op, v2FieldParameter))),
	];
}

/** "Send to Chat Name", "Get many chats": the node's subtitle, from the operation's action text. */
export function v2Subtitle(resources: readonly ResourceDescriptor[] = RESOURCES): string {
	const actions: Record<string, string> = {};
	for (const resource of resources) {
		for (const op of v2Descriptors(resource)) actions[`${resource.key}:${op.operation}`] = op.action;
	}
	for (const composite of ALL_COMPOSITES)
		if (composite !== SEND_COMPOSITE) actions[`${composite.resource}:${composite.operation}`] = composite.action;
	for (const op of BURST_OPERATIONS) actions[`${BURST_RESOURCE}:${op.operation}`] = op.action;
	const sendTo = Object.fromEntries(SEND_TARGETS.map((target) => [target.value, `Send to ${target.name}`]));
	return (
		`={{ $parameter["operation"] === "${SEND_COMPOSITE.operation}" ? ${JSON.stringify(sendTo)}[$parameter["sendTo"]] ` +
		`: ${JSON.stringify(actions)}[$parameter["resource"] + ":" + $parameter["operation"]] }}`
	);
}
