/**
 * The event filters (packages/core/src/catalogue/eventFilterOptions.ts) as n8n parameters of a trigger's Options
 * collection: names, choices, defaults and descriptions come from the core, so both triggers and the
 * Node-RED event node show the same, and the core's readEventFilter reads what they save.
 */
import type { INodeProperties } from 'n8n-workflow';

import type { EventFilterOptionDescriptor } from '@chat-messaging/core';

export function eventFilterProperty(
	option: EventFilterOptionDescriptor,
	displayOptions?: INodeProperties['displayOptions'],
): INodeProperties {
	const common = {
		displayName: option.displayName,
		name: option.name,
		description: option.description,
		...(displayOptions ? { displayOptions } : {}),
	};
	// Literal defaults where n8n's lint reads them (a boolean's must be one): every filter passes everything by
	// default, as the core's descriptors say (packages/n8n/test/trigger-options.test.ts compares them).
	if (option.type === 'boolean') return { ...common, type: 'boolean', default: false };
	if (option.type === 'options') {
		return {
			...common,
			type: 'options',
			options: (option.options ?? []).map((choice) => ({
				name: choice.name,
				value: choice.value,
				...(choice.description ? { description: choice.description } : {}),
			})),
			default: option.default,
		};
	}
	return { ...common, type: 'string', default: '', ...(option.placeholder ? { placeholder: option.placeholder } : {}) };
}
