/**
 * The catalogue metadata as the editor script reads it (`window.CHAT_MESSAGING_CATALOGUE`, written by
 * src/generate/catalogue.ts from packages/core): operations, fields, validation patterns and defaults.
 */
import './globals';

export type Catalogue = Window['CHAT_MESSAGING_CATALOGUE'];
export type Operation = Catalogue['resources'][number]['operations'][number];
export type Field = Operation['fields'][number];
/** A typedInput's saved value. */
export interface Typed {
	value: string;
	type: string;
}

export const CATALOGUE: Catalogue = window.CHAT_MESSAGING_CATALOGUE;
export const COLOR = '#5fc29a';
export /** Each field kind's pattern from the core's table of field kinds (packages/core/src/catalogue/fields.ts). */
const pattern = (kind: string): RegExp | undefined => {
	const rule = CATALOGUE.kinds[kind];
	return rule?.pattern ? new RegExp(rule.pattern, rule.flags) : undefined;
};
/** The error the executor gives for a value its kind refuses: "Chat ID: must be a whole number". */
export const kindError = (label: string, kind: string): string => `${label}: ${CATALOGUE.kinds[kind]?.message ?? 'not valid'}`;
export const URL_PATTERN = pattern('url');
export const INTEGER_PATTERN = pattern('integer');

export const operationsById: Record<string, Operation> = {};
for (const resource of CATALOGUE.resources) {
	for (const op of resource.operations) operationsById[op.id] = op;
}

export const isUrl = (value: unknown): boolean => !URL_PATTERN || URL_PATTERN.test(String(value ?? '').trim());
