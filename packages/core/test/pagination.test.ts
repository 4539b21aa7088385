/** Pagination: every page in sequential-walk order, bounded concurrency, limits, empty lists. */
import { Executor } from '../src';
import { ChatMessagingError, type TransportRequest, type TransportResponse } from '../src';
import { fail, ok, scripted, virtualTiming } from '../../../test/support/scripted-transport';

const NOT_FOUND = fail(404, { status: 'error', message: 'Entities not found' });

/**
 * A list of `total` chats served `pageSize` at a time, like GET /chats. With `notFoundPastEnd` a page
 * holding no chat answers 404 "entities not found", as the spec allows.
 */
function pagedChats(total: number, pageSize = 50, notFoundPastEnd = false) {
	return scripted((request) => {
		const page = Number(new URL(request.url).searchParams.get('page') ?? 1);
		const start = (page - 1) * pageSize;
		const chats = Array.from({ length: Math.max(0, Math.min(pageSize, total - start)) }, (_, i) => ({ id: start + i + 1 }));
		if (notFoundPastEnd && chats.length === 0) return NOT_FOUND;
		return ok({ has_more_pages: start + pageSize < total, chats });
	});
}

function executor(script: ReturnType<typeof scripted>, pageConcurrency: number) {
	return new Executor({ baseUrl: 'https://x.io', transport: script.transport, timing: virtualTiming(), pageConcurrency, rateLimit: false });
}

const ids = (items: unknown) => (items as Array<{ id: number }>).map((chat) => chat.id);
const pagesAsked = (script: ReturnType<typeof scripted>) => script.requests.map((r) => Number(new URL(r.url).searchParams.get('page')));

describe('pagination', () => {
	it.each([1, 4])('returns all 137 items in order with concurrency %d', async (concurrency) => {
		const script = pagedChats(137);
		const items = await executor(script, concurrency).run('chat:getAll', {});
		expect(ids(items)).toEqual(Array.from({ length: 137 }, (_, i) => i + 1));
	});

	it('gives the identical result for concurrency 1 and 4, with no duplicate and no gap', async () => {
		const sequential = await executor(pagedChats(251), 1).run('chat:getAll', { closed: false });
		const concurrent = await executor(pagedChats(251), 4).run('chat:getAll', { closed: false });
		expect(concurrent).toEqual(sequential);
		expect(new Set(ids(concurrent)).size).toBe(251);
	});

	it('stops on has_more_pages false when walking sequentially', async () => {
		const script = pagedChats(120);
		await executor(script, 1).run('chat:getAll', {});
		expect(pagesAsked(script)).toEqual([1, 2, 3]);
	});

	it('asks at most concurrency-1 pages past the end', async () => {
		const script = pagedChats(120);
		await executor(script, 4).run('chat:getAll', {});
		expect(Math.max(...pagesAsked(script))).toBeLessThanOrEqual(3 + 3);
	});

	it.each([
		[1, 7],
		[4, 30],
		[8, 50],
		[4, 120],
	])(
		'hands a list out in parts from where each stopped (concurrency %d, %d a part): the parts are the whole list',
		async (concurrency, limit) => {
			const script = pagedChats(137);
			const run = executor(script, concurrency);
			const parts: number[][] = [];
			let from: { page: number; skip: number } | undefined = { page: 1, skip: 0 };
			while (from && parts.length < 50) {
				const part: { items: unknown[]; next?: { page: number; skip: number } } = await run.listFrom('chat:getAll', {}, from, limit);
				parts.push(ids(part.items));
				from = part.next;
			}
			expect(parts.flat()).toEqual(Array.from({ length: 137 }, (_, i) => i + 1));
			expect(parts.slice(0, -1).every((part) => part.length === limit)).toBe(true);
			expect(parts).toHaveLength(Math.ceil(137 / limit));
			// Each page is read once by the part that needs it, and again only by the next part when a part ends inside it.
			expect(script.requests.length).toBeLessThanOrEqual(3 + parts.length - 1 + (concurrency - 1) * parts.length);
		},
	);

	it('honours the limit and asks only the pages it needs', async () => {
		const script = pagedChats(500);
		const items = await executor(script, 4).run('chat:getAll', {}, { returnAll: false, limit: 60 });
		expect(ids(items)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
		expect(pagesAsked(script).sort()).toEqual([1, 2]);
	});

	it('a limit within the first page asks one page', async () => {
		const script = pagedChats(500);
		expect(ids(await executor(script, 4).run('chat:getAll', {}, { returnAll: false, limit: 5 }))).toEqual([1, 2, 3, 4, 5]);
		expect(script.requests).toHaveLength(1);
	});

	it('returns an empty list', async () => {
		const script = pagedChats(0);
		await expect(executor(script, 4).run('chat:getAll', {})).resolves.toEqual([]);
		expect(script.requests).toHaveLength(1);
	});

	it('keeps the filters on every page', async () => {
		const script = pagedChats(120);
		await executor(script, 2).run('chat:getAll', { label: 'vip', closed: false });
		for (const request of script.requests) expect(request.url).toMatch(/label=vip&closed=false&page=\d/);
	});

	it('an explicit page returns that page only, unwrapped as the service sent it', async () => {
		const script = pagedChats(120);
		const data = await executor(script, 4).run('chat:getAll', { page: 3 });
		expect(data).toMatchObject({ has_more_pages: false });
		expect(script.requests).toHaveLength(1);
	});

	it('pages message history and files by their own item keys', async () => {
		const script = scripted((request) => {
			const page = Number(new URL(request.url).searchParams.get('page'));
			return ok({ has_more_pages: page < 2, messages: [{ uid: `m${page}` }], files: [{ uid: `f${page}` }] });
		});
		const e = executor(script, 1);
		await expect(e.run('message:getAll', { chat_id: 1 })).resolves.toEqual([{ uid: 'm1' }, { uid: 'm2' }]);
		await expect(e.run('file:getAll', {})).resolves.toEqual([{ uid: 'f1' }, { uid: 'f2' }]);
	});

	describe.each([false, true])('when pages holding nothing answer 404: %s', (notFound) => {
		it.each([1, 4, 8])('returns all 130 chats in order with a window of %d', async (window) => {
			const script = pagedChats(130, 50, notFound);
			expect(ids(await executor(script, window).run('chat:getAll', {}))).toEqual(Array.from({ length: 130 }, (_, i) => i + 1));
		});

		it('a filter that matches nothing gives 0 items, not an error', async () => {
			await expect(executor(pagedChats(0, 50, notFound), 4).run('chat:getAll', { name: 'nobody' })).resolves.toEqual([]);
			const noFiles = scripted(notFound ? NOT_FOUND : ok({ has_more_pages: false, files: [] }));
			await expect(executor(noFiles, 4).run('file:getAll', { filename: 'none' })).resolves.toEqual([]);
		});

		it('an explicit page past the end is an empty last page', async () => {
			const data = await executor(pagedChats(60, 50, notFound), 4).run('chat:getAll', { page: 5 });
			expect(data).toEqual({ has_more_pages: false, chats: [] });
		});
	});

	// Only the service's own answer ends a list: a wrong base URL or a proxy's page never reads as "empty".
	describe.each([
		['an HTML page', fail(404, '<!DOCTYPE html><html><body><h1>Not Found</h1></body></html>'), 'a page that is not JSON'],
		['some other JSON', fail(404, { error: 'Not Found', path: '/v2/chats' }), "JSON that is not the service's error body"],
	])('a 404 with %s', (_, answer, what) => {
		it('fails the list on the first page, naming the URL and the status', async () => {
			for (const [id, input, path] of [
				['chat:getAll', { name: 'x' }, '/chats'],
				['file:getAll', {}, '/files'],
				['message:getAll', { chat_id: 7 }, '/chats/7/messages'],
			] as const) {
				const error = (await executor(scripted(answer), 4)
					.run(id, input)
					.catch((caught: unknown) => caught)) as ChatMessagingError;
				expect(error).toBeInstanceOf(ChatMessagingError);
				expect(error.message).toContain(`GET https://x.io${path}?`);
				expect(error.message).toContain(`answered HTTP 404 with ${what}`);
				expect(error).toMatchObject({ httpStatus: 404, kind: 'service' });
			}
		});

		it('fails past the first page too (a pick list or a poll reads one page at a time)', async () => {
			const script = scripted((request) =>
				Number(new URL(request.url).searchParams.get('page')) === 1 ? ok({ has_more_pages: true, chats: [{ id: 1 }] }) : answer,
			);
			await expect(executor(script, 1).run('chat:getAll', {})).rejects.toThrow(/page=2 answered HTTP 404/);
			await expect(executor(scripted(answer), 1).run('chat:getAll', { page: 2 })).rejects.toThrow(/answered HTTP 404/);
		});
	});

	it("a 404 ends the list of a chat's messages once the chat is known to exist", async () => {
		const script = scripted((request) => {
			const url = new URL(request.url);
			if (url.pathname === '/chats/7') return ok({ id: 7, name: 'Ada' });
			const page = Number(url.searchParams.get('page'));
			return page <= 2 ? ok({ has_more_pages: true, messages: [{ uid: `m${page}` }] }) : NOT_FOUND;
		});
		await expect(executor(script, 4).run('message:getAll', { chat_id: 7 })).resolves.toEqual([{ uid: 'm1' }, { uid: 'm2' }]);
		// Only the first page's 404 is ambiguous: pages past the end need no look at the chat.
		expect(script.requests.some((request) => new URL(request.url).pathname === '/chats/7')).toBe(false);

		const empty = scripted((request) => (new URL(request.url).pathname === '/chats/7' ? ok({ id: 7 }) : NOT_FOUND));
		await expect(executor(empty, 4).run('message:getAll', { chat_id: 7 })).resolves.toEqual([]);
		expect(empty.requests.map((request) => new URL(request.url).pathname)).toEqual(['/chats/7/messages', '/chats/7']);
	});

	it('a 404 for the messages of a chat that does not exist fails, naming chat_id', async () => {
		const script = scripted(fail(404, { status: 'error', message: 'Chat not found' }));
		const error = (await executor(script, 4)
			.run('message:getAll', { chat_id: 999 })
			.catch((caught: unknown) => caught)) as ChatMessagingError;
		expect(error).toBeInstanceOf(ChatMessagingError);
		expect(error.message).toBe('chat_id 999: not found (Chat not found)');
		expect(error).toMatchObject({ httpStatus: 404, field: 'chat_id' });
		// The same for one explicit page.
		await expect(executor(script, 4).run('message:getAll', { chat_id: 999, page: 1 })).rejects.toThrow('chat_id 999: not found');
	});

	it('ignores a failure on a page proven past the end', async () => {
		const script = scripted((request) => {
			const page = Number(new URL(request.url).searchParams.get('page'));
			if (page > 3) return fail(500, { status: 'error', message: 'boom' });
			return ok({ has_more_pages: page < 3, chats: [{ id: page }] });
		});
		const e = new Executor({
			baseUrl: 'https://x.io',
			transport: script.transport,
			timing: virtualTiming(),
			pageConcurrency: 4,
			rateLimit: false,
			retry: { maxAttempts: 1 },
		});
		await expect(e.run('chat:getAll', {})).resolves.toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
	});

	it('fails on a failure before the end, whatever pages answered after it', async () => {
		const script = scripted((request) => {
			const page = Number(new URL(request.url).searchParams.get('page'));
			if (page === 3) return fail(500, { status: 'error', message: 'boom' });
			return ok({ has_more_pages: page < 5, chats: [{ id: page }] });
		});
		const e = new Executor({
			baseUrl: 'https://x.io',
			transport: script.transport,
			timing: virtualTiming(),
			pageConcurrency: 4,
			rateLimit: false,
			retry: { maxAttempts: 1 },
		});
		await expect(e.run('chat:getAll', {})).rejects.toThrow('boom');
	});

	it.each([
		['chats missing', { has_more_pages: false }, 'an object with has_more_pages'],
		['chats not a list', { has_more_pages: false, chats: 'none' }, 'an object with has_more_pages, chats'],
		['data an array', [{ id: 1 }], 'an array of 1'],
		['no data', null, 'no data'],
	])('a page with %s is an error naming what came back', async (_, data, shape) => {
		const script = scripted(ok(data));
		await expect(executor(script, 4).run('chat:getAll', {})).rejects.toThrow(
			`The service answered GET /chats without data.chats; it sent ${shape}`,
		);
	});
});

/** A transport whose answers the test releases one by one, recording when each request starts. */
function heldPages(total: number) {
	const started: number[] = [];
	const release = new Map<number, () => void>();
	const transport = (request: TransportRequest) =>
		new Promise<TransportResponse>((resolve) => {
			const page = Number(new URL(request.url).searchParams.get('page'));
			started.push(page);
			release.set(page, () => resolve(ok({ has_more_pages: page * 10 < total, chats: [{ id: page }] })));
		});
	const flush = async () => {
		for (let i = 0; i < 20; i++) await Promise.resolve();
	};
	return {
		transport,
		started,
		answer: async (page: number) => {
			await flush();
			release.get(page)!();
			await flush();
		},
		flush,
	};
}

describe('sliding window', () => {
	it('asks the next page as soon as any page answers, never more than the window at once', async () => {
		const held = heldPages(1000);
		const e = new Executor({
			baseUrl: 'https://x.io',
			transport: held.transport,
			timing: virtualTiming(),
			pageConcurrency: 3,
			rateLimit: false,
		});
		const result = e.run('chat:getAll', {}, { returnAll: false, limit: 8 });
		await held.flush();
		expect(held.started).toEqual([1]);
		await held.answer(1);
		expect(held.started).toEqual([1, 2, 3, 4]);
		await held.answer(3); // page 2 still out: batches would wait for it, the window does not
		expect(held.started).toEqual([1, 2, 3, 4, 5]);
		await held.answer(5);
		expect(held.started).toEqual([1, 2, 3, 4, 5, 6]);
		for (const page of [2, 4, 6, 7]) await held.answer(page);
		expect(held.started).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
		await held.answer(8);
		expect(ids(await result)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
	});

	it('answers as soon as the last page is in, without waiting for pages asked past the end', async () => {
		const held = heldPages(30); // pages 1-3 hold items, page 3 is the last
		const e = new Executor({
			baseUrl: 'https://x.io',
			transport: held.transport,
			timing: virtualTiming(),
			pageConcurrency: 4,
			rateLimit: false,
		});
		let done: unknown;
		const result = e.run('chat:getAll', {}).then((items) => (done = items));
		await held.answer(1);
		expect(held.started).toEqual([1, 2, 3, 4, 5]);
		await held.answer(2);
		await held.answer(3);
		expect(ids(done)).toEqual([1, 2, 3]);
		expect(held.started).toEqual([1, 2, 3, 4, 5, 6]); // past the end: at most window - 1 = 3 (4, 5, 6)
		await result;
	});
});

describe('Return All under faults', () => {
	/** 150 chats in 3 pages; page 2 fails `failures` times (500) before it answers. */
	function flakyPage(failures: number) {
		let failed = 0;
		return scripted((request) => {
			const page = Number(new URL(request.url).searchParams.get('page'));
			if (page === 2 && failed < failures) {
				failed++;
				return fail(500, { status: 'error', message: 'flaky' });
			}
			return ok({ has_more_pages: page < 3, chats: Array.from({ length: 50 }, (_, i) => ({ id: (page - 1) * 50 + i + 1 })) });
		});
	}
	const executorOf = (script: ReturnType<typeof scripted>, timing = virtualTiming()) =>
		new Executor({ baseUrl: 'https://x.io', transport: script.transport, timing, rateLimit: false, pageConcurrency: 1 });

	it("a page retries beyond maxAttempts within the listing's time budget, and the list completes", async () => {
		const script = flakyPage(7);
		const items = await executorOf(script).run('chat:getAll', {});
		expect(ids(items)).toEqual(Array.from({ length: 150 }, (_, i) => i + 1));
		// A single read outside a listing still stops after maxAttempts.
		await expect(executorOf(flakyPage(7)).run('chat:getAll', { page: 2 })).rejects.toMatchObject({ httpStatus: 500 });
	});

	it('a listing that cannot complete fails naming how far it got, and returns nothing partial', async () => {
		const error = (await executorOf(flakyPage(1000))
			.run('chat:getAll', {})
			.catch((caught: unknown) => caught)) as ChatMessagingError;
		expect(error.message).toBe('flaky (the list stopped after 1 page, 50 items; none is returned)');
		expect(error).toMatchObject({ httpStatus: 500 });
	});

	it('the budget is time: past it, a failing page gives up', async () => {
		const timing = virtualTiming(1);
		const script = flakyPage(1000);
		const executor = new Executor({
			baseUrl: 'https://x.io',
			transport: script.transport,
			timing,
			rateLimit: false,
			pageConcurrency: 1,
			retry: { listBudgetMs: 5000, listPageAttempts: 100 },
		});
		await expect(executor.run('chat:getAll', {})).rejects.toThrow('the list stopped after 1 page,');
		expect(timing.sleeps.reduce((sum, ms) => sum + ms, 0)).toBeLessThan(5000);
	});
});
