/** Send and Wait for Reply's parameters: Send To and its addressing, the message, the time-out and the way to wait. */
import type { IDataObject, IDisplayOptions, INodeProperties } from 'n8n-workflow';

import { DEFAULT_REPLY_POLL_S, DEFAULT_REPLY_TIMEOUT_S, FIELD_KINDS, SEND_AND_WAIT_FOR_REPLY_COMPOSITE } from '@chat-messaging/core';
import { secondsPerUnit, TIME_UNIT_OPTIONS } from '../wait';

/** The composite's operation key (packages/core/src/catalogue/composites.ts), as saved workflows hold it. */
export const SEND_AND_WAIT_FOR_REPLY = SEND_AND_WAIT_FOR_REPLY_COMPOSITE.operation;

export const DEFAULT_REPLY_SEND_TO = SEND_AND_WAIT_FOR_REPLY_COMPOSITE.variants.default;
/** The core's reply time-out, shown as n8n shows it: an amount of hours. */
export const DEFAULT_TIMEOUT_HOURS = DEFAULT_REPLY_TIMEOUT_S / secondsPerUnit('hours', 'Time-Out Unit');

/** The field the composite asks of one Send To choice as a required text parameter (Chat Name, JID). */
function addressParameter(sendTo: string, name: string, parameter: string, on: (extra: IDataObject) => IDisplayOptions): INodeProperties {
	const entry = SEND_AND_WAIT_FOR_REPLY_COMPOSITE.fields.find(
		(candidate) => candidate.field.name === name && candidate.variants.includes(sendTo),
	);
	if (!entry) throw new Error(`Send and Wait for Reply has no field ${name} for Send To ${sendTo}`);
	const { field } = entry;
	return {
		displayName: field.displayName,
		name: parameter,
		type: 'string',
		required: true,
		default: '',
		placeholder: field.placeholder,
		description: field.description,
		hint: FIELD_KINDS[field.kind]?.hint,
		displayOptions: on({ replyWaitSendTo: [sendTo] }),
	};
}

/**
 * The operation's parameters, shown where `show` says (resource and operation of the host node).
 * `chatParameter` replaces the plain Chat ID text box (version 2 passes its chat picker).
 */
export function sendAndWaitForReplyProperties(show: IDisplayOptions['show'], chatParameter?: INodeProperties): INodeProperties[] {
	const on = (extra: IDataObject = {}) => ({ show: { ...show, ...extra } }) as IDisplayOptions;
	const plainChatId: INodeProperties = {
		displayName: 'Chat ID',
		name: 'replyWaitChatId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 1000001',
		description: 'The chat to send into and to wait in',
	};
	return [
		{
			displayName:
				"The customer's next message in the chat resumes the workflow; its output holds <code>reply</code>. If no reply comes in time, the workflow goes on with this node's input items (no <code>reply</code>), as n8n's Wait node does.",
			name: 'replyWaitNotice',
			type: 'notice',
			default: '',
			displayOptions: on(),
		},
		{
			displayName: 'Send To',
			name: 'replyWaitSendTo',
			type: 'options',
			options: SEND_AND_WAIT_FOR_REPLY_COMPOSITE.variants.options.map(({ name, value, description }) => ({ name, value, description })),
			default: DEFAULT_REPLY_SEND_TO,
			displayOptions: on(),
		},
		{
			...(chatParameter ?? plainChatId),
			name: 'replyWaitChatId',
			required: true,
			description: 'The chat to send into and to wait in',
			displayOptions: on({ replyWaitSendTo: ['chat'] }),
		},
		{
			displayName: 'Phone Number',
			name: 'replyWaitPhone',
			type: 'string',
			required: true,
			default: '',
			placeholder: '+4915112345678',
			description: 'Phone number of the recipient',
			hint: FIELD_KINDS.phone.hint,
			displayOptions: on({ replyWaitSendTo: ['phone'] }),
		},
		// The other Send To choices of the composite (packages/core/src/catalogue/composites.ts), described as the core describes them.
		addressParameter('chatName', 'chat_name', 'replyWaitChatName', on),
		addressParameter('jid', 'jid', 'replyWaitJid', on),
		{
			displayName: 'Message',
			name: 'replyWaitText',
			type: 'string',
			required: true,
			default: '',
			typeOptions: { rows: 3 },
			description: 'The text to send; the reply to it is waited for',
			displayOptions: on(),
		},
		{
			displayName: 'Time-Out',
			name: 'replyWaitTimeout',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 2 },
			default: DEFAULT_TIMEOUT_HOURS,
			description: 'How long to wait for the reply',
			displayOptions: on(),
		},
		{
			displayName: 'Time-Out Unit',
			name: 'replyWaitTimeoutUnit',
			type: 'options',
			options: TIME_UNIT_OPTIONS,
			default: 'hours',
			displayOptions: on(),
		},
		{
			displayName: 'Wait Using',
			name: 'replyWaitUsing',
			type: 'options',
			options: [
				{
					name: 'Webhook (Execution Waits)',
					value: 'webhook',
					description: "The execution pauses; a temporary webhook subscription resumes it on the reply. Needs n8n's public HTTPS URL.",
				},
				{
					name: 'Polling (Execution Keeps Running)',
					value: 'polling',
					description:
						"Reads the chat's messages every few seconds. No public URL and no subscription needed; for waits of minutes. On time-out outputs replied: false.",
				},
			],
			default: 'webhook',
			displayOptions: on(),
		},
		{
			displayName: 'Poll Every (Seconds)',
			name: 'replyWaitPollSeconds',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: DEFAULT_REPLY_POLL_S,
			description: 'Pause between two looks for the reply (one request each)',
			displayOptions: on({ replyWaitUsing: ['polling'] }),
		},
	];
}
