/** The typedInput of each field kind, its starting value and the editor's check of a fixed value (the executor's rule). */
import type { WidgetTypedInputType, WidgetTypedInputTypeDefinition } from '@node-red/editor-client';
import { INTEGER_PATTERN, kindError, pattern, type Field, type Typed } from './catalogue';

type TypeChoice = WidgetTypedInputType | WidgetTypedInputTypeDefinition;

export const SOURCES: WidgetTypedInputType[] = ['msg', 'flow', 'global', 'env', 'jsonata'];

/** Values coming from msg/flow/global/env/JSONata are known only at run time: never block them. */
const isDynamic = (type: string): boolean => SOURCES.some((source) => source === type);

/** msg, where an empty value is allowed: an optional Buffer (attachment, file) left empty is no error. */
export const OPTIONAL_MSG: WidgetTypedInputTypeDefinition = {
	value: 'msg',
	label: 'msg.',
	validate: (value: string) => value === '' || RED.utils.validatePropertyExpression(value),
};

/** The typedInput types of a field, by what it holds; the first is the default. */
export function typesFor(field: Field): TypeChoice[] {
	switch (field.kind) {
		case 'integer':
			return ['num', 'str', ...SOURCES];
		case 'boolean':
			// A filter says what each choice does (Any / Closed / Open); saved values stay '', 'true', 'false'.
			return [
				{
					value: 'boolean',
					label: 'true/false',
					icon: 'red/images/typedInput/bool.svg',
					options: field.triState
						? [
								{ value: '', label: 'Any' },
								{ value: 'true', label: field.triState.true },
								{ value: 'false', label: field.triState.false },
							]
						: [
								{ value: '', label: '(not set)' },
								{ value: 'true', label: 'true' },
								{ value: 'false', label: 'false' },
							],
				},
				...SOURCES,
			];
		case 'options':
			return [
				{
					value: 'select',
					label: 'option',
					icon: 'fa fa-list',
					options: [{ value: '', label: '(not set)' }, ...(field.options ?? []).map((o) => ({ value: o.value, label: o.name }))],
				},
				...SOURCES,
			];
		case 'stringList':
			return ['str', 'json', ...SOURCES];
		case 'dateTime':
			return ['str', 'date', ...SOURCES];
		case 'binary':
			return [OPTIONAL_MSG, 'flow', 'global', 'bin', 'jsonata'];
		default:
			return ['str', ...SOURCES];
	}
}

/** The value a new (never saved) field starts with: the descriptor's default, else empty. */
export function initialValue(field: Field): Typed {
	const first = typesFor(field)[0] ?? 'str';
	const type = typeof first === 'string' ? first : first.value;
	if (field.default === undefined) return { value: '', type };
	return { value: Array.isArray(field.default) ? field.default.join(', ') : String(field.default), type };
}

/** Checks one static value against its field's rules; returns an error message or null. */
export function checkStatic(field: Field, value: string, type: string): string | null {
	if (value === '' || value === undefined || isDynamic(type)) return null;
	const label = field.displayName;
	const text = String(value).trim();
	if (field.kind === 'integer' && (type === 'num' || type === 'str')) {
		if (INTEGER_PATTERN && !INTEGER_PATTERN.test(text)) return kindError(label, 'integer');
		const n = Number(value);
		if (field.min !== undefined && n < field.min) return `${label}: at least ${field.min}`;
		if (field.max !== undefined && n > field.max) return `${label}: at most ${field.max}`;
	}
	if (type !== 'str') return null;
	const rule = pattern(field.kind);
	if (rule && !rule.test(text)) return kindError(label, field.kind);
	if (field.kind === 'dateTime' && isNaN(Date.parse(String(value)))) return kindError(label, 'dateTime');
	return null;
}

/** Makes $input a typedInput of these types holding this value. */
export function typedInput($input: JQuery, types: TypeChoice[], value: Typed): void {
	$input.val(value.value);
	$input.typedInput({ types, default: value.type });
	$input.typedInput('type', value.type);
	$input.typedInput('value', value.value);
}
