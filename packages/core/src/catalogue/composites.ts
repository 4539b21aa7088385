/**
 * Composite operations: what users see as one operation but the service does in several calls. Each
 * is a descriptor here (its variants, its inputs as field descriptors with their defaults, its effect
 * and the calls it makes) and has one handler in the core (runtime/operations/composites.ts), run by
 * `Executor.run(id, input)` like any endpoint. Generators (n8n, Node-RED, OpenAPI, the client, the
 * MCP server) iterate `CATALOGUE` — endpoints and composites, told apart by `kind` — and adapters
 * only translate their parameters into the flat input.
 *
 * - `message:send`: Send with Send To (one of four send descriptors), optionally with an attachment
 *   (uploaded or registered first), optionally waiting for a status; a send whose answer was lost is
 *   looked up before anything is sent again.
 * - `message:sendAndWaitForReply`: a Send (any Send To, attachment, Wait for Status), then the
 *   customer's next message in the chat it went to.
 * - `message:sendAndWait`: n8n's standard Send and Wait (human in the loop): a send whose text carries
 *   the links that answer it (approve / decline, or a form); the platform pauses the run until one is
 *   opened. Resumed by link, so only a platform that pauses and serves those links offers it.
 * - File Download is the endpoint `file:download` (its `download` member names the second step).
 */
import { operationId, OPERATIONS } from './catalogue';
import { DEFAULT_REPLY_POLL_S, DEFAULT_REPLY_TIMEOUT_S, DEFAULT_WAIT_TIMEOUT_S, WAIT_TARGETS } from './defaults';
import { CONVERSATION_COMPOSITE } from './conversation';
import { field } from './fields';
import { DEFAULT_SEND_TO, SEND_OPERATION, SEND_TARGETS, sendFields } from './send';
import type { Effect, FieldDescriptor, FieldOption, OperationDescriptor, ResourceKey } from './types';

/** One choice of a composite's variant field, and the descriptor that does its main call. */
export interface CompositeVariant {
	value: string;
	name: string;
	description: string;
	/** `resource:operation` of the endpoint descriptor this variant runs. */
	operation: string;
}

/** A composite's variant input: its name, and its choices, the first the default. */
export interface CompositeVariants {
	name: string;
	displayName: string;
	default: string;
	options: readonly CompositeVariant[];
}

export interface CompositeDescriptor {
	kind: 'composite';
	resource: ResourceKey;
	operation: string;
	name: string;
	action: string;
	description: string;
	effect: Effect;
	/** The input that picks the variant; its first option is the default. None: one way only (Get Conversation). */
	variants?: CompositeVariants;
	/** The variants' own fields, each once, with the variants that use it (addressing fields first). */
	fields: ReadonlyArray<{ field: FieldDescriptor; variants: readonly string[] }>;
	/** Inputs the composite adds to every variant, with their defaults. */
	options: readonly FieldDescriptor[];
	/** The calls it makes, in order (`resource:operation` ids or a plain description), for documentation. */
	steps: readonly string[];
	/** What a run returns, in the words of a tool description (what a model reads before calling it). */
	returns: string;
	/** A send whose answer was lost is looked up in the chat and sent again only when proven absent. */
	recoversLostSend: boolean;
	/**
	 * Answered through links in the sent message that resume a paused run: the platform hands the
	 * handler its resume URLs, pauses, and serves the pages the links open. Only a platform that can
	 * (n8n's action node) offers it; it is left out of `COMPOSITES` and `CATALOGUE`, which every
	 * surface runs on its own (Node-RED, the MCP server, the client, OpenAPI).
	 */
	resumedByLink?: boolean;
}

/** An endpoint descriptor or a composite: what `CATALOGUE` lists. */
export type CatalogueOperation = (OperationDescriptor & { kind?: 'endpoint' }) | CompositeDescriptor;

export const isComposite = (op: CatalogueOperation): op is CompositeDescriptor => op.kind === 'composite';

/** A composite that sends a message: Send To (its variant) says where it goes. */
export type SendingComposite = CompositeDescriptor & { variants: CompositeVariants };

/** The attachment of a send: bytes to upload, or a public URL the service downloads. */
export const attachmentInput: FieldDescriptor = field(
	'body',
	'attachment',
	'Attachment',
	'string',
	'A file to send with the message: bytes (uploaded first) or a public http(s) URL the service downloads. 2 credits instead of 1',
);

export const waitForStatusInput: FieldDescriptor = field(
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

export const waitTimeoutInput: FieldDescriptor = field(
	'body',
	'waitTimeout',
	'Wait Timeout (Seconds)',
	'integer',
	'How long to wait for the status before failing (used with Wait for Status)',
	{ default: DEFAULT_WAIT_TIMEOUT_S, min: 1 },
);

/** Send To with every target of Send: the variants of each composite that sends as Send does. */
const SEND_TO_VARIANTS: CompositeVariants = {
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

/**
 * Send and Wait for Reply: where the message goes. Every Send To choice (a reply is awaited in the chat
 * the message went to, whichever way it was addressed); a chat first, the default where a reply is awaited.
 */
export const REPLY_SEND_TARGETS: readonly CompositeVariant[] = [
	{ value: 'chat', name: 'Chat', description: 'An existing chat, by its ID', operation: 'message:sendToChat' },
	{ value: 'phone', name: 'Phone Number', description: 'A phone number, also one never messaged before', operation: 'message:sendToPhone' },
	...SEND_TARGETS.filter((target) => target.value !== 'chat' && target.value !== 'phone').map((target) => ({ ...target })),
];

export const replyTimeoutInput: FieldDescriptor = field(
	'body',
	'replyTimeout',
	'Reply Time-Out (Seconds)',
	'integer',
	'How long to wait for the reply',
	{ default: DEFAULT_REPLY_TIMEOUT_S, min: 1 },
);

export const replyPollInput: FieldDescriptor = field(
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

/** Send and Wait (n8n's `sendAndWait`): how the recipient answers. */
export const RESPONSE_TYPES: readonly FieldOption[] = [
	{ value: 'approval', name: 'Approval', description: 'The recipient approves (or declines) through a link in the message' },
	{ value: 'freeText', name: 'Free Text', description: 'The recipient answers in a form that a link in the message opens' },
];

export const APPROVAL_TYPES: readonly FieldOption[] = [
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

/** Every composite, those resumed by link included: what a platform that pauses and serves links (n8n) offers. */
export const ALL_COMPOSITES: readonly CompositeDescriptor[] = [
	SEND_COMPOSITE,
	SEND_AND_WAIT_FOR_REPLY_COMPOSITE,
	SEND_AND_WAIT_COMPOSITE,
	CONVERSATION_COMPOSITE,
];

/** The composites every surface runs on its own (see `resumedByLink`). */
export const COMPOSITES: readonly CompositeDescriptor[] = ALL_COMPOSITES.filter((composite) => !composite.resumedByLink);

/** Every operation users can run: the endpoints (and friendly operations) of OPERATIONS, then the composites. */
export const CATALOGUE: readonly CatalogueOperation[] = [...OPERATIONS, ...COMPOSITES];

const compositesById = new Map(ALL_COMPOSITES.map((composite) => [operationId(composite), composite]));

export const findComposite = (id: string): CompositeDescriptor | undefined => compositesById.get(id);

/** A composite's variant by its value, or an input error naming the choices. */
export function compositeVariant(composite: SendingComposite, value: string): CompositeVariant | undefined {
	return composite.variants.options.find((option) => option.value === value);
}
