/**
 * What the action node sends on: a short status text, one msg per item for "one message per item", and the Output
 * choice (Simplified / Raw / Selected Fields) of operations that return records.
 */
import { inputError, outputChoiceProblem, type OperationDescriptor, type OutputChoice } from '@chat-messaging/core';
import type { NodeAPI, NodeMessage } from 'node-red';
import { isPlainObject } from './input';

export function summarize(op: OperationDescriptor, result: unknown): string {
	if (Array.isArray(result)) return `${result.length} item${result.length === 1 ? '' : 's'}`;
	if (isPlainObject(result)) {
		if (result.data instanceof Uint8Array) return `${result.data.length} bytes`;
		if (typeof result.message_uid === 'string')
			return isPlainObject(result.message) ? `${String(result.message.status)} ${result.message_uid}` : `queued ${result.message_uid}`;
		if (result.id !== undefined) return `${op.name.toLowerCase()} ${String(result.id)}`;
		if (result.uid !== undefined) return `${op.name.toLowerCase()} ${String(result.uid)}`;
	}
	return op.name.toLowerCase();
}

/** One msg per item, with `parts` so a Join node can put the list back together. */
export function splitMessages(RED: NodeAPI, msg: NodeMessage, items: unknown[]): NodeMessage[] {
	const id = RED.util.generateId();
	return items.map((item, index) => {
		const out = RED.util.cloneMessage(msg);
		out.payload = item;
		const parts: Record<string, unknown> = { id, index, count: items.length, type: 'array', len: 1 };
		if (msg.parts !== undefined) parts.parts = msg.parts;
		out.parts = parts;
		return out;
	});
}

/**
 * The Output choice of a node (Simplified / Raw / Selected Fields, for operations that return records), as the
 * migrated node holds it (migrations.ts: a node saved before the choice existed keeps Raw).
 */
export function outputChoiceOf(definition: Record<string, unknown>): OutputChoice {
	return { mode: String(definition.output), fields: String(definition.outputFields ?? '') };
}

/** The choice's problem as an input error naming the node property at fault, or nothing. */
export function outputChoiceError(choice: OutputChoice) {
	const problem = outputChoiceProblem(choice);
	if (!problem) return undefined;
	return problem.part === 'mode' ? inputError('output', problem.message, 'Output') : inputError('outputFields', problem.message, 'Fields');
}
