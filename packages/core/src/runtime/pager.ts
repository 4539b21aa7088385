/**
 * The pager: one page of a list (a 404 read as the empty last page once the parent is known to
 * exist), and Return All / Limit as a sliding window of pages in flight.
 */
import { findOperation, operationId } from '../catalogue/catalogue';
import type { OperationDescriptor, Pagination } from '../catalogue/types';
import { ChatMessagingError, isNotFound, unexpectedResponse } from './errors';
import type { HttpExchange } from './http/exchange';
import type { OperationRunner } from './operations/runner';
import { isRecord, type PreparedRequest } from './validation';

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
	 * One page of a list, `data` as the service sent it. A 404 is the service's "entities not found"
	 * (GET /chats documents it for a page past the end or a filter matching nothing): an empty last
	 * page, once the parent record, if the list has one, is known to exist.
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
			const page = Number(prepared.query[pagination.pageParam] ?? 1);
			if (page <= 1 && pagination.parent) await this.confirmParent(pagination.parent, input);
			return { has_more_pages: false, [pagination.itemsKey]: [] };
		}
		if (!isRecord(data) || !Array.isArray(data[pagination.itemsKey]))
			throw unexpectedResponse(`${op.method} ${op.path}`, `data.${pagination.itemsKey}`, data, operationId(op));
		return data;
	}

	/** Reads the record a list hangs under; its 404 names the id that does not exist. */
	private async confirmParent(parentId: string, input: Record<string, unknown>): Promise<void> {
		try {
			await this.runner.run(parentId, input);
		} catch (error) {
			if (!isNotFound(error)) throw error;
			const ids = findOperation(parentId).fields.filter((field) => field.in === 'path');
			const named = ids.map((field) => `${field.name} ${String(input[field.name])}`).join(', ');
			throw new ChatMessagingError(`${named}: not found (${(error as Error).message})`, {
				kind: 'service',
				httpStatus: 404,
				field: ids[0]?.name,
				operation: parentId,
			});
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
		this.runner.prepare(op, input); // a bad filter fails before the first page is asked for
		// One budget in time for the whole listing: a page retries its failures until then, so a long
		// list outlasts a bad spell of faults instead of failing on one page's fourth attempt.
		const deadline = this.runner.timing.now() + this.options.listBudgetMs;
		type Outcome = { items: unknown[]; last: boolean } | { error: unknown };
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

		const first = await fetch(1);
		if ('error' in first) throw first.error;
		const items = [...first.items];
		// Never partial data as if complete: a failure names how far the listing got, and returns nothing.
		const stopped = (error: unknown, pages: number) =>
			error instanceof ChatMessagingError
				? new ChatMessagingError(
						`${error.message} (the list stopped after ${pages} page${pages === 1 ? '' : 's'}, ${items.length} items; none is returned)`,
						{
							kind: error.kind,
							httpStatus: error.httpStatus,
							errorCode: error.errorCode,
							errors: error.errors,
							field: error.field,
							operation: error.operation,
							networkCode: error.networkCode,
							responseText: error.responseText,
						},
					)
				: error;
		const enough = () => limit !== undefined && items.length >= limit;
		if (first.last || enough()) return limit === undefined ? items : items.slice(0, limit);

		// With a limit, no page beyond the one that completes it is asked for.
		const lastWanted = limit === undefined ? Infinity : Math.ceil(limit / first.items.length);
		const outcomes = new Map<number, Outcome>();
		const inFlight = new Map<number, Promise<void>>();
		let endsAt = Infinity; // lowest page known to be the last
		let next = 2;
		let taken = 1; // pages whose items are in `items`
		for (;;) {
			for (let outcome = outcomes.get(taken + 1); outcome; outcome = outcomes.get(taken + 1)) {
				outcomes.delete(++taken);
				if ('error' in outcome) throw stopped(outcome.error, taken - 1);
				items.push(...outcome.items);
				if (outcome.last || enough()) return limit === undefined ? items : items.slice(0, limit);
			}
			while (inFlight.size < this.options.pageConcurrency && next <= lastWanted && next <= endsAt) {
				const page = next++;
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
