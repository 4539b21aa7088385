/** A sending composite's input read the same way by every handler: its variant, and that variant's own fields. */
import { compositeVariant, type CompositeVariant, type SendingComposite } from '../../catalogue/composites';
import { findOperation } from '../../catalogue/endpoints';
import { inputError } from '../errors';
import { isBlank } from '../validation';

/** The variant the input picks (its default when none), or an error naming the choices. */
export function compositeVariantOf(composite: SendingComposite, input: Record<string, unknown>): CompositeVariant {
	const { variants } = composite;
	const value = isBlank(input[variants.name]) ? variants.default : String(input[variants.name]).trim();
	const variant = compositeVariant(composite, value);
	if (!variant)
		throw inputError(
			variants.name,
			`must be one of ${variants.options.map((option) => option.value).join(', ')}, got "${value}"`,
			variants.displayName,
		);
	return variant;
}

/** The variant's own fields from the input (the composite's options and the variant choice left out). */
export function variantInput(
	composite: SendingComposite,
	variant: CompositeVariant,
	input: Record<string, unknown>,
): Record<string, unknown> {
	const names = new Set(findOperation(variant.operation).fields.map((field) => field.name));
	return Object.fromEntries(Object.entries(input).filter(([name]) => names.has(name) && name !== composite.variants.name));
}
