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

export const chatId = pathId('chat_id', 'Chat ID', 'integer', 'ID of the chat (the ID field of its chat record)');
export const messageUid = pathId('message_uid', 'Message UID', 'string', 'UID of the message, as returned when it was sent');
export const fileUid = pathId('uid', 'File UID', 'string', 'UID of the file');
export const webhookId = pathId('id', 'Webhook ID', 'integer', 'Identifier of the webhook subscription');

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
	field('body', 'labels', 'Labels', 'stringList', description, { required: true, placeholder: 'vip, follow-up' });

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
);
export const messageLabel = field('body', 'label', 'Label', 'string', 'Label applied to the chat automatically when sending');
export const messageReplyTo = field('body', 'reply_to', 'Reply To', 'string', 'UID of the message this one replies to');
