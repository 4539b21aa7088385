/** Typed list lookups for lists the code itself built non-empty, so a broken invariant fails loudly instead of as `undefined`. */

/** `items[index]` wrapped around the list length (`index` ≥ 0). Throws on an empty list. */
export function cycle<T>(items: readonly T[], index: number, what: string): T {
	const item = items[index % items.length];
	if (item === undefined) throw new Error(`sandbox invariant: ${what} is empty`);
	return item;
}

/** The last item of a non-empty list. */
export function lastOf<T>(items: readonly [T, ...T[]]): T {
	return items[items.length - 1] ?? items[0];
}
