/**
 * Asking the user before a call no operation can undo or an administrative write (the catalogue's
 * `needsConfirmation`): the question, its one-checkbox form and the answers a refused call gives, written once
 * for both revisions. 2025-11-25 asks with a server-to-client elicitation within the call; 2026-07-28 returns the
 * same form as an input-required result the client answers by calling again.
 */
import { ChatMessagingError, changeOf, isRecord, redactSubscriptionUrl, type FieldDescriptor } from '@chat-messaging/core';
import type { CatalogueTool } from '../tools';

/** An argument as the person confirming reads it: a receiver's address without its secret, bytes by their name. */
function shownArgument(field: FieldDescriptor | undefined, value: unknown): string {
	if (field?.kind === 'binary' && isRecord(value)) return String(value.filename);
	if (field?.kind === 'receiverUrl' && typeof value === 'string') return redactSubscriptionUrl(value);
	return typeof value === 'string' ? value : JSON.stringify(value);
}

/** What the user is asked to confirm: the operation and its target, every argument given named as the editors name it. */
export function confirmationMessage(tool: CatalogueTool, args: Record<string, unknown> | undefined): string {
	const given = Object.entries(args ?? {})
		.filter(([, value]) => value !== undefined && value !== null && value !== '')
		.map(([name, value]) => {
			const field = tool.fields.find((candidate) => candidate.name === name);
			return `${field?.displayName ?? name}: ${shownArgument(field, value)}`;
		});
	return `An AI agent asks to ${tool.operation.action.charAt(0).toLowerCase()}${tool.operation.action.slice(1)}${given.length ? ` (${given.join('; ')})` : ''}. ${
		changeOf(tool.operation) === 'overwrites' ? 'This cannot be undone. ' : ''
	}Run it?`;
}

/** The name of the form's one field: a checkbox the user ticks to let the call run. */
export const CONFIRM_FIELD = 'confirm';

/** The form elicitation that asks: the question and one checkbox, unticked. */
export function confirmationForm(tool: CatalogueTool, args: Record<string, unknown> | undefined) {
	return {
		mode: 'form' as const,
		message: confirmationMessage(tool, args),
		requestedSchema: {
			type: 'object' as const,
			properties: {
				[CONFIRM_FIELD]: {
					type: 'boolean' as const,
					title: `${tool.title}: run it`,
					description: 'Tick to let the agent run this call',
					default: false,
				},
			},
			required: [CONFIRM_FIELD],
		},
	};
}

/** Whether an elicitation's answer lets the call run: accepted with the box ticked, nothing less. */
export const isConfirmation = (answer: { action?: unknown; content?: unknown } | undefined): boolean =>
	answer?.action === 'accept' && isRecord(answer.content) && answer.content[CONFIRM_FIELD] === true;

/** The result of a call the user did not confirm. */
export const notConfirmed = (tool: CatalogueTool) => ({
	isError: true,
	content: [
		{
			type: 'text' as const,
			text: `The user did not confirm ${tool.name}: nothing was changed. Do not retry unless the user asks for it.`,
		},
	],
});

/** The error of a call whose confirmation could not be asked (the client failed the elicitation). */
export const couldNotAsk = (error: unknown) =>
	new ChatMessagingError(`The user could not be asked to confirm: ${(error as Error).message}. Nothing was changed`, { kind: 'input' });
