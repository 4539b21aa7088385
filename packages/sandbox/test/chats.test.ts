import { call, data, FAST, SPEC_TIMESTAMP, startSandbox, type Sandbox } from './helpers';

let sbx: Sandbox;
let all: any[];

async function allChats(query = ''): Promise<any[]> {
	const out: any[] = [];
	for (let page = 1; ; page += 1) {
		const d = await data(sbx, `/chats?page=${page}${query ? `&${query}` : ''}`);
		out.push(...d.chats);
		if (!d.has_more_pages) return out;
	}
}

beforeAll(async () => {
	sbx = await startSandbox({ ...FAST, chats: 120, accounts: 2, tokens: ['t1'] });
	all = await allChats();
});
afterAll(() => sbx.stop());

describe('GET /chats', () => {
	test('pages of 50 with has_more_pages, page starts at 1', async () => {
		const p1 = await data(sbx, '/chats');
		const p3 = await data(sbx, '/chats?page=3');
		const p4 = await data(sbx, '/chats?page=4');
		expect(p1.chats).toHaveLength(50);
		expect(p1.has_more_pages).toBe(true);
		expect(p3.chats).toHaveLength(20);
		expect(p3.has_more_pages).toBe(false);
		expect(p4.chats).toEqual([]);
		expect(all).toHaveLength(120);
		expect(new Set(all.map((c) => c.id)).size).toBe(120);
	});

	test('order: latest message time descending, then name ascending', () => {
		const key = (c: any) => Date.parse(c.last_message_timestamp.replace(' ', 'T').replace(/ ([+-]\d\d)(\d\d)$/, '$1:$2'));
		for (let i = 1; i < all.length; i += 1) {
			const a = all[i - 1];
			const b = all[i];
			expect(key(a)).toBeGreaterThanOrEqual(key(b));
			if (key(a) === key(b)) expect(a.name.toLowerCase() <= b.name.toLowerCase()).toBe(true);
		}
	});

	test('chat records carry every field of the spec', () => {
		for (const c of all) {
			expect(c).toEqual(
				expect.objectContaining({
					id: expect.any(Number),
					name: expect.any(String),
					jid: expect.any(String),
					is_group: expect.any(Boolean),
					closed: expect.any(Boolean),
					read: expect.any(Boolean),
					labels: expect.any(Array),
					ai_autoresponse_enabled: expect.any(Boolean),
					chatapp_account_id: expect.stringMatching(/^\d+@c\.us$/),
					chat_url: expect.stringMatching(/^https:\/\//),
					created_timestamp: expect.stringMatching(SPEC_TIMESTAMP),
					unattended: expect.any(Boolean),
					photo: expect.stringMatching(/^https:\/\//),
					is_allowed_to_message: expect.any(Boolean),
				}),
			);
			expect(c).toHaveProperty('responsible_email');
			expect(c).toHaveProperty('responsible_name');
			expect(c.last_message_timestamp).toMatch(SPEC_TIMESTAMP);
			if (c.is_group) {
				expect(c.jid).toMatch(/^\d+@g\.us$/);
				expect(c.phone).toBeNull();
				expect(c.group_members.length).toBeGreaterThan(1);
				for (const m of c.group_members)
					expect(m).toEqual({
						name: expect.any(String),
						phone: expect.any(String),
						role: expect.any(String),
						chat_id: m.chat_id === null ? null : expect.any(Number),
					});
			} else if (c.jid.endsWith('@c.us')) {
				expect(c.jid).toBe(`${c.phone.slice(1)}@c.us`);
				expect(c.is_allowed_to_message).toBe(true);
			}
		}
		const members = all.filter((c) => c.is_group).flatMap((c) => c.group_members);
		const linked = members.find((m) => m.chat_id !== null);
		expect(linked).toBeDefined();
		expect(all.find((c) => c.id === linked.chat_id).phone).toBe(linked.phone);
		expect(all.some((c) => c.jid.endsWith('@broadcast') && c.is_allowed_to_message === false)).toBe(true);
		expect(all.some((c) => c.jid.endsWith('@newsletter') && c.is_allowed_to_message === false)).toBe(true);
	});

	test('label: comma list matches any', async () => {
		const got = await allChats('label=VIP,Billing');
		const expected = all.filter((c) => c.labels.includes('VIP') || c.labels.includes('Billing'));
		expect(got.map((c) => c.id).sort()).toEqual(expected.map((c) => c.id).sort());
		expect(got.length).toBeGreaterThan(0);
	});

	test('chatapp_account_id: comma list of wids', async () => {
		const accounts = (await data(sbx, '/chatapp_accounts')).chatapp_accounts;
		expect(accounts).toHaveLength(2);
		const one = await allChats(`chatapp_account_id=${encodeURIComponent(accounts[0].id)}`);
		expect(one.length).toBeGreaterThan(0);
		expect(one.every((c) => c.chatapp_account_id === accounts[0].id)).toBe(true);
		const both = await allChats(`chatapp_account_id=${encodeURIComponent(`${accounts[0].id},${accounts[1].id}`)}`);
		expect(both).toHaveLength(120);
	});

	test('group / read / closed / ai_autoresponse_enabled booleans', async () => {
		for (const [param, field] of [
			['group', 'is_group'],
			['read', 'read'],
			['closed', 'closed'],
			['ai_autoresponse_enabled', 'ai_autoresponse_enabled'],
		]) {
			const yes = await allChats(`${param}=true`);
			const no = await allChats(`${param}=false`);
			expect(yes.length + no.length).toBe(120);
			expect(yes.length).toBe(all.filter((c) => c[field!] === true).length);
			expect(no.every((c) => c[field!] === false)).toBe(true);
		}
	});

	test('responsible: comma list of emails', async () => {
		const emails = [...new Set(all.map((c) => c.responsible_email).filter(Boolean))].slice(0, 2) as string[];
		const got = await allChats(`responsible=${emails.join(',')}`);
		expect(got.length).toBe(all.filter((c) => emails.includes(c.responsible_email)).length);
		expect(got.length).toBeGreaterThan(0);
	});

	test('name: comma-separated, case-insensitive, contains any; whitespace = exact substring', async () => {
		const direct = all.find((c) => !c.is_group && c.name.includes(' '));
		const [first, last] = direct.name.split(' ');
		const byTwo = await allChats(`name=${encodeURIComponent(`${first.toUpperCase()},zzzz`)}`);
		expect(byTwo.map((c) => c.id)).toContain(direct.id);
		expect(byTwo.every((c) => c.name.toLowerCase().includes(first.toLowerCase()))).toBe(true);
		const exact = await allChats(`name=${encodeURIComponent(`${first} ${last}`)}`);
		expect(exact.every((c) => c.name.toLowerCase().includes(`${first} ${last}`.toLowerCase()))).toBe(true);
		const swapped = await allChats(`name=${encodeURIComponent(`${last} ${first}`)}`);
		expect(swapped.map((c) => c.id)).not.toContain(direct.id);
	});

	test('phone: + means exact; otherwise leading zeroes dropped and substring; groups excluded; invalid → 400', async () => {
		const direct = all.find((c) => !c.is_group && c.phone);
		const exact = await allChats(`phone=${encodeURIComponent(direct.phone)}`);
		expect(exact.map((c) => c.id)).toEqual([direct.id]);
		const partial = direct.phone.slice(3, 9);
		const sub = await allChats(`phone=00${partial}`);
		expect(sub.map((c) => c.id)).toContain(direct.id);
		expect(sub.every((c) => !c.is_group && c.phone.includes(partial))).toBe(true);
		const plusPartial = await allChats(`phone=${encodeURIComponent(`+${partial}`)}`);
		expect(plusPartial).toEqual([]);
		const groupMember = all.find((c) => c.is_group).group_members[1];
		const memberOnly = await allChats(`phone=${encodeURIComponent(groupMember.phone)}`);
		expect(memberOnly.every((c) => !c.is_group)).toBe(true);
		const bad = await call(sbx, 'GET', `/chats?phone=${encodeURIComponent('+49 (151) 123')}`);
		expect(bad.status).toBe(400);
		expect(bad.body).toMatchObject({ error_code: 'validation_error', message: 'Invalid phone number format' });
	});

	test('created_after / created_before (combinable)', async () => {
		const times = all.map((c) => c.created_timestamp).sort();
		const middle = times[60];
		const iso = new Date(Date.parse(middle.replace(' ', 'T').replace(/ ([+-]\d\d)(\d\d)$/, '$1:$2'))).toISOString();
		const after = await allChats(`created_after=${encodeURIComponent(iso)}`);
		const before = await allChats(`created_before=${encodeURIComponent(iso)}`);
		expect(after.length + before.length).toBe(119);
		expect(after.every((c) => c.created_timestamp > middle)).toBe(true);
		const window = await allChats(`created_after=2000-01-01T00:00:00Z&created_before=${encodeURIComponent(iso)}`);
		expect(window.length).toBe(before.length);
	});

	test('filters combine with AND', async () => {
		const got = await allChats('group=false&read=false&closed=false');
		expect(got.length).toBe(all.filter((c) => !c.is_group && !c.read && !c.closed).length);
		expect(got.length).toBeGreaterThan(0);
	});

	test('invalid parameter values → 400 validation_error naming the parameter', async () => {
		for (const [query, field] of [
			['group=yes', 'group'],
			['page=0', 'page'],
			['page=abc', 'page'],
			['created_after=yesterday', 'created_after'],
			['created_after=2026-02-30', 'created_after'],
			['created_before=2025-02-29T10:00:00Z', 'created_before'],
			['created_after=2026-04-31%2010:00:00%20%2B0200', 'created_after'],
			['created_after=2026-13-01', 'created_after'],
			// The spec's `date-time`: a date alone, a time without a zone and the records' own format are no date-times.
			['created_after=2025-01-01', 'created_after'],
			['created_after=2025-01-01T10:00:00', 'created_after'],
			['created_before=2025-06-02%2010:00:00%20%2B0000', 'created_before'],
		]) {
			const res = await call(sbx, 'GET', `/chats?${query}`);
			expect(res.status).toBe(400);
			expect(res.body.error_code).toBe('validation_error');
			expect(res.body.errors[0].fields).toEqual([field]);
		}
	});

	test('an unknown query parameter is ignored, as an OpenAPI document describes a query (it cannot close one)', async () => {
		const res = await call(sbx, 'GET', '/chats?colour=red&closed=false');
		expect(res.status).toBe(200);
		expect(res.body.data.chats.every((chat: { closed: boolean }) => !chat.closed)).toBe(true);
	});

	test('date-times with a zone are read as RFC 3339 (T, t or a space; Z, ±HH:MM or ±HHMM)', async () => {
		for (const value of ['2025-01-01T10:00:00Z', '2025-01-01 10:00:00+01:00', '2025-01-01t10:00:00.5-0130']) {
			const res = await call(sbx, 'GET', `/chats?created_after=${encodeURIComponent(value)}`);
			expect(res.status).toBe(200);
		}
	});
});

describe('GET/PATCH /chats/{id}', () => {
	test('GET returns the chat record', async () => {
		const chat = all[5];
		expect(await data(sbx, `/chats/${chat.id}`)).toEqual(chat);
	});

	test('closed / read / ai_autoresponse_enabled transitions both ways', async () => {
		const chat = all.find((c) => !c.is_group);
		for (const field of ['closed', 'read', 'ai_autoresponse_enabled']) {
			for (const value of [true, false, true]) {
				const res = await call(sbx, 'PATCH', `/chats/${chat.id}`, { [field]: value });
				expect(res.status).toBe(200);
				expect(res.body.data[field]).toBe(value);
				expect((await data(sbx, `/chats/${chat.id}`))[field]).toBe(value);
			}
		}
	});

	test('rename: names are unique in the workspace (400 validation_error on ["name"])', async () => {
		const [a, b] = [all[10], all[11]];
		const clash = await call(sbx, 'PATCH', `/chats/${a.id}`, { name: b.name.toUpperCase() });
		expect(clash.status).toBe(400);
		expect(clash.body.errors).toEqual([{ fields: ['name'], msg: expect.any(String) }]);
		const ok = await call(sbx, 'PATCH', `/chats/${a.id}`, { name: 'Renamed by test' });
		expect(ok.body.data.name).toBe('Renamed by test');
	});

	test('responsible: teammate email assigns, unknown → member_not_found, "" unassigns', async () => {
		const chat = all[12];
		const mate = (await data(sbx, '/workspace/teammates')).teammates[1];
		const assigned = await call(sbx, 'PATCH', `/chats/${chat.id}`, { responsible: mate.email.toUpperCase() });
		expect(assigned.status).toBe(200);
		expect(assigned.body.data).toMatchObject({ responsible_email: mate.email, responsible_name: mate.display_name });
		const unknown = await call(sbx, 'PATCH', `/chats/${chat.id}`, { responsible: 'ghost@nowhere.example' });
		expect(unknown.status).toBe(404);
		expect(unknown.body).toMatchObject({ status: 'error', error_code: 'member_not_found' });
		const cleared = await call(sbx, 'PATCH', `/chats/${chat.id}`, { responsible: '' });
		expect(cleared.body.data).toMatchObject({ responsible_email: null, responsible_name: null });
	});

	test('an empty PATCH is a validation error', async () => {
		const res = await call(sbx, 'PATCH', `/chats/${all[0].id}`, {});
		expect(res.status).toBe(400);
	});
});

describe('labels and notes', () => {
	test('GET returns data.labels; PUT adds and keeps; POST replaces; unknown labels join the registry', async () => {
		const chat = all[20];
		await call(sbx, 'POST', `/chats/${chat.id}/labels`, { labels: ['Support'] });
		const put = await call(sbx, 'PUT', `/chats/${chat.id}/labels`, { labels: ['Brand new', 'Support'] });
		expect(put.body.data.labels).toEqual(['Support', 'Brand new']);
		expect((await data(sbx, `/chats/${chat.id}/labels`)).labels).toEqual(['Support', 'Brand new']);
		const post = await call(sbx, 'POST', `/chats/${chat.id}/labels`, { labels: ['Only this'] });
		expect(post.body.data.labels).toEqual(['Only this']);
		expect((await data(sbx, `/chats/${chat.id}`)).labels).toEqual(['Only this']);
		const registry = (await data(sbx, '/_sandbox/labels')).labels;
		expect(registry).toEqual(expect.arrayContaining(['Brand new', 'Only this']));
		expect((await allChats('label=Only this')).map((c) => c.id)).toEqual([chat.id]);
	});

	test('notes are stored, returned, and never become messages or cost credits', async () => {
		const chat = all[21];
		const before = await data(sbx, '/workspace');
		const msgsBefore = (await data(sbx, `/chats/${chat.id}/messages`)).messages.length;
		const res = await call(sbx, 'POST', `/chats/${chat.id}/notes`, { text: 'Called back, wants a quote' });
		expect(res.status).toBe(200);
		expect(res.body.data).toMatchObject({ chat_id: chat.id, text: 'Called back, wants a quote' });
		const stored = (await data(sbx, `/_sandbox/notes?chat_id=${chat.id}`)).notes;
		expect(stored.map((n: any) => n.text)).toEqual(['Called back, wants a quote']);
		expect((await data(sbx, `/chats/${chat.id}/messages`)).messages.length).toBe(msgsBefore);
		expect((await data(sbx, '/workspace')).messaging_quota.used).toBe(before.messaging_quota.used);
		const empty = await call(sbx, 'POST', `/chats/${chat.id}/notes`, { text: '' });
		expect(empty.status).toBe(400);
		expect(empty.body.errors[0].fields).toEqual(['text']);
	});
});

describe('emptyList404 (--empty-list-404): the spec\'s 404 "entities not found" for a list page holding nothing', () => {
	let empty404: Sandbox;
	beforeAll(async () => {
		empty404 = await startSandbox({ ...FAST, chats: 60, tokens: ['e404'], emptyList404: true });
	});
	afterAll(() => empty404.stop());

	test.each([
		['a page past the end of GET /chats', '/chats?page=3'],
		['a filter that matches nothing', '/chats?name=nobody-is-called-this'],
		['a page past the end of GET /files', '/files?page=2'],
	])('%s is 404 Entities not found', async (_, path) => {
		const res = await call(empty404, 'GET', path);
		expect(res.status).toBe(404);
		expect(res.body).toEqual({ status: 'error', message: 'Entities not found' });
	});

	test('pages that hold chats answer as usual; the last one says no more pages', async () => {
		expect((await data(empty404, '/chats?page=2')).has_more_pages).toBe(false);
		expect((await data(empty404, '/chats?page=2')).chats).toHaveLength(10);
	});

	test("a chat's message history past its end is 404 Entities not found; an unknown chat keeps its own 404", async () => {
		const chat = (await data(empty404, '/chats')).chats[0];
		expect((await call(empty404, 'GET', `/chats/${chat.id}/messages?page=99`)).body).toEqual({
			status: 'error',
			message: 'Entities not found',
		});
		const unknown = await call(empty404, 'GET', '/chats/999999/messages');
		expect(unknown.status).toBe(404);
		expect(unknown.body.message).toBe('Chat not found');
	});

	test('without the option the same pages are empty 200 answers', async () => {
		expect(await data(sbx, '/chats?name=nobody-is-called-this')).toEqual({ has_more_pages: false, chats: [] });
	});
});
