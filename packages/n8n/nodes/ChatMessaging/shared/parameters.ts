/**
 * How a catalogue operation's fields become n8n parameters, the steps both versions of the action node
 * build their descriptions from: which fields stand alone and which go in a collection, each field kind
 * as an n8n parameter, the Resource choice, Return All / Limit and the optional-fields collection.
 * Parameters carry the descriptors' wire names, so a node can hand the executor one flat input object
 * without renaming anything. What differs between the versions (version 1's send parameters, version
 * 2's pickers) each version passes in.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { LIST_DEFAULTS } from '@chat-messaging/core';
import type { FieldDescriptor, OperationDescriptor, ResourceDescriptor } from '@chat-messaging/core';

/** Collection that holds an operation's optional fields. */
export type OptionalCollection = 'filters' | 'updateFields' | 'additionalFields';

/** The Return All / Limit pair is offered for these operations. */
export function isListOperation(op: OperationDescriptor): boolean {
	return op.pagination !== undefined || op.operation === 'getAll';
}

/**
 * Shown as its own parameter rather than inside a collection: required fields, fields always sent
 * (`sendDefault`, e.g. a webhook's `enabled`) and a message's text, which is optional only because
 * an attachment may replace it.
 */
export function isTopLevelField(op: OperationDescriptor, field: FieldDescriptor): boolean {
	if (field.kind === 'binary') return false;
	if (field.required || field.sendDefault) return true;
	return field.kind === 'text' && (op.requireOneOf ?? []).includes(field.name);
}

/** Fields the node does not offer: the page number (Return All / Limit page for the user) and bytes (read from a binary property). */
function isOffered(field: FieldDescriptor): boolean {
	return field.kind !== 'binary' && !(field.in === 'query' && field.name === 'page');
}

export function optionalCollectionName(op: OperationDescriptor): OptionalCollection {
	if (op.method === 'GET' && op.fields.some((field) => field.in === 'query')) return 'filters';
	if (op.operation === 'update') return 'updateFields';
	return 'additionalFields';
}

export function optionalFields(op: OperationDescriptor): FieldDescriptor[] {
	return op.fields.filter((field) => isOffered(field) && !isTopLevelField(op, field));
}

/** Required fields first, then the others in catalogue order. */
export function topLevelFields(op: OperationDescriptor): FieldDescriptor[] {
	const fields = op.fields.filter((field) => isOffered(field) && isTopLevelField(op, field));
	return [...fields.filter((field) => field.required), ...fields.filter((field) => !field.required)];
}

/** Whether the operation uploads bytes read from the item's binary data (file:upload). */
export function binaryField(op: OperationDescriptor): FieldDescriptor | undefined {
	return op.fields.find((field) => field.kind === 'binary');
}

export const show = (op: OperationDescriptor) => ({ show: { resource: [op.resource], operation: [op.operation] } });

/** n8n's description style: a single sentence has no final period, several end with one. */
export function n8nText(text: string): string {
	const trimmed = text.replace(/\.$/, '');
	return text.replace('e.g.', '').split('. ').length > 1 ? `${trimmed}.` : trimmed;
}

/** n8n lists options alphabetically; the catalogue's order stays the default (the first one). */
export const byName = (a: { name: string }, b: { name: string }): number => a.name.localeCompare(b.name);

export function hint(field: FieldDescriptor): string {
	return n8nText(field.kind === 'stringList' ? `${field.description} (comma-separated)` : field.description);
}

/** A field as an n8n parameter of the matching type, without display options. */
export function fieldParameter(field: FieldDescriptor, required: boolean): INodeProperties {
	const base = {
		displayName: field.displayName,
		name: field.name,
		description: hint(field),
		...(required ? { required: true } : {}),
		...(field.placeholder ? { placeholder: field.placeholder } : {}),
	};
	switch (field.kind) {
		case 'boolean':
			return { ...base, type: 'boolean', default: typeof field.default === 'boolean' ? field.default : false };
		case 'integer':
			// Identifiers stay text: a blank one is reported as missing instead of becoming 0, and
			// expressions mapping an id from an earlier item work either way.
			if (field.in === 'path') return { ...base, type: 'string', default: '' };
			return {
				...base,
				type: 'number',
				default: typeof field.default === 'number' ? field.default : (field.min ?? 0),
				typeOptions: { numberPrecision: 0, ...(field.min !== undefined ? { minValue: field.min } : {}) },
			};
		case 'dateTime':
			return { ...base, type: 'dateTime', default: '' };
		case 'options': {
			const options: INodePropertyOptions[] = (field.options ?? []).map((option) => ({
				name: option.name,
				value: option.value,
				...(option.description ? { description: n8nText(option.description) } : {}),
			}));
			const firstValue = options[0]?.value ?? '';
			return {
				...base,
				type: 'options',
				options: options.sort(byName),
				default: typeof field.default === 'string' ? field.default : firstValue,
			};
		}
		case 'text':
			return { ...base, type: 'string', typeOptions: { rows: 4 }, default: typeof field.default === 'string' ? field.default : '' };
		case 'email':
			return { ...base, type: 'string', placeholder: field.placeholder ?? 'name@email.com', default: '' };
		default:
			return {
				...base,
				type: 'string',
				default: typeof field.default === 'string' ? field.default : Array.isArray(field.default) ? field.default.join(', ') : '',
			};
	}
}

/** The Resource choice; the first resource opens the node. */
export function resourceParameter(resources: readonly ResourceDescriptor[]): INodeProperties {
	const firstResource = resources[0].key;
	return {
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: resources
			.map((resource) => ({ name: resource.name, value: resource.key, description: n8nText(resource.description) }))
			.sort(byName),
		default: firstResource,
	};
}

/** The choices of Wait for Status, the same in every version's sends. */
export const WAIT_TARGETS: INodePropertyOptions[] = [
	{ name: 'Do Not Wait', value: 'none', description: 'Output as soon as the service has queued the message' },
	{ name: 'Sent', value: 'sent', description: "Wait until the message reached the chat app's servers" },
	{ name: 'Delivered', value: 'delivered', description: "Wait until the message reached the recipient's device" },
	{ name: 'Read', value: 'read', description: 'Wait until the recipient opened the message' },
];

/** Return All and Limit, described like catalogue fields so their defaults come from LIST_DEFAULTS. */
const LIST_FIELDS: Record<keyof typeof LIST_DEFAULTS, FieldDescriptor> = {
	returnAll: {
		name: 'returnAll',
		displayName: 'Return All',
		kind: 'boolean',
		in: 'query',
		default: LIST_DEFAULTS.returnAll,
		description: 'Whether to return all results or only up to a given limit',
	},
	limit: {
		name: 'limit',
		displayName: 'Limit',
		kind: 'integer',
		in: 'query',
		min: 1,
		default: LIST_DEFAULTS.limit,
		description: 'Max number of results to return',
	},
};

export function listParameters(op: OperationDescriptor): INodeProperties[] {
	return [
		{ ...fieldParameter(LIST_FIELDS.returnAll, false), displayOptions: show(op) },
		{ ...fieldParameter(LIST_FIELDS.limit, false), displayOptions: { show: { ...show(op).show, returnAll: [false] } } },
	];
}

export const COLLECTION_LABELS: Record<OptionalCollection, { displayName: string; placeholder: string }> = {
	filters: { displayName: 'Filters', placeholder: 'Add Filter' },
	updateFields: { displayName: 'Update Fields', placeholder: 'Add Field' },
	additionalFields: { displayName: 'Additional Fields', placeholder: 'Add Field' },
};

/** A catalogue field as an n8n parameter; version 2 offers pickers and tri-state choices where version 1 has text and switches. */
export type FieldToParameter = (field: FieldDescriptor, required: boolean, op: OperationDescriptor) => INodeProperties;

/** A version's own parameters of an operation, placed after its fields and before Return All / Limit and the collection. */
export type OwnParameters = (op: OperationDescriptor) => INodeProperties[];

/** An operation's parameters: its fields, the upload or download field, the version's own, Return All / Limit, the optional fields. */
export function operationFieldParameters(
	op: OperationDescriptor,
	toParameter: FieldToParameter = fieldParameter,
	ownParameters: OwnParameters = () => [],
): INodeProperties[] {
	const parameters: INodeProperties[] = topLevelFields(op).map((field) => ({
		...toParameter(field, field.required === true, op),
		displayOptions: show(op),
	}));
	if (binaryField(op)) {
		parameters.push({
			displayName: 'Input Binary Field',
			name: 'binaryPropertyName',
			type: 'string',
			default: 'data',
			required: true,
			description: 'Name of the binary property of the input item that holds the file to upload',
			displayOptions: show(op),
		});
	}
	if (op.download) {
		parameters.push({
			displayName: 'Put Output File in Field',
			name: 'binaryPropertyName',
			type: 'string',
			default: 'data',
			required: true,
			hint: 'The name of the output binary field to put the file in',
			displayOptions: show(op),
		});
	}
	parameters.push(...ownParameters(op));
	if (isListOperation(op)) parameters.push(...listParameters(op));
	const optional = optionalFields(op);
	if (optional.length) {
		const collection = optionalCollectionName(op);
		parameters.push({
			...COLLECTION_LABELS[collection],
			name: collection,
			type: 'collection',
			default: {},
			displayOptions: show(op),
			options: optional.map((field) => toParameter(field, false, op)).sort((a, b) => a.displayName.localeCompare(b.displayName)),
		});
	}
	return parameters;
}
