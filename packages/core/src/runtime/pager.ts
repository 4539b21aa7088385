/**
 * The pager: one page of a list (a 404 read as the empty last page once the parent is known to
 * exist), and Return All / Limit as a sliding window of pages in flight.
 */
import { findOperation, operationId } from '../catalogue/endpoints';
import type { OperationDescriptor, Pagination } from '../catalogue/types';
import { ChatMessagingError, isNotFound, unexpectedResponse } from './errors';
import type { HttpExchange } from './http/exchange';
import type { OperationRunner } from './operations/runner';
import { isRecord, type PreparedRequest } from './validation';

/** Where a walk starts or goes on: a page, and how many of its records were already taken. */
export interface ListPosition {
	page: number;
	skip: number;
	/**
	 * Records per page, as the walk that stopped here saw them: a walk going on with it asks its window of
	 * pages at once, instead of one page alone first to learn the size.
	 */
	pageSize?: number;
}

export interface PagerOptions {
	/** Return All: the pages of one listing retry their failures until this long after it began. */
	listBudgetMs: number;
	/** Pages fetched at once; 1 walks sequentially. */
	pageConcurrency: number;
}

export class Pager {
	constructor(
		private readonly runner: OperationRunner,
		private readonly http: HttpExchange,
		private readonly options: PagerOptions,
	) {}

	/**
	 * One page of a list, `data` as the service sent it. A 404 in the service's own JSON error body is its
	 * "entities not found" (GET /chats documents it for a page past the end or a filter matching nothing):
	 * an empty last page, once the parent record, if the list has one, is known to exist. Any other 404 (an
	 * HTML page, some other JSON: a wrong base URL, a proxy) fails naming the URL, never reads as "empty".
	 */
	async fetchPage(
		op: OperationDescriptor,
		pagination: Pagination,
		input: Record<string, unknown>,
		prepared: PreparedRequest,
		deadline?: number,
	): Promise<Record<string, unknown>> {
		let data: unknown;
		try {
			data = await this.http.send(op, prepared, deadline);
		} catch (error) {
			if (!isNotFound(error)) throw error;
			if (!(error as ChatMessagingError).serviceBody) throw this.foreignNotFound(op, prepared, error as ChatMessagingError);
			const page = Number(prepared.query[pagination.pageParam] ?? 1);
			if (page <= 1 && pagination.parent) await this.confirmParent(pagination.parent, input);
			return { has_more_pages: false, [pagination.itemsKey]: [] };
		}
		if (!isRecord(data) || !Array.isArray(data[pagination.itemsKey]))
			throw unexpectedResponse(`${op.method} ${op.path}`, `data.${pagination.itemsKey}`, data, operationId(op));
		return data;
	}

	private foreignNotFound(op: OperationDescriptor, prepared: PreparedRequest, error: ChatMessagingError): ChatMessagingError {
		const url = this.http.buildRequest(op, prepared).url;
		const what = error.responseText !== undefined ? 'a page that is not JSON' : "JSON that is not the service's error body";
		return new ChatMessagingError(
			`${op.method} ${url} answered HTTP 404 with ${what}: not the service's "nothing here". Check the Base URL (the service's address, without a path of its own)`,
			{ kind: 'service', httpStatus: 404, errorCode: 'unexpected_response', operation: operationId(op), responseText: error.responseText },
		);
	}

	/** Reads the record a list hangs under; its 404 (the exchange names the id that does not exist) fails naming that field. */
	private async confirmParent(parentId: string, input: Record<string, unknown>): Promise<void> {
		try {
			await this.runner.run(parentId, input);
		} catch (error) {
			if (!isNotFound(error)) throw error;
			const id = findOperation(parentId).fields.find((field) => field.in === 'path');
			throw (error as ChatMessagingError).with((error as Error).message, { field: id?.name, operation: parentId });
		}
	}

	/**
	 * One page of a paginated list: its records, and whether another page follows. A page holding
	 * nothing ends the list whatever `has_more_pages` says, so no caller loops forever.
	 */
	async listPage(
		op: OperationDescriptor,
		input: Record<string, unknown>,
		page: number,
	): Promise<{ items: Record<string, unknown>[]; more: boolean }> {
		if (!op.pagination) throw new Error(`${operationId(op)} is not a paginated list`);
		// A named page comes back as the page's data, its items array checked (fetchPage).
		const data = (await this.runner.run(op, { ...input, [op.pagination.pageParam]: page })) as Record<string, unknown>;
		const items = data[op.pagination.itemsKey] as unknown[];
		return { items: items.filter(isRecord), more: data.has_more_pages === true && items.length > 0 };
	}

	/**
	 * Walks `has_more_pages` through a sliding window: the next page is asked as soon as one answers,
	 * up to `pageConcurrency` at once, and items come in sequential-walk order. Pages asked past the
	 * end (at most window − 1) are ignored, answers and failures alike; a failure before the end fails
	 * the walk.
	 */
	async walk(op: OperationDescriptor, pagination: Pagination, input: Record<string, unknown>, limit?: number): Promise<unknown[]> {
		return (await this.walkFrom(op, pagination, input, { page: 1, skip: 0 }, limit)).items;
	}

	/**
	 * The walk from a position on (a page, and how many of its records were taken before): up to `limit`
	 * records, and where the list goes on when it does. A caller handing out a list in parts (the MCP
	 * server's cursor) continues each part at full speed instead of one page at a time.
	 */
	async walkFrom(
		op: OperationDescriptor,
		pagination: Pagination,
		input: Record<string, unknown>,
		from: ListPosition,
		limit?: number,
	): Promise<{ items: unknown[]; next?: ListPosition }> {
		this.runner.prepare(op, input); // a bad filter fails before the first page is asked for
		// One budget in time for the whole listing: a page retries its failures until then, so a long
		// list outlasts a bad spell of faults instead of failing on one page's fourth attempt.
		const deadline = this.runner.timing.now() + this.options.listBudgetMs;
		type Page = { items: unknown[]; last: boolean };
		type Outcome = Page | { error: unknown };
		const fetch = async (page: number): Promise<Outcome> => {
			try {
				const data = (await this.runner.call(op, { ...input, page }, deadline)) as Record<string, unknown>;
				const items = data[pagination.itemsKey] as unknown[];
				// An empty page that claims more would loop forever; a sequential walk stops there too.
				return { items, last: data.has_more_pages !== true || items.length === 0 };
			} catch (error) {
				return { error };
			}
		};

		const items: unknown[] = [];
		let next: ListPosition | undefined;
		let pageSize = from.pageSize !== undefined && from.pageSize > 0 ? from.pageSize : undefined;
		/** Takes a page's records up to the limit; true when the walk is done (`next`: where it would go on). */
		const take = (page: number, outcome: Page): boolean => {
			const skip = page === from.page ? from.skip : 0;
			const taken = outcome.items.slice(skip, limit === undefined ? undefined : skip + limit - items.length);
			items.push(...taken);
			const used = skip + taken.length;
			if (used < outcome.items.length) next = { page, skip: used, pageSize };
			else if (!outcome.last && limit !== undefined && items.length >= limit) next = { page: page + 1, skip: 0, pageSize };
			return next !== undefined || outcome.last;
		};
		// Never partial data as if complete: a failure names how far the listing got, and returns nothing.
		const stopped = (error: unknown, pages: number) =>
			error instanceof ChatMessagingError
				? error.with(
						`${error.message} (the list stopped after ${pages} page${pages === 1 ? '' : 's'}, ${items.length} items; none is returned)`,
					)
				: error;
		let taken = from.page - 1; // pages whose items are in `items`
		if (pageSize === undefined) {
			// The first page alone tells how many records a page holds, so a limit asks only the pages it needs.
			const first = await fetch(from.page);
			if ('error' in first) throw first.error;
			taken = from.page;
			if (!first.last) pageSize = first.items.length;
			if (take(from.page, first)) return { items, next };
		}

		// With a limit, no page beyond the one that completes it is asked for (unless pages hold fewer records
		// than the first did: then the next page is asked once the window is empty).
		const lastWanted = limit === undefined || pageSize === undefined ? Infinity : from.page - 1 + Math.ceil((from.skip + limit) / pageSize);
		const outcomes = new Map<number, Outcome>();
		const inFlight = new Map<number, Promise<void>>();
		let endsAt = Infinity; // lowest page known to be the last
		let ask = taken + 1;
		for (;;) {
			for (let outcome = outcomes.get(taken + 1); outcome; outcome = outcomes.get(taken + 1)) {
				outcomes.delete(++taken);
				if ('error' in outcome) throw stopped(outcome.error, taken - from.page);
				if (take(taken, outcome)) return { items, next };
			}
			while (inFlight.size < this.options.pageConcurrency && (ask <= lastWanted || inFlight.size === 0) && ask <= endsAt) {
				const page = ask++;
				inFlight.set(
					page,
					fetch(page).then((outcome) => {
						inFlight.delete(page);
						outcomes.set(page, outcome);
						if (!('error' in outcome) && outcome.last) endsAt = Math.min(endsAt, page);
					}),
				);
			}
			await Promise.race(inFlight.values());
		}
	}
}
