/**
 * What version 2 adds for AI agents and for people reading its output, translated from the core
 * catalogue (output.ts, toolDescription.ts):
 * - the tool variant's Description: n8n builds a tool's description from the operation's action
 *   text ("Send a message in Chat Messaging") unless the node has a `toolDescription` parameter; one
 *   per operation, shown only in the tool variant (`@tool`), starts with the catalogue's description
 *   of that operation and stays editable;
 * - Output (Simplified / Raw / Selected Fields) for operations that return records;
 * - in version 2.1, new nodes start with Simplified, the tool variant's lists with a small limit, and
 *   deletes output `{ deleted: true }`. n8n saves only values that differ from their defaults, so a
 *   node saved as version 2 keeps reading Raw and 50: those defaults stay under `@version` 2.
 */
import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import {
	ALL_COMPOSITES,
	compositeToolDescription,
	DEFAULT_OUTPUT,
	OUTPUT_MODES,
	OUTPUT_WHEN_UNSET,
	RECORD_SHAPES,
	SEND_COMPOSITE,
	SEND_OPERATION,
	SEND_TARGETS,
	TOOL_LIST_LIMIT,
	sendOperation,
	toolDescription,
} from '@chat-messaging/core';
import type { OperationDescriptor, ResourceDescriptor } from '@chat-messaging/core';

/** The minor version whose new defaults are Simplified output, small tool lists and `{ deleted: true }`. */
export const AGENT_DEFAULTS_VERSION = 2.1;

type VersionCondition = NonNullable<NonNullable<IDisplayOptions['show']>['@version']>;
const FROM_2_1: VersionCondition = [{ _cnd: { gte: AGENT_DEFAULTS_VERSION } }];
const BEFORE_2_1: VersionCondition = [{ _cnd: { lt: AGENT_DEFAULTS_VERSION } }];

/** Parameter names of the Output choice. */
export const OUTPUT_PARAMETER = 'output';
export const OUTPUT_FIELDS_PARAMETER = 'outputFields';

export function toolDescriptionParameter(description: string, show: NonNullable<IDisplayOptions['show']>): INodeProperties {
	return {
		displayName: 'Description',
		name: 'toolDescription',
		type: 'string',
		typeOptions: { rows: 4 },
		default: description,
		description: 'What the AI model reads about this tool: what it does, what each input looks like and what comes back',
		displayOptions: { show: { '@tool': [true], ...show } },
	};
}

/** The operations a resource's Operation choice offers in these parameters. */
function offeredOperations(properties: readonly INodeProperties[], resource: ResourceDescriptor): Set<string> {
	const choice = properties.find(
		(property) =>
			property.name === 'operation' && (property.displayOptions?.show?.resource as string[] | undefined)?.includes(resource.key),
	);
	return new Set((choice?.options ?? []).map((option) => String((option as { value?: unknown }).value)));
}

/**
 * One Description per operation of the tool variant; Send has one per Send To choice, every other
 * composite the node offers (Send and Wait for Reply, …) the catalogue's description of the composite.
 */
function toolDescriptionParameters(
	properties: readonly INodeProperties[],
	resources: readonly ResourceDescriptor[],
	ops: (r: ResourceDescriptor) => OperationDescriptor[],
) {
	const parameters: INodeProperties[] = [];
	for (const resource of resources) {
		for (const op of ops(resource))
			parameters.push(toolDescriptionParameter(toolDescription(op), { resource: [resource.key], operation: [op.operation] }));
		const offered = offeredOperations(properties, resource);
		for (const composite of ALL_COMPOSITES)
			if (composite !== SEND_COMPOSITE && composite.resource === resource.key && offered.has(composite.operation))
				parameters.push(
					toolDescriptionParameter(compositeToolDescription(composite), { resource: [resource.key], operation: [composite.operation] }),
				);
		if (resource.key === 'message' && resource.operations.some((op) => op.sendsMessage)) {
			for (const target of SEND_TARGETS)
				parameters.push(
					toolDescriptionParameter(toolDescription(sendOperation(target.value)), {
						resource: ['message'],
						operation: [SEND_OPERATION.operation],
						sendTo: [target.value],
					}),
				);
		}
	}
	return parameters;
}

function outputParameters(resource: ResourceDescriptor, ops: OperationDescriptor[]): INodeProperties[] {
	const withRecords = ops.filter((op) => op.returns);
	if (!withRecords.length) return [];
	const show = { resource: [resource.key], operation: withRecords.map((op) => op.operation) };
	const shapes = [...new Set(withRecords.flatMap((op) => (op.returns ? [op.returns] : [])))].map((kind) => RECORD_SHAPES[kind]);
	const output = (defaultMode: string, version: VersionCondition): INodeProperties => ({
		displayName: 'Output',
		name: OUTPUT_PARAMETER,
		type: 'options',
		options: OUTPUT_MODES.map((mode) => ({ name: mode.name, value: mode.value, description: mode.description })),
		default: defaultMode,
		description: `Simplified outputs ${shapes.map((shape) => shape.simplified.length).join(' or ')} fields, the record's identifiers included`,
		displayOptions: { show: { ...show, '@version': version } },
	});
	return [
		output(OUTPUT_WHEN_UNSET, BEFORE_2_1),
		output(DEFAULT_OUTPUT, FROM_2_1),
		{
			displayName: 'Fields',
			name: OUTPUT_FIELDS_PARAMETER,
			type: 'string',
			default: '',
			placeholder: shapes[0]?.simplified.slice(1, 4).join(', '),
			description: "Comma-separated field names to output; the record's identifiers always come along",
			displayOptions: { show: { ...show, [OUTPUT_PARAMETER]: ['selected'] } },
		},
	];
}

/** The tool variant's limit from version 2.1 (the regular node's Limit keeps n8n's 50). */
export const TOOL_LIMIT_PARAMETER = 'toolLimit';

/**
 * The limit of a list: the regular node and a tool saved as version 2 keep the catalogue's Limit; a
 * tool of version 2.1 shows its own, starting at `TOOL_LIST_LIMIT`, as an agent reads every record.
 */
function splitLimit(limit: INodeProperties): INodeProperties[] {
	const show = limit.displayOptions?.show ?? {};
	return [
		{ ...limit, displayOptions: { ...limit.displayOptions, show: { ...show, '@tool': [false] } } },
		{ ...limit, displayOptions: { ...limit.displayOptions, show: { ...show, '@tool': [true], '@version': BEFORE_2_1 } } },
		{
			...limit,
			name: TOOL_LIMIT_PARAMETER,
			default: TOOL_LIST_LIMIT,
			description: 'Max number of results to return to the agent',
			displayOptions: { ...limit.displayOptions, show: { ...show, '@tool': [true], '@version': FROM_2_1 } },
		},
	];
}

/** Version 2's parameters with the agent additions: Description (tool only), Output after each resource's parameters, the limit split. */
export function withAgentParameters(
	properties: INodeProperties[],
	resources: readonly ResourceDescriptor[],
	ops: (resource: ResourceDescriptor) => OperationDescriptor[],
): INodeProperties[] {
	const result = properties.flatMap((property) => (property.name === 'limit' ? splitLimit(property) : [property]));
	// The Description sits right after the operation choices, where n8n puts its own.
	const afterOperations = result.findIndex((property, index) => index > 0 && property.name !== 'operation' && property.name !== 'resource');
	result.splice(afterOperations < 0 ? result.length : afterOperations, 0, ...toolDescriptionParameters(properties, resources, ops));
	return [...result, ...resources.flatMap((resource) => outputParameters(resource, ops(resource)))];
}
