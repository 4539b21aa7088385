/** The action node's English texts (locales/en-US/index.json, namespace `chat-messaging`), field labels and help included. */
import {
	changesTarget,
	fieldHint,
	RESOURCES,
	SEND_TARGETS,
	type FieldDescriptor,
	type OperationDescriptor,
	type ResourceDescriptor,
} from '@chat-messaging/core';
import { CHOICES, TIME_ZONE_PLACE } from '../../generate/catalogue';
import { messageKey, sentence } from '../../generate/html';
import { editorResources, fieldKeyIn } from '../../generate/send';

/** A field's help line: its description, then its format rule from the core's table (a widget shows the rest). */
function fieldHelp(op: OperationDescriptor, field: FieldDescriptor): string {
	const parts = [sentence(field.description)];
	const format = field.kind === 'binary' ? 'a Buffer, or {data: Buffer, filename, mimeType}' : fieldHint(field, TIME_ZONE_PLACE);
	if (format) parts.push(`Format: ${sentence(format)}`);
	if (field.kind === 'integer' && (field.min !== undefined || field.max !== undefined)) {
		parts.push(
			`Whole number${field.min !== undefined ? `, at least ${field.min}` : ''}${field.max !== undefined ? `, at most ${field.max}` : ''}.`,
		);
	}
	if (field.options) parts.push(`One of: ${field.options.map((o) => o.value).join(', ')}.`);
	if (op.requireOneOf?.includes(field.name)) parts.push(`Give ${op.requireOneOf.join(' or ')} (or an attachment).`);
	// As the runtime (input.ts beside this file) fills empty fields with From payload on.
	parts.push(
		changesTarget(op) && field.in === 'path' ? 'Never read from msg.payload.' : `Empty, with From payload on: msg.payload.${field.name}.`,
	);
	return parts.join(' ');
}

export function actionMessages(resources: readonly ResourceDescriptor[] = RESOURCES) {
	const fields = (op: OperationDescriptor) =>
		Object.fromEntries(op.fields.map((field) => [fieldKeyIn(op, field), { label: field.displayName, help: fieldHelp(op, field) }]));
	return {
		label: {
			name: 'Name',
			service: 'Service',
			resource: 'Resource',
			operation: 'Operation',
			payloadFields: 'From payload',
			outputMode: 'Messages',
			output: 'Output',
			outputFields: 'Fields',
			returnAll: 'All pages',
			limit: 'Limit',
			attachment: 'Attachment',
			attachmentName: 'File name',
			waitFor: 'Wait for',
			waitTimeout: 'Wait up to',
			waitForReply: 'Reply',
			replyTimeout: 'Wait for reply',
			sendTo: 'Send To',
			seconds: 'seconds',
		},
		waitForReply: {
			checkbox: "wait for the customer's reply (outputs: result, reply, no reply)",
			help:
				"Output 1: the send's result at once. Output 2: the customer's next message in that chat (msg.payload, the send in msg.sent). " +
				'Output 3: no reply within this time (msg.payload.timedOut).',
		},
		noParameters: 'This operation takes no parameters.',
		optional: { filters: 'Filters', options: 'Optional fields' },
		picker: {
			chat: 'Search the chats of the workspace',
			teammate: 'Choose from the teammates',
			account: 'Choose from the chat-app accounts',
			webhook: 'Choose from the webhook subscriptions',
			file: 'Search the uploaded files',
			invitation: 'Choose from the pending invitations',
			label: 'Choose from the labels in use',
		},
		payloadFields: {
			checkbox: 'fill empty fields from <code>msg.payload.&lt;field&gt;</code>',
			help:
				"Off: only the fields set above are sent. On: a field left empty takes msg.payload's member of the same name " +
				'(chat_id, text, ...), never the target id of a delete, replace, close or remove.',
		},
		attachmentHelp:
			'Optional: a Buffer, {data: Buffer, filename, mimeType}, or a public http(s) URL the service downloads. ' +
			'It is uploaded first and attached via file_uid (2 credits).',
		sendTo: Object.fromEntries(SEND_TARGETS.map((target) => [target.value, target.name])),
		output: Object.fromEntries(CHOICES.output.map((choice) => [messageKey(choice.value), choice.name])),
		outputHelp: {
			simplified: 'Simplified keeps:',
			fields: "Comma-separated field names to output; the record's identifiers always come along.",
		},
		outputMode: Object.fromEntries(CHOICES.outputMode.map((choice) => [messageKey(choice.value), choice.name])),
		waitFor: Object.fromEntries(CHOICES.waitFor.map((choice) => [messageKey(choice.value), choice.name])),
		fields: Object.fromEntries(
			editorResources(resources).map((resource) => [
				resource.key,
				Object.fromEntries(resource.operations.map((op) => [op.operation, fields(op)])),
			]),
		),
	};
}
