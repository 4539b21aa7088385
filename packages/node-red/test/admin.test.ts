/**
 * The admin endpoints the dialogs call (packages/node-red/src/admin.ts), through Node-RED's admin app in the test
 * helper, against the sandbox: the pick lists (packages/core/src/runtime/lookups.ts, as n8n's) and the config node's Test connection. The
 * token is stored server-side and never appears in an answer.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADMIN_PREFIX, READ_PERMISSION, registerAdminRoutes, WRITE_PERMISSION } from '../src/admin';
import type { NodeAPI } from 'node-red';
import {
	configNode,
	CONFIG_ID,
	credentialsFor,
	FAST_SANDBOX,
	helper,
	nodesUnderTest,
	sandboxData,
	startSandbox,
	TAB,
	type Sandbox,
} from './support';

const TOKEN = 'admin-secret-token-9d41';
let sbx: Sandbox;

beforeAll(async () => {
	sbx = await startSandbox({ ...FAST_SANDBOX, chats: 80, tokens: [TOKEN] });
});
afterAll(async () => {
	await sbx.stop();
});
afterEach(async () => {
	await helper.unload();
});

async function loadConfig(token = TOKEN): Promise<void> {
	await helper.load(nodesUnderTest as never, [{ id: TAB, type: 'tab', label: 'admin' }, configNode(sbx)], credentialsFor(token));
}

const CHATS = `${ADMIN_PREFIX}/lookup/chat`;

test('the chat list: a page of chats as packages/core/src/runtime/lookups.ts gives it (value = id), then the next page by its token', async () => {
	await loadConfig();
	const expected = await sandboxData(sbx, '/chats?page=1');
	const response = await helper.request().get(CHATS).query({ config: CONFIG_ID }).expect(200);
	expect(response.body.results.map((chat: any) => chat.value)).toEqual(expected.chats.map((chat: any) => String(chat.id)));
	expect(response.body.results[0].name).toContain(expected.chats[0].name);
	expect(response.body.nextPageToken).toBe('2');
	const second = await helper.request().get(CHATS).query({ config: CONFIG_ID, page: '2' }).expect(200);
	expect(second.body.results.map((chat: any) => chat.value)).toEqual(
		(await sandboxData(sbx, '/chats?page=2')).chats.map((chat: any) => String(chat.id)),
	);
	expect(JSON.stringify([response.body, second.body])).not.toContain(TOKEN);
});

test('the chat list searches by name, and by phone for digits; other lists (teammates) come from the same route', async () => {
	await loadConfig();
	const some = (await sandboxData(sbx, '/chats?page=1')).chats.find((chat: any) => !chat.is_group && chat.phone);
	const word = String(some.name).split(' ')[0]!;
	const byName = await helper.request().get(CHATS).query({ config: CONFIG_ID, search: word }).expect(200);
	expect(byName.body.results.length).toBeGreaterThan(0);
	expect(byName.body.results.every((chat: any) => chat.name.toLowerCase().includes(word.toLowerCase()))).toBe(true);
	const byPhone = await helper.request().get(CHATS).query({ config: CONFIG_ID, search: some.phone }).expect(200);
	expect(byPhone.body.results.map((chat: any) => chat.value)).toContain(String(some.id));
	const mates = await helper.request().get(`${ADMIN_PREFIX}/lookup/teammate`).query({ config: CONFIG_ID }).expect(200);
	const expectedMates = (await sandboxData(sbx, '/workspace/teammates')).teammates.filter((mate: any) => mate.status === 'active');
	expect(mates.body.results.map((mate: any) => mate.value).sort()).toEqual(expectedMates.map((mate: any) => mate.email).sort());
	await helper.request().get(`${ADMIN_PREFIX}/lookup/nothing`).query({ config: CONFIG_ID }).expect(404);
});

test('a config node that is not deployed: the chat list says to deploy first', async () => {
	await loadConfig();
	const response = await helper.request().get(CHATS).query({ config: 'not-deployed-yet' }).expect(409);
	expect(response.body).toEqual({
		message: expect.stringMatching(/^Deploy the Chat Messaging configuration node first/),
		code: 'not_deployed',
	});
});

test('a wrong stored token: the chat list reports the service error, without the token', async () => {
	await loadConfig('wrong-token-abc123');
	const response = await helper.request().get(CHATS).query({ config: CONFIG_ID }).expect(502);
	expect(response.body.message).toMatch(/token|auth|401/i);
	expect(response.text).not.toContain('wrong-token-abc123');
});

test('Test connection: with the stored token, with typed values for an undeployed node, and with a wrong token', async () => {
	await loadConfig();
	const stored = await helper.request().post(`${ADMIN_PREFIX}/test-connection`).send({ config: CONFIG_ID, token: '__PWRD__' }).expect(200);
	expect(stored.body).toEqual({ ok: true, message: expect.stringMatching(/^Connected to workspace "/) });

	const typed = await helper
		.request()
		.post(`${ADMIN_PREFIX}/test-connection`)
		.send({ config: 'new-config', baseUrl: sbx.url, token: TOKEN })
		.expect(200);
	expect(typed.body.ok).toBe(true);
	expect(typed.text).not.toContain(TOKEN);

	const wrong = await helper
		.request()
		.post(`${ADMIN_PREFIX}/test-connection`)
		.send({ config: 'new-config', baseUrl: sbx.url, token: 'typed-wrong-token-77' })
		.expect(200);
	expect(wrong.body.ok).toBe(false);
	expect(wrong.text).not.toContain('typed-wrong-token-77');

	const missing = await helper
		.request()
		.post(`${ADMIN_PREFIX}/test-connection`)
		.send({ config: 'new-config', baseUrl: sbx.url })
		.expect(200);
	expect(missing.body).toMatchObject({ ok: false, field: 'token', message: 'token: enter the API token' });
});

test('Test connection never sends the stored token to a Service URL typed in the dialog', async () => {
	await loadConfig();
	const reached: string[] = [];
	const elsewhere = createServer((req, res) => {
		reached.push(String(req.headers.authorization ?? ''));
		res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok","data":{}}');
	});
	await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
	try {
		const changedUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
		const answer = await helper
			.request()
			.post(`${ADMIN_PREFIX}/test-connection`)
			.send({ config: CONFIG_ID, baseUrl: changedUrl, token: '__PWRD__' })
			.expect(200);
		expect(answer.body).toMatchObject({ ok: false, field: 'token' });
		expect(reached).toEqual([]);
	} finally {
		await new Promise((resolve) => elsewhere.close(resolve));
	}
});

test("both routes sit behind Node-RED's permission check for the config node type: reading lists needs read, Test connection (the server calls out) needs write", () => {
	const asked: string[] = [];
	const guards: Record<string, () => undefined> = {};
	const routes: Array<{ method: string; path: string; middleware: unknown }> = [];
	const app = {
		get: (path: string, middleware: unknown) => routes.push({ method: 'GET', path, middleware }),
		post: (path: string, middleware: unknown) => routes.push({ method: 'POST', path, middleware }),
	};
	registerAdminRoutes({
		httpAdmin: app,
		auth: {
			needsPermission: (permission: string) => {
				asked.push(permission);
				return (guards[permission] ??= () => undefined);
			},
		},
	} as unknown as NodeAPI);
	expect(asked.sort()).toEqual([READ_PERMISSION, WRITE_PERMISSION].sort());
	expect([READ_PERMISSION, WRITE_PERMISSION]).toEqual(['chat-messaging-config.read', 'chat-messaging-config.write']);
	expect(routes).toEqual([
		{ method: 'GET', path: `${ADMIN_PREFIX}/lookup/:list`, middleware: guards[READ_PERMISSION] },
		{ method: 'POST', path: `${ADMIN_PREFIX}/test-connection`, middleware: guards[WRITE_PERMISSION] },
	]);
});
