/**
 * One "Send" with a "Send To" choice, as the editors offer it: each choice maps onto one of the four
 * send descriptors of messages.ts, which keep doing the validation and the request. The fields a
 * choice shows are that descriptor's fields; those the four share appear once.
 */
import { findOperation } from './endpoints';
import type { FieldDescriptor, OperationDescriptor } from './types';

export type SendTo = 'phone' | 'chat' | 'chatName' | 'jid';

export interface SendTarget {
	value: SendTo;
	name: string;
	description: string;
	/** `resource:operation` of the descriptor that sends. */
	operation: string;
}

/** In the order users reach for them; the first is the default. */
export const SEND_TARGETS: readonly SendTarget[] = [
	{
		value: 'phone',
		name: 'Phone Number',
		description: 'Any number, also one never messaged before (the chat is created)',
		operation: 'message:sendToPhone',
	},
	{ value: 'chat', name: 'Chat', description: 'An existing chat, picked from the list or by its ID', operation: 'message:sendToChat' },
	{ value: 'chatName', name: 'Chat Name', description: 'The chat with this exact name', operation: 'message:sendToChatName' },
	{ value: 'jid', name: 'JID', description: 'A chat-app identifier: groups and technical integrations', operation: 'message:sendToJid' },
];

export const DEFAULT_SEND_TO: SendTo = 'phone';

/** The send operation offered in place of the four (its key in the message resource). */
export const SEND_OPERATION = { operation: 'send', name: 'Send', action: 'Send a message' } as const;

export function sendTarget(value: string): SendTarget {
	const target = SEND_TARGETS.find((candidate) => candidate.value === value);
	if (!target) throw new Error(`Unknown Send To "${value}": use one of ${SEND_TARGETS.map((t) => t.value).join(', ')}`);
	return target;
}

/** The descriptor that sends for a Send To choice. */
export const sendOperation = (value: string): OperationDescriptor => findOperation(sendTarget(value).operation);

/**
 * Every field of the four sends, once each, with the Send To choices that use it: an editor shows
 * a field when its choice is selected. Order: the addressing fields, then the rest in catalogue order.
 */
export function sendFields(): Array<{ field: FieldDescriptor; sendTo: SendTo[] }> {
	const byName = new Map<string, { field: FieldDescriptor; sendTo: SendTo[] }>();
	for (const target of SEND_TARGETS) {
		for (const field of findOperation(target.operation).fields) {
			// Two sends may give the same wire name a different meaning (chat_name: a new chat's name vs the
			// chat addressed): those stay separate entries, keyed by their label.
			const key = `${field.name}|${field.displayName}`;
			const entry = byName.get(key) ?? { field, sendTo: [] };
			entry.sendTo.push(target.value);
			byName.set(key, entry);
		}
	}
	const entries = [...byName.values()];
	return [...entries.filter((entry) => entry.field.required), ...entries.filter((entry) => !entry.field.required)];
}
