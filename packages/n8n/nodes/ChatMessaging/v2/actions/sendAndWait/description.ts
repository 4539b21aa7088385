/**
 * Send and Wait for Response: n8n's standard send-and-wait operation (`sendAndWait`, as in n8n's Slack,
 * Telegram and Gmail nodes), which also makes n8n offer this node as a human-in-the-loop tool for its
 * AI Agent. The core's composite (message:sendAndWait) builds the text with the links and sends it;
 * this adapter hands it n8n's signed resume URLs (each wait's own id in them), puts the execution to
 * wait, and answers the links: a GET shows the page (the approval's button, or the free-text form), and
 * only that page's POST, for the wait its link was sent for, answers.
 *
 * Parameter names are n8n's own (`message`, `responseType`, `approvalOptions`, `options`): n8n's
 * human-in-the-loop tool replaces `message` with its own and keeps the rest by these names.
 */
import { SEND_AND_WAIT_OPERATION } from 'n8n-workflow';
import type { IDataObject, IDisplayOptions, INodeProperties } from 'n8n-workflow';

import { DEFAULT_SEND_TO, SEND_AND_WAIT_COMPOSITE, sendAndWaitInputs, sendOperation, type FieldDescriptor } from '@chat-messaging/core';
import { v2FieldParameter } from '../../fields';
import { TIME_UNIT_OPTIONS } from '../wait';

/** The operation's value: n8n's constant, which its human-in-the-loop tools look for. */
export const SEND_AND_WAIT = SEND_AND_WAIT_OPERATION;
if (SEND_AND_WAIT_COMPOSITE.operation !== SEND_AND_WAIT) throw new Error('the Send and Wait composite must be n8n\'s "sendAndWait"');

const SHOW = { resource: [SEND_AND_WAIT_COMPOSITE.resource], operation: [SEND_AND_WAIT] };
const on = (extra: IDataObject = {}): IDisplayOptions => ({ show: { ...SHOW, ...extra } }) as IDisplayOptions;

const { message, responseType, approvalType, approveLabel, disapproveLabel, messageButtonLabel } = sendAndWaitInputs;
const { responseFormTitle, responseFormDescription, responseFormButtonLabel } = sendAndWaitInputs;

const stringOption = (input: FieldDescriptor, extra: Partial<INodeProperties> = {}): INodeProperties => ({
	displayName: input.displayName,
	name: input.name,
	type: 'string',
	default: String(input.default ?? ''),
	description: input.description,
	...extra,
});

const choices = (input: FieldDescriptor) => (input.options ?? []).map(({ name, value, description }) => ({ name, value, description }));

/** Options of one response type: one collection per type, as n8n's own send-and-wait nodes show them. */
const optionsFor = (type: string, options: INodeProperties[]): INodeProperties => ({
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add option',
	default: {},
	options,
	displayOptions: on({ responseType: [type] }),
});

/** n8n's Limit Wait Time: after an interval or at a date; unlimited when not added. */
const limitWaitTime: INodeProperties = {
	displayName: 'Limit Wait Time',
	name: 'limitWaitTime',
	type: 'fixedCollection',
	description: 'Whether to limit the time this node waits for a response before the execution resumes without one',
	default: { values: { limitType: 'afterTimeInterval', resumeAmount: 45, resumeUnit: 'minutes' } },
	options: [
		{
			displayName: 'Values',
			name: 'values',
			values: [
				{
					displayName: 'Limit Type',
					name: 'limitType',
					type: 'options',
					default: 'afterTimeInterval',
					description: 'Resume after some time, or at a date and time',
					options: [
						{ name: 'After Time Interval', value: 'afterTimeInterval', description: 'Waits for a certain amount of time' },
						{ name: 'At Specified Time', value: 'atSpecifiedTime', description: 'Waits until the set date and time to continue' },
					],
				},
				{
					displayName: 'Amount',
					name: 'resumeAmount',
					type: 'number',
					displayOptions: { show: { limitType: ['afterTimeInterval'] } },
					typeOptions: { minValue: 0, numberPrecision: 2 },
					default: 1,
					description: 'The time to wait',
				},
				{
					displayName: 'Unit',
					name: 'resumeUnit',
					type: 'options',
					displayOptions: { show: { limitType: ['afterTimeInterval'] } },
					options: TIME_UNIT_OPTIONS,
					default: 'hours',
					description: 'Unit of the interval value',
				},
				{
					displayName: 'Max Date and Time',
					name: 'maxDateAndTime',
					type: 'dateTime',
					displayOptions: { show: { limitType: ['atSpecifiedTime'] } },
					default: '',
					description: 'Continue execution after the specified date and time',
				},
			],
		},
	],
};

/** The operation's parameters (Send To and its addressing as Send shows them, then n8n's send-and-wait ones). */
export function sendAndWaitProperties(): INodeProperties[] {
	const { variants } = SEND_AND_WAIT_COMPOSITE;
	const addressing = SEND_AND_WAIT_COMPOSITE.fields
		.filter(({ field }) => field !== message)
		.map(({ field, variants: targets }) => ({
			...v2FieldParameter(field, true, sendOperation(targets[0] ?? DEFAULT_SEND_TO)),
			displayOptions: on({ [variants.name]: [...targets] }),
		}));
	return [
		{
			displayName: variants.displayName,
			name: variants.name,
			type: 'options',
			noDataExpression: true,
			options: variants.options.map(({ name, value, description }) => ({ name, value, description })),
			default: DEFAULT_SEND_TO,
			displayOptions: on(),
		},
		...addressing,
		{ ...stringOption(message), required: true, typeOptions: { rows: 4 }, displayOptions: on() },
		{
			displayName: responseType.displayName,
			name: responseType.name,
			type: 'options',
			default: String(responseType.default),
			options: choices(responseType),
			displayOptions: on(),
		},
		{
			displayName: 'Approval Options',
			name: 'approvalOptions',
			type: 'fixedCollection',
			placeholder: 'Add option',
			default: {},
			options: [
				{
					displayName: 'Values',
					name: 'values',
					values: [
						{
							displayName: approvalType.displayName,
							name: approvalType.name,
							type: 'options',
							default: String(approvalType.default),
							options: choices(approvalType),
						},
						stringOption(approveLabel, { displayOptions: { show: { approvalType: ['single', 'double'] } } }),
						stringOption(disapproveLabel, { displayOptions: { show: { approvalType: ['double'] } } }),
					],
				},
			],
			displayOptions: on({ responseType: ['approval'] }),
		},
		optionsFor('approval', [limitWaitTime]),
		optionsFor('freeText', [
			limitWaitTime,
			stringOption(messageButtonLabel),
			stringOption(responseFormButtonLabel),
			stringOption(responseFormDescription),
			stringOption(responseFormTitle),
		]),
	];
}
