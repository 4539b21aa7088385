/**
 * A catalogue field as a version 2 parameter, and its value read back: ids are picked from searchable
 * lists (resource locators), teammates, accounts and labels in use are dropdowns loaded from the
 * workspace, boolean filters are Any / <true> / <false> choices. An operation's whole input is read back
 * here too (readInput), for every operation folder under actions/ that runs a catalogue operation.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties, INodePropertyModeValidation } from 'n8n-workflow';

import { CHAT_URL_EXAMPLE, CHAT_URL_PATTERN, chatIdFromUrl, fieldHint, inputError, isRecord, TRI_STATE_ANY } from '@chat-messaging/core';
import type { FieldDescriptor, LookupKey, OperationDescriptor } from '@chat-messaging/core';
import { fieldParameter, isTopLevelField, n8nText, optionalFields, topLevelFields } from '../shared/parameters';

/** Where a date alone is read: the workflow's time zone (n8n's setting, which the executor is given). */
const TIME_ZONE_PLACE = "the workflow's time zone";

/** listSearch methods of the resource locators, by the list they search. */
const SEARCH_METHODS: Partial<Record<LookupKey, string>> = {
	chat: 'searchChats',
	teammate: 'searchTeammates',
	webhook: 'searchWebhooks',
	file: 'searchFiles',
	invitation: 'searchInvitations',
};

/** loadOptions methods of the dropdowns, by the list they load. */
const LOAD_METHODS: Partial<Record<LookupKey, string>> = {
	teammate: 'getTeammates',
	account: 'getAccounts',
	label: 'getLabels',
};

/** "Nobody" first, then the teammates: for Update's Responsible Email, where an empty value unassigns. */
const TEAMMATES_OR_NOBODY = 'getTeammatesOrNobody';

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

/**
 * The value of a parameter that may be a resource locator (`{mode, value}`): the id itself, or for
 * "By URL" the chat id in the URL. A plain value (an expression's result) is taken as it is.
 */
export function locatorValue(field: FieldDescriptor, raw: unknown): unknown {
	if (!isRecord(raw) || !('mode' in raw)) return raw;
	const value = raw.value;
	if (raw.mode !== 'url') return typeof value === 'string' ? value.trim() : value;
	const url = String(value ?? '').trim();
	if (!url) return '';
	const id = chatIdFromUrl(url);
	if (id === undefined)
		throw inputError(field.name, `is not a chat URL such as https://<web app>/chats/42, got "${url}"`, field.displayName);
	return id;
}

/** The flat executor input of one item, from the parameters version 2 shows for the operation. */
export function readInput(
	context: IExecuteFunctions,
	op: OperationDescriptor,
	itemIndex: number,
	collectionName: string,
): Record<string, unknown> {
	const input: Record<string, unknown> = {};
	for (const field of topLevelFields(op)) input[field.name] = locatorValue(field, context.getNodeParameter(field.name, itemIndex, ''));
	const optional = optionalFields(op);
	if (optional.length) {
		const collection = context.getNodeParameter(collectionName, itemIndex, {}) as IDataObject;
		for (const field of optional) {
			if (collection[field.name] !== undefined) input[field.name] = locatorValue(field, collection[field.name]);
		}
	}
	return input;
}
