/** One page of a list, as every paginated endpoint answers it. */
import { ApiError } from './errors';
import type { SandboxOptions } from './options';

/**
 * The items of `page` (1-based) and whether more follow. With `emptyList404`, a page holding nothing
 * (past the end, or a filter matching nothing) is the spec's `404 entities not found` instead.
 */
export function pageOf<T>(
	items: readonly T[],
	page: number,
	size: number,
	options: Pick<SandboxOptions, 'emptyList404'>,
): { slice: T[]; hasMore: boolean } {
	const slice = items.slice((page - 1) * size, page * size);
	if (slice.length === 0 && options.emptyList404) throw ApiError.entitiesNotFound();
	return { slice, hasMore: items.length > page * size };
}
