/** Pagination: every page in sequential-walk order, bounded concurrency, limits, empty lists. */
import { Executor } from '../../api';
import { ok, scripted, virtualTiming } from '../support/scripted-transport';

/** A list of `total` chats served `pageSize` at a time, like GET /chats. */
function pagedChats(total: number, pageSize = 50) {
	return scripted((request) => {
		const page = Number(new URL(request.url).searchParams.get('page') ?? 1);
		const start = (page - 1) * pageSize;
		const chats = Array.from({ length: Math.max(0, Math.min(pageSize, total - start)) }, (_, i) => ({ id: start + i + 1 }));
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
});
