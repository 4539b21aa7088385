/**
 * Send's parameters: one operation for the four ways to send (the composite `message:send`), with a Send
 * To choice, the addressing field of each choice, and one Options collection per choice.
 */
import type { INodeProperties } from 'n8n-workflow';

import { DEFAULT_SEND_TO, DEFAULT_WAIT_TIMEOUT_S, SEND_COMPOSITE, SEND_TARGETS, sendOperation } from '@chat-messaging/core';
import { isTopLevelField, optionalFields, WAIT_TARGETS } from '../../../shared/parameters';
import { v2FieldParameter } from '../../fields';

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
export function sendParameters(): INodeProperties[] {
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
