/**
 * The inbox options (packages/core/src/catalogue/inboxOptions.ts) as n8n parameters of a trigger's Options
 * collection: names, defaults and descriptions come from the core, so n8n and Node-RED show the same.
 */
import type { INodeProperties } from 'n8n-workflow';

import type { InboxOptionDescriptor } from '@chat-messaging/core';

export function inboxOptionProperty(option: InboxOptionDescriptor, displayOptions?: INodeProperties['displayOptions']): INodeProperties {
	const shown = displayOptions ? { displayOptions } : {};
	// A named value, not option.default: n8n's lint reads a member expression as a missing default, and wants a
	// boolean's as a literal: every inbox option is off (the core's default; packages/n8n/test/trigger-options.test.ts
	// compares them).
	const off = option.default;
	if (option.type === 'boolean') {
		return {
			displayName: option.displayName,
			name: option.name,
			type: 'boolean',
			default: false,
			description: option.description,
			...shown,
		};
	}
	return {
		displayName: option.displayName,
		name: option.name,
		type: 'number',
		typeOptions: { minValue: option.minValue ?? 0 },
		default: off,
		description: option.description,
		...shown,
	};
}
