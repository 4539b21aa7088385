/** Send and Wait for Response (`message:sendAndWait`): answered through links that resume a paused run (catalogue/composites.ts). */
import type { SendingComposite } from './compositeDescriptor';
import { field } from './fields';
import { SEND_TARGETS, sendFields } from './send';
import { SEND_TO_VARIANTS } from './sendComposite';
import type { FieldDescriptor, FieldOption } from './types';

/** Send and Wait (n8n's `sendAndWait`): how the recipient answers. */
const RESPONSE_TYPES: readonly FieldOption[] = [
	{ value: 'approval', name: 'Approval', description: 'The recipient approves (or declines) through a link in the message' },
	{ value: 'freeText', name: 'Free Text', description: 'The recipient answers in a form that a link in the message opens' },
];

const APPROVAL_TYPES: readonly FieldOption[] = [
	{ value: 'single', name: 'Approve Only' },
	{ value: 'double', name: 'Approve and Disapprove' },
];

/** The resume URLs a platform hands Send and Wait, by the answer each one gives. */
export interface ResumeUrls {
	approve?: string;
	disapprove?: string;
	respond?: string;
}

const option = (name: string, displayName: string, description: string, extras: Partial<FieldDescriptor> = {}): FieldDescriptor =>
	field('body', name, displayName, 'string', description, extras);

/**
 * Send and Wait's inputs beside the addressing, named as n8n's own send-and-wait nodes name their
 * parameters (users and n8n's human-in-the-loop tool know them by these names).
 */
export const sendAndWaitInputs = {
	message: field('body', 'message', 'Message', 'text', 'The text to send; the links that answer it are added below it', {
		required: true,
	}),
	responseType: field('body', 'responseType', 'Response Type', 'options', 'How the recipient answers', {
		default: 'approval',
		options: RESPONSE_TYPES,
	}),
	approvalType: field('body', 'approvalType', 'Type of Approval', 'options', 'Whether the message offers a link to decline too', {
		default: 'single',
		options: APPROVAL_TYPES,
	}),
	approveLabel: option('approveLabel', 'Approve Button Label', 'What the approve link is called in the message', { default: 'Approve' }),
	disapproveLabel: option('disapproveLabel', 'Disapprove Button Label', 'What the decline link is called in the message', {
		default: 'Decline',
	}),
	messageButtonLabel: option('messageButtonLabel', 'Message Button Label', 'What the link to the form is called in the message', {
		default: 'Respond',
	}),
	responseFormTitle: option('responseFormTitle', 'Response Form Title', 'Title of the form the recipient answers in', { default: '' }),
	responseFormDescription: option(
		'responseFormDescription',
		'Response Form Description',
		'Text above the answer in the form; the message by default',
		{ default: '' },
	),
	responseFormButtonLabel: option('responseFormButtonLabel', 'Response Form Button Label', "What the form's submit button says", {
		default: 'Submit',
	}),
} as const;

export const SEND_AND_WAIT_COMPOSITE: SendingComposite = {
	kind: 'composite',
	resource: 'message',
	operation: 'sendAndWait',
	name: 'Send and Wait for Response',
	action: 'Send message and wait for response',
	description:
		'Send a message with links that answer it (approve / decline, or a form) and pause until the recipient opens one. Costs 1 credit',
	effect: 'create',
	variants: SEND_TO_VARIANTS,
	// The addressing of each Send To choice; the text is the composite's own Message.
	fields: [
		...sendFields()
			.filter(({ field: sendField }) => sendField.required)
			.map(({ field: sendField, sendTo }) => ({ field: sendField, variants: sendTo })),
		{ field: sendAndWaitInputs.message, variants: SEND_TARGETS.map((target) => target.value) },
	],
	options: [
		sendAndWaitInputs.responseType,
		sendAndWaitInputs.approvalType,
		sendAndWaitInputs.approveLabel,
		sendAndWaitInputs.disapproveLabel,
		sendAndWaitInputs.messageButtonLabel,
		sendAndWaitInputs.responseFormTitle,
		sendAndWaitInputs.responseFormDescription,
		sendAndWaitInputs.responseFormButtonLabel,
	],
	steps: [
		'the send of the Send To choice, its text followed by the links the platform resumes through',
		'the platform pauses until a link is opened (an approval, or the form answered)',
	],
	returns:
		"Returns once the recipient opens one of the links: their answer (approved or declined, or the text they wrote in the form), as n8n's own send-and-wait nodes return it",
	recoversLostSend: true,
	resumedByLink: true,
};
