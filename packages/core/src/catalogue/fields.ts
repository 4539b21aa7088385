/**
 * Builders for the fields that recur across resources, so each resource file reads like the spec's
 * table rather than repeating the same records.
 */
import type { FieldDescriptor, FieldKind, FieldLocation, FieldOption } from './types';

type FieldExtras = Partial<Omit<FieldDescriptor, 'name' | 'displayName' | 'kind' | 'in' | 'description'>>;

export function field(
	location: FieldLocation,
	name: string,
	displayName: string,
	kind: FieldKind,
	description: string,
	extras: FieldExtras = {},
): FieldDescriptor {
	return { name, displayName, kind, in: location, description, ...extras };
}

/** A record's id in the path: required; numeric ids are positive (the wire takes safe integers only). */
export const pathId = (name: string, displayName: string, kind: FieldKind, description: string): FieldDescriptor =>
	field('path', name, displayName, kind, description, { required: true, ...(kind === 'integer' ? { min: 1 } : {}) });

export const chatId: FieldDescriptor = {
	...pathId('chat_id', 'Chat ID', 'integer', 'ID of the chat (the ID field of its chat record)'),
	picker: 'chat',
};
export const messageUid = pathId('message_uid', 'Message UID', 'string', 'UID of the message, as returned when it was sent');
export const fileUid: FieldDescriptor = { ...pathId('uid', 'File UID', 'string', 'UID of the file'), picker: 'file' };
export const webhookId: FieldDescriptor = {
	...pathId('id', 'Webhook ID', 'integer', 'Identifier of the webhook subscription'),
	picker: 'webhook',
};

/** The value of a tri-state filter's "Any" choice: no filter is sent. */
export const TRI_STATE_ANY = 'any';

/** A boolean query filter offered as Any / `whenTrue` / `whenFalse`. */
export const triStateFilter = (
	name: string,
	displayName: string,
	description: string,
	whenTrue: string,
	whenFalse: string,
): FieldDescriptor => field('query', name, displayName, 'boolean', description, { triState: { true: whenTrue, false: whenFalse } });

/** Format rules shown beside fields before anything is run. */
export const HINTS = {
	phone: 'International format with country code, digits only, "+" optional: +14155550123',
	jid: 'Number or group ID, "@", server: 14155550123@c.us',
	wid: 'Account ID as listed under Chat-App Accounts: 14155550123@c.us',
	dateTime: 'A date-time with a time zone, e.g. 2026-01-31T09:00:00Z, or a date such as 2026-01-31',
	stringList: 'Several values separated by commas',
} as const;

export const page: FieldDescriptor = field(
	'query',
	'page',
	'Page',
	'integer',
	'Page number, starting at 1. Leave empty to let the node page through the results',
	{
		min: 1,
	},
);

export const labelsBody = (description: string): FieldDescriptor =>
	field('body', 'labels', 'Labels', 'stringList', description, { required: true, placeholder: 'vip, follow-up', picker: 'label' });

export const EVENT_TYPES: readonly FieldOption[] = [
	{ value: 'message:received:new', name: 'Message Received', description: 'A new incoming message' },
	{ value: 'message:sent:new', name: 'Message Sent', description: 'A message was sent successfully' },
	{ value: 'chat:created', name: 'Chat Created', description: 'A new chat was created' },
];

/** Body fields every send operation shares after its addressing field. */
export const messageText = field(
	'body',
	'text',
	'Text',
	'text',
	'Message text; line breaks and emojis are allowed. A message needs text, an attachment, or both',
);
export const messageFileUid = field(
	'body',
	'file_uid',
	'File UID',
	'string',
	'UID of a previously uploaded file to attach (costs 2 credits instead of 1)',
	{ picker: 'file' },
);
export const messageLabel = field('body', 'label', 'Label', 'string', 'Label applied to the chat automatically when sending', {
	picker: 'label',
});
export const messageReplyTo = field('body', 'reply_to', 'Reply To', 'string', 'UID of the message this one replies to');

/** The format rule to show beside a field: its own, else the rule of its kind, else none. */
export function fieldHint(field: FieldDescriptor): string | undefined {
	if (field.hint) return field.hint;
	switch (field.kind) {
		case 'phone':
			return HINTS.phone;
		case 'jid':
			return HINTS.jid;
		case 'wid':
			return HINTS.wid;
		case 'dateTime':
			return HINTS.dateTime;
		default:
			return undefined;
	}
}
