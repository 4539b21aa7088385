/** Send (`message:send`): Send To, optionally an attachment and a wait for a status (catalogue/composites.ts). */
import { DEFAULT_WAIT_TIMEOUT_S, WAIT_TARGETS } from './defaults';
import type { CompositeVariants, SendingComposite } from './compositeDescriptor';
import { field } from './fields';
import { DEFAULT_SEND_TO, SEND_OPERATION, SEND_TARGETS, sendFields } from './send';
import type { FieldDescriptor } from './types';

/** The attachment of a send: bytes to upload, or a public URL the service downloads. */
const attachmentInput: FieldDescriptor = field(
	'body',
	'attachment',
	'Attachment',
	'string',
	'A file to send with the message: bytes (uploaded first) or a public http(s) URL the service downloads. 2 credits instead of 1',
);

const waitForStatusInput: FieldDescriptor = field(
	'body',
	'waitForStatus',
	'Wait for Status',
	'options',
	'Whether to poll the message until it reaches a status before returning it (a failed message is an error)',
	{
		default: 'none',
		options: [
			{ value: 'none', name: 'Do Not Wait' },
			...WAIT_TARGETS.map((value) => ({ value, name: value[0].toUpperCase() + value.slice(1) })),
		],
	},
);

const waitTimeoutInput: FieldDescriptor = field(
	'body',
	'waitTimeout',
	'Wait Timeout (Seconds)',
	'integer',
	'How long to wait for the status before failing (used with Wait for Status)',
	{ default: DEFAULT_WAIT_TIMEOUT_S, min: 1 },
);

/** Send To with every target of Send: the variants of each composite that sends as Send does. */
export const SEND_TO_VARIANTS: CompositeVariants = {
	name: 'sendTo',
	displayName: 'Send To',
	default: DEFAULT_SEND_TO,
	options: SEND_TARGETS.map((target) => ({ ...target })),
};

export const SEND_COMPOSITE: SendingComposite = {
	kind: 'composite',
	resource: 'message',
	operation: SEND_OPERATION.operation,
	name: SEND_OPERATION.name,
	action: SEND_OPERATION.action,
	description: 'Send a message to a phone number, a chat, a chat name or a JID. Costs 1 credit, 2 with an attachment',
	effect: 'create',
	variants: SEND_TO_VARIANTS,
	fields: sendFields().map(({ field: sendField, sendTo }) => ({ field: sendField, variants: sendTo })),
	options: [attachmentInput, waitForStatusInput, waitTimeoutInput],
	steps: [
		'file:upload or file:uploadFromUrl (with an attachment)',
		'the send of the Send To choice',
		'message:get until the status (with Wait for Status)',
	],
	returns:
		'Returns the message_uid, the chat_id and the status of the queued message; with waitForStatus, also the message record once it reached that status (a failed message, or the status not reached within waitTimeout, is an error)',
	recoversLostSend: true,
};
