import { ApiError } from './errors';

/** One page of a list answer: the items of page `page` (from 1) and whether more follow. */
export interface Page<T> {
	items: T[];
	hasMorePages: boolean;
}

/**
 * Cuts page `page` out of the matching records. An array is sliced; any other iterable (a lazy filter) is walked only
 * up to the first record after the page. With `emptyList404` an empty page (past the end, or a filter that matches
 * nothing) is the spec's `404 (entities not found)` instead of an empty list.
 */
export function pageOf<T>(matching: Iterable<T>, page: number, size: number, emptyList404: boolean): Page<T> {
	const start = (page - 1) * size;
	let items: T[] = [];
	let hasMorePages = false;
	if (Array.isArray(matching)) {
		items = matching.slice(start, start + size);
		hasMorePages = matching.length > start + size;
	} else {
		let seen = 0;
		for (const item of matching) {
			if (seen === start + size) {
				hasMorePages = true;
				break;
			}
			if (seen >= start) items.push(item);
			seen += 1;
		}
	}
	if (items.length === 0 && emptyList404) throw ApiError.entitiesNotFound();
	return { items, hasMorePages };
}
