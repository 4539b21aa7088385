import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { call, data, FAST, startSandbox, type Sandbox } from './helpers';

/**
 * The chat list order is kept up to date as chats change (instead of sorting on every request): after messages,
 * renames and new chats every page must still follow the spec's rule, checked here against the exact (millisecond)
 * internal times from the control API, and the name/phone lookups must follow renames.
 */
let sbx: Sandbox;
beforeAll(async () => {
	sbx = await startSandbox({ ...FAST, paceMs: 0, chats: 300, tokens: ['order'] });
});
afterAll(() => sbx.stop());

async function allChats(target: Sandbox, query = ''): Promise<any[]> {
	const out: any[] = [];
	for (let page = 1; ; page += 1) {
		const d = await data(target, `/chats?page=${page}${query ? `&${query}` : ''}`);
		out.push(...d.chats);
		if (!d.has_more_pages) return out;
	}
}

/** The spec's order from the raw records: latest message first (chats without one last), then name, then id. */
async function expectSpecOrder(target: Sandbox, chats: any[]): Promise<void> {
	const raw = await Promise.all(chats.map(async (c) => (await data(target, `/_sandbox/chats/${c.id}/raw`)) as any));
	const key = (r: any) => [r.lastMessageAt ?? -Infinity, r.name.toLowerCase(), r.id] as const;
	const sorted = [...raw].sort((a, b) => {
		const [at, an, ai] = key(a);
		const [bt, bn, bi] = key(b);
		return at !== bt ? bt - at : an < bn ? -1 : an > bn ? 1 : ai - bi;
	});
	expect(raw.map((r) => r.id)).toEqual(sorted.map((r) => r.id));
}

test('messages, renames and new chats keep every page in the spec order', async () => {
	const before = await allChats(sbx);
	const lastPage = before.slice(-50);
	for (const [i, chat] of lastPage.slice(0, 8).entries()) {
		await call(sbx, 'POST', '/_sandbox/incoming', { chat_id: chat.id, text: `bump ${i}` });
	}
	const bumped = lastPage[7];
	expect((await data(sbx, '/chats')).chats[0].id).toBe(bumped.id);
	for (const [i, chat] of before.filter((_, index) => index % 37 === 0).entries()) {
		expect((await call(sbx, 'PATCH', `/chats/${chat.id}`, { name: `${i % 2 ? 'aaa' : 'ZZZ'} renamed ${i}` })).status).toBe(200);
	}
	for (let i = 0; i < 3; i += 1)
		expect((await call(sbx, 'POST', '/messages', { phone: `+4915177700${i}00`, text: 'new' })).status).toBe(200);
	await call(sbx, 'POST', `/chats/${before[120].id}/messages`, { text: 'into an old chat' });
	const after = await allChats(sbx);
	expect(after).toHaveLength(before.length + 3);
	expect(new Set(after.map((c) => c.id)).size).toBe(after.length);
	await expectSpecOrder(sbx, after);
});

test('a filtered walk equals the full order filtered, with has_more_pages on every page but the last', async () => {
	const all = await allChats(sbx);
	const expected = all.filter((c) => !c.read && !c.is_group).map((c) => c.id);
	const pages: any[] = [];
	for (let page = 1; ; page += 1) {
		const d = await data(sbx, `/chats?page=${page}&read=false&group=false`);
		pages.push(d);
		if (!d.has_more_pages) break;
	}
	expect(pages.flatMap((p) => p.chats.map((c: any) => c.id))).toEqual(expected);
	expect(pages.slice(0, -1).every((p) => p.chats.length === 50)).toBe(true);
});

test('names follow renames: the new name is found and clashes, the old one is free', async () => {
	const [chat, other] = (await data(sbx, '/chats?group=false')).chats.filter((c: any) => c.is_allowed_to_message);
	const oldName = chat.name;
	expect((await call(sbx, 'PATCH', `/chats/${chat.id}`, { name: 'Order Test Name' })).status).toBe(200);
	expect((await call(sbx, 'POST', '/messages/to_chat_name', { chat_name: 'order test NAME', text: 'x' })).body.data.chat_id).toBe(chat.id);
	expect((await call(sbx, 'POST', '/messages/to_chat_name', { chat_name: oldName, text: 'x' })).status).toBe(404);
	expect((await call(sbx, 'PATCH', `/chats/${other.id}`, { name: 'ORDER test name' })).status).toBe(400);
	expect((await call(sbx, 'PATCH', `/chats/${other.id}`, { name: oldName })).status).toBe(200);
});

test('the order is rebuilt from a state file', async () => {
	const dir = mkdtempSync(join(tmpdir(), 'sandbox-order-'));
	try {
		const options = { ...FAST, paceMs: 0, chats: 120, tokens: ['o'], statePath: join(dir, 'state.json') };
		const first = await startSandbox(options);
		const chats = await allChats(first);
		await call(first, 'POST', '/_sandbox/incoming', { chat_id: chats[100].id, text: 'to the top' });
		await call(first, 'PATCH', `/chats/${chats[60].id}`, { name: 'AAAA first by name' });
		const saved = (await allChats(first)).map((c) => c.id);
		await first.stop();
		const second = await startSandbox(options);
		try {
			const reloaded = await allChats(second);
			expect(reloaded.map((c) => c.id)).toEqual(saved);
			await expectSpecOrder(second, reloaded);
		} finally {
			await second.stop();
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

test('renames reorder chats that tie on the latest message (chats without messages, from a state file)', async () => {
	const dir = mkdtempSync(join(tmpdir(), 'sandbox-ties-'));
	try {
		const options = { ...FAST, paceMs: 0, chats: 60, tokens: ['t'], statePath: join(dir, 'state.json') };
		await (await startSandbox(options)).stop();
		// Six chats lose their history: they tie (no latest message) and sort by name at the end of the list.
		const state = JSON.parse(readFileSync(options.statePath, 'utf8'));
		const [ws] = state.workspaces;
		const emptied = ws.chats.slice(10, 16).map((c: any) => c.id);
		ws.messages = ws.messages.filter((m: any) => !emptied.includes(m.chatId));
		for (const chat of ws.chats) if (emptied.includes(chat.id)) Object.assign(chat, { lastMessageAt: null, lastMessageUid: null });
		writeFileSync(options.statePath, JSON.stringify(state));
		const sbx2 = await startSandbox(options);
		try {
			expect(
				(await allChats(sbx2))
					.slice(-6)
					.map((c) => c.id)
					.sort(),
			).toEqual([...emptied].sort());
			await call(sbx2, 'PATCH', `/chats/${emptied[3]}`, { name: 'aaaa first of the quiet ones' });
			await call(sbx2, 'PATCH', `/chats/${emptied[0]}`, { name: 'zzzz last of the quiet ones' });
			const after = await allChats(sbx2);
			expect(after.slice(-6)[0].id).toBe(emptied[3]);
			expect(after.at(-1).id).toBe(emptied[0]);
			await expectSpecOrder(sbx2, after);
			// An inbound message lifts one of them to the top.
			await call(sbx2, 'POST', '/_sandbox/incoming', { chat_id: emptied[5], text: 'awake' });
			expect((await data(sbx2, '/chats')).chats[0].id).toBe(emptied[5]);
			await expectSpecOrder(sbx2, await allChats(sbx2));
		} finally {
			await sbx2.stop();
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
