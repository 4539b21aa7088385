/**
 * The description an AI model reads for an operation offered as a tool (n8n's tool variant, MCP):
 * what it does, to what, what each required input looks like, and what comes back. Built from the
 * descriptor itself, so every operation has one and it changes with the catalogue.
 */
import type { CompositeDescriptor } from './composites';
import { fieldHint } from './fields';
import { recordShape } from './output';
import type { FieldDescriptor, OperationDescriptor } from './types';

const sentence = (text: string): string => {
	const trimmed = text.trim();
	return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
};

/** How a model should write a field's value: its format rule, or what it is. */
export function toolFieldDescription(field: FieldDescriptor): string {
	const options = field.options?.length ? ` One of: ${field.options.map((option) => option.value).join(', ')}.` : '';
	const formatRule = fieldHint(field, 'the time zone of the workflow or server running the tool');
	const rule = formatRule && !field.description.includes(formatRule) ? ` Format: ${sentence(formatRule)}` : '';
	return `${sentence(field.description)}${rule}${options}`;
}

const requiredFields = (op: OperationDescriptor): FieldDescriptor[] =>
	op.fields.filter((field) => field.required && field.kind !== 'binary');

function returnsText(op: OperationDescriptor): string | undefined {
	const shape = recordShape(op);
	if (shape && (op.pagination || op.unwrap)) return `Returns ${shape.noun} records (${shape.simplified.join(', ')}).`;
	if (shape) return `Returns the ${shape.noun} record (${shape.simplified.join(', ')}).`;
	if (op.sendsMessage) return 'Returns the message_uid, the chat_id and the status of the queued message.';
	if (op.method === 'DELETE') return 'Returns {"deleted": true}.';
	return undefined;
}

/** The tool description of an operation (see the module comment). */
export function toolDescription(op: OperationDescriptor): string {
	const parts = [sentence(op.action), sentence(op.description)];
	const inputs = (fields: FieldDescriptor[]) =>
		fields.map((field) => `${field.name}: ${toolFieldDescription(field).replace(/\.$/, '')}`).join('; ');
	const required = requiredFields(op);
	if (required.length) parts.push(`Required: ${inputs(required)}.`);
	const oneOf = op.fields.filter((field) => op.requireOneOf?.includes(field.name));
	if (oneOf.length) parts.push(`At least one of: ${inputs(oneOf)}.`);
	if (op.destructive) parts.push('Changes the record the given id names; check the id first.');
	const returns = returnsText(op);
	if (returns) parts.push(returns);
	return parts.join(' ');
}

const withoutStop = (text: string) => text.replace(/\.$/, '');

const described = (field: FieldDescriptor) => `${field.name} (${withoutStop(toolFieldDescription(field))})`;

/** An option with its default, and its unit when its name gives one ("Reply Time-Out (Seconds)"). */
function optionText(option: FieldDescriptor): string {
	const unit = /\(seconds\)/i.test(option.displayName) ? 'in seconds' : '';
	const fallback = option.default !== undefined && option.default !== '' ? `default ${String(option.default)}` : '';
	const notes = [unit, fallback].filter(Boolean).join(', ');
	return `${option.name}: ${withoutStop(toolFieldDescription(option))}${notes ? ` (${notes})` : ''}`;
}

/**
 * The tool description of a composite (Send, Send and Wait for Reply, …): what it does; what every
 * choice needs; where it sends, each choice of its variant with the input that choice adds and its
 * format; its options with their units and defaults; what it returns.
 */
export function compositeToolDescription(composite: CompositeDescriptor): string {
	const { variants } = composite;
	const all = variants ? variants.options.map((variant) => variant.value) : [];
	const required = composite.fields.filter((entry) => entry.field.required);
	const everywhere = required.filter((entry) => all.every((value) => entry.variants.includes(value)));
	const parts = [sentence(composite.action), sentence(composite.description)];
	if (everywhere.length) parts.push(`Required: ${everywhere.map((entry) => described(entry.field)).join('; ')}.`);
	if (variants) {
		const choices = variants.options.map((variant) => {
			const adds = required.filter((entry) => !everywhere.includes(entry) && entry.variants.includes(variant.value));
			const what = variant.description.replace(/^./, (first) => first.toLowerCase());
			return `${variant.value}, ${what}${adds.length ? `, with ${adds.map((entry) => described(entry.field)).join(' and ')}` : ''}`;
		});
		parts.push(`${variants.name} says where the message goes (default ${variants.default}): ${choices.join('; ')}.`);
	}
	if (composite.options.length) parts.push(`Optional: ${composite.options.map(optionText).join('; ')}.`);
	parts.push(sentence(composite.returns));
	return parts.join(' ');
}
