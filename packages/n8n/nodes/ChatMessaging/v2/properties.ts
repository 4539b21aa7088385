/**
 * Version 2 of the action node's parameters, generated from the same catalogue as version 1: ids are
 * picked from searchable lists (resource locators), teammates, accounts and labels in use are
 * dropdowns loaded from the workspace, boolean filters are Any / <true> / <false> choices, and the
 * four ways to send are one Send operation with a Send To choice.
 */
import type { INodeProperties, INodePropertyOptions, INodePropertyModeValidation } from 'n8n-workflow';

import {
	CHAT_URL_EXAMPLE,
	ALL_COMPOSITES,
	CHAT_URL_PATTERN,
	COMPOSITES,
	DEFAULT_SEND_TO,
	DEFAULT_WAIT_TIMEOUT_S,
	fieldHint,
	RESOURCES,
	SEND_COMPOSITE,
	SEND_TARGETS,
	sendOperation,
	TRI_STATE_ANY,
} from '@chat-messaging/core';
import type { FieldDescriptor, LookupKey, OperationDescriptor, ResourceDescriptor } from '@chat-messaging/core';
import {
	byName,
	fieldParameter,
	isTopLevelField,
	n8nText,
	operationFieldParameters,
	optionalFields,
	resourceParameter,
	WAIT_TARGETS,
} from '../shared/parameters';
import { BURST_OPERATIONS, BURST_RESOURCE } from './burst/burst';

/** Where a date alone is read: the workflow's time zone (n8n's setting, which the executor is given). */
export const TIME_ZONE_PLACE = "the workflow's time zone";

/** The resource and operation a new node opens with: sending a message, what most workflows do. */
export const DEFAULT_RESOURCE = 'message';

/** listSearch methods of the resource locators, by the list they search. */
export const SEARCH_METHODS: Partial<Record<LookupKey, string>> = {
	chat: 'searchChats',
	teammate: 'searchTeammates',
	webhook: 'searchWebhooks',
	file: 'searchFiles',
	invitation: 'searchInvitations',
};

/** loadOptions methods of the dropdowns, by the list they load. */
export const LOAD_METHODS: Partial<Record<LookupKey, string>> = {
	teammate: 'getTeammates',
	account: 'getAccounts',
	label: 'getLabels',
};

/** "Nobody" first, then the teammates: for Update's Responsible Email, where an empty value unassigns. */
export const TEAMMATES_OR_NOBODY = 'getTeammatesOrNobody';

/** How each list's records are named in the locator ("Chat", "Webhook"), and what its "By ID" mode takes. */
const LOCATOR: Record<string, { noun: string; idMode: string; idPlaceholder: string; idPattern?: string }> = {
	chat: { noun: 'chat', idMode: 'By ID', idPlaceholder: '1000017', idPattern: '^\\s*\\d+\\s*$' },
	teammate: { noun: 'teammate', idMode: 'By Email', idPlaceholder: 'name@email.com', idPattern: '^\\s*[^\\s@]+@[^\\s@]+\\.[^\\s@]+\\s*$' },
	webhook: { noun: 'webhook subscription', idMode: 'By ID', idPlaceholder: '12', idPattern: '^\\s*\\d+\\s*$' },
	file: { noun: 'file', idMode: 'By UID', idPlaceholder: 'F0A1B2C3D4' },
	invitation: { noun: 'invitation', idMode: 'By User ID', idPlaceholder: '1000005' },
};

/** An id a user would otherwise copy: a list to search, the id itself, and for chats their web-app URL. */
function locatorParameter(field: FieldDescriptor, required: boolean, key: LookupKey): INodeProperties {
	const locator = LOCATOR[key];
	const validation = (regex: string, errorMessage: string): INodePropertyModeValidation[] => [
		{ type: 'regex', properties: { regex, errorMessage } },
	];
	return {
		displayName: field.displayName.replace(/ (ID|UID)$/, '') === 'User' ? 'Invitation' : field.displayName.replace(/ (ID|UID)$/, ''),
		name: field.name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		...(required ? { required: true } : {}),
		description: n8nText(field.description),
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: `Select a ${locator.noun}...`,
				typeOptions: { searchListMethod: SEARCH_METHODS[key], searchable: true },
			},
			{
				displayName: locator.idMode,
				name: 'id',
				type: 'string',
				placeholder: locator.idPlaceholder,
				...(locator.idPattern
					? { validation: validation(locator.idPattern, `Not a valid ${locator.noun} ${locator.idMode.slice(3)}`) }
					: {}),
			},
			...(key === 'chat'
				? [
						{
							displayName: 'By URL',
							name: 'url',
							type: 'string' as const,
							placeholder: CHAT_URL_EXAMPLE,
							validation: validation(CHAT_URL_PATTERN, 'Not a chat URL: copy it from the chat in the web app'),
						},
					]
				: []),
		],
	};
}

/** Any / <true label> / <false label>; Any sends no filter. */
function triStateParameter(field: FieldDescriptor): INodeProperties {
	const labels = field.triState ?? { true: 'Yes', false: 'No' };
	return {
		displayName: field.displayName,
		name: field.name,
		type: 'options',
		options: [
			{ name: 'Any', value: TRI_STATE_ANY, description: 'Do not filter on this' },
			{ name: labels.true, value: 'true', ...(labels.trueDescription ? { description: labels.trueDescription } : {}) },
			{ name: labels.false, value: 'false', ...(labels.falseDescription ? { description: labels.falseDescription } : {}) },
		],
		default: TRI_STATE_ANY,
		description: n8nText(field.description),
	};
}

/** A dropdown loaded from the workspace; an expression still gives any value. */
function dropdownParameter(field: FieldDescriptor, required: boolean, method: string): INodeProperties {
	const multiple = field.kind === 'stringList';
	// n8n's wording for dynamic lists: "<Entity> Name or ID", and the expression hint as the description.
	const entity = field.displayName.replace(/ (IDs?|Emails?)$/, '').replace(/s$/, '');
	return {
		displayName: multiple ? `${entity} Names or IDs` : `${entity} Name or ID`,
		name: field.name,
		type: multiple ? 'multiOptions' : 'options',
		typeOptions: { loadOptionsMethod: method },
		default: multiple ? [] : '',
		...(required ? { required: true } : {}),
		description: `Choose from the list, or specify ${multiple ? 'IDs' : 'an ID'} using an <a href="https://docs.n8n.io/code/expressions/">expression</a>`,
		hint: n8nText(field.description),
	};
}

/**
 * A catalogue field as a version 2 parameter. Labels to add stay free text (a new label is created
 * when used); labels to remove or filter by come from the labels in use.
 */
export function v2FieldParameter(field: FieldDescriptor, required: boolean, op: OperationDescriptor): INodeProperties {
	if (field.triState) return triStateParameter(field);
	const key = field.picker;
	const topLevel = isTopLevelField(op, field);
	if (key && topLevel && SEARCH_METHODS[key] && (field.in === 'path' || key === 'teammate')) return locatorParameter(field, required, key);
	if (key === 'teammate' && field.allowEmpty) return dropdownParameter(field, required, TEAMMATES_OR_NOBODY);
	if (key === 'teammate' || key === 'account' || (key === 'label' && (op.method === 'GET' || op.readModifyWrite)))
		return dropdownParameter(field, required, LOAD_METHODS[key] ?? '');
	const parameter = fieldParameter(field, required);
	const formatHint = fieldHint(field, TIME_ZONE_PLACE);
	return formatHint ? { ...parameter, hint: formatHint } : parameter;
}

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
export function v2Operations(resource: ResourceDescriptor): OperationOption[] {
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
export const v2DefaultOperation = (resource: ResourceDescriptor): string =>
	COMPOSITES.some((composite) => composite === SEND_COMPOSITE && composite.resource === resource.key)
		? SEND_COMPOSITE.operation
		: (V2_DEFAULT_OPERATIONS[resource.key] ?? String(v2Operations(resource)[0]?.value ?? ''));

/** The descriptors version 2 runs directly (every operation but the four sends, which Send replaces). */
export const v2Descriptors = (resource: ResourceDescriptor): OperationDescriptor[] => resource.operations.filter((op) => !op.sendsMessage);

const SEND_SHOW = { resource: [SEND_COMPOSITE.resource], operation: [SEND_COMPOSITE.operation] };

/** Options every send offers beside its own optional fields: an attachment and waiting for a status. */
function sendExtras(): INodeProperties[] {
	return [
		{
			displayName: 'Attachment From Binary Field',
			name: 'attachmentBinaryField',
			type: 'string',
			default: 'data',
			description: 'Name of the binary field of the input item whose file is uploaded and sent with the message (2 credits instead of 1)',
		},
		{
			displayName: 'Attachment From URL',
			name: 'attachmentUrl',
			type: 'string',
			default: '',
			placeholder: 'https://example.com/file.pdf',
			description: 'Public address of a file the service downloads and sends with the message (2 credits instead of 1)',
		},
		{
			displayName: 'Wait for Status',
			name: 'waitForStatus',
			type: 'options',
			options: WAIT_TARGETS,
			default: 'none',
			description: 'Whether to poll the message until it reaches a status before outputting it (a failed message is an error)',
		},
		{
			displayName: 'Wait Timeout (Seconds)',
			name: 'waitTimeout',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: DEFAULT_WAIT_TIMEOUT_S,
			description: 'How long to wait for the status before failing (used with Wait for Status)',
		},
	];
}

/** Send: Send To, the addressing field of the choice, the text, then one Options collection per choice. */
function sendParameters(): INodeProperties[] {
	const { variants } = SEND_COMPOSITE;
	const sendTo: INodeProperties = {
		displayName: variants.displayName,
		name: variants.name,
		type: 'options',
		noDataExpression: true,
		options: variants.options.map((target) => ({ name: target.name, value: target.value, description: target.description })),
		default: DEFAULT_SEND_TO,
		displayOptions: { show: SEND_SHOW },
	};
	const fieldParameters = SEND_COMPOSITE.fields
		.filter(({ field, variants: targets }) => isTopLevelField(sendOperation(targets[0] ?? DEFAULT_SEND_TO), field))
		.map(({ field, variants: targets }) => ({
			...v2FieldParameter(field, field.required === true, sendOperation(targets[0] ?? DEFAULT_SEND_TO)),
			displayOptions: { show: { ...SEND_SHOW, ...(targets.length === SEND_TARGETS.length ? {} : { sendTo: [...targets] }) } },
		}));
	const options = SEND_TARGETS.map((target): INodeProperties => ({
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show: { ...SEND_SHOW, sendTo: [target.value] } },
		options: [
			...optionalFields(sendOperation(target.value)).map((field) => v2FieldParameter(field, false, sendOperation(target.value))),
			...sendExtras(),
		].sort((a, b) => a.displayName.localeCompare(b.displayName)),
	}));
	return [sendTo, ...fieldParameters, ...options];
}

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
