/** Send and Wait for Reply (`message:sendAndWaitForReply`): a Send, then the customer's next message (catalogue/composites.ts). */
import { DEFAULT_REPLY_POLL_S, DEFAULT_REPLY_TIMEOUT_S } from './defaults';
import type { CompositeVariant, SendingComposite } from './compositeDescriptor';
import { field } from './fields';
import { SEND_TARGETS } from './send';
import { SEND_COMPOSITE } from './sendComposite';
import type { FieldDescriptor } from './types';

/**
 * Send and Wait for Reply: where the message goes. Every Send To choice (a reply is awaited in the chat
 * the message went to, whichever way it was addressed); a chat first, the default where a reply is awaited.
 */
const REPLY_SEND_TARGETS: readonly CompositeVariant[] = [
	{ value: 'chat', name: 'Chat', description: 'An existing chat, by its ID', operation: 'message:sendToChat' },
	{ value: 'phone', name: 'Phone Number', description: 'A phone number, also one never messaged before', operation: 'message:sendToPhone' },
	...SEND_TARGETS.filter((target) => target.value !== 'chat' && target.value !== 'phone').map((target) => ({ ...target })),
];

const replyTimeoutInput: FieldDescriptor = field(
	'body',
	'replyTimeout',
	'Reply Time-Out (Seconds)',
	'integer',
	'How long to wait for the reply',
	{ default: DEFAULT_REPLY_TIMEOUT_S, min: 1 },
);

const replyPollInput: FieldDescriptor = field(
	'body',
	'pollInterval',
	'Poll Every (Seconds)',
	'integer',
	'Pause between two looks for the reply (one request each)',
	{ default: DEFAULT_REPLY_POLL_S, min: 1 },
);

/**
 * The text of a send whose reply is awaited: asked of people and agents (n8n, the MCP server). The
 * handler, like Send, also takes a file alone (an attachment or file_uid): Node-RED's Reply sits on
 * every send, a file without text included.
 */
const replyText = (text: FieldDescriptor): FieldDescriptor => ({
	...text,
	displayName: 'Message',
	required: true,
	description: 'The text to send; the reply to it is waited for',
});

export const SEND_AND_WAIT_FOR_REPLY_COMPOSITE: SendingComposite = {
	kind: 'composite',
	resource: 'message',
	operation: 'sendAndWaitForReply',
	name: 'Send and Wait for Reply',
	action: 'Send a message and wait for the reply',
	description: "Send a message into a chat, then wait for the customer's next message in that chat, with a time-out",
	effect: 'create',
	variants: { name: 'sendTo', displayName: 'Send To', default: 'chat', options: REPLY_SEND_TARGETS },
	// Send's fields (every Send To choice), its text asked for as the message.
	fields: SEND_COMPOSITE.fields.map((entry) => (entry.field.name === 'text' ? { ...entry, field: replyText(entry.field) } : entry)),
	options: [replyTimeoutInput, replyPollInput, ...SEND_COMPOSITE.options],
	steps: [
		...SEND_COMPOSITE.steps,
		'message:get (the chat of the sent message)',
		'message:getAll after the sent message until a reply or the time-out',
	],
	returns:
		"Returns the message_uid and chat_id of the sent message and replied (true or false): with a reply, reply is the customer's message (its text, type, time and chat); without one within replyTimeout, reply is null and timed_out is true (an answer, not an error); with an attachment also file, with waitForStatus also status and message, as Send returns them",
	recoversLostSend: true,
};
