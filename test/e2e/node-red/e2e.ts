/**
 * End to end in real Node-RED runtimes: Node-RED 5 on Node 24 and Node-RED 4 on Node 20, each with the
 * package as `npm run build` packed it, installed with npm into a fresh user dir, driven over HTTP against
 * the sandbox. Run: `npm run test:e2e:node-red`. Ends with `N passed, N failed`; exits non-zero on failure.
 */
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RECORD_SHAPES } from '@chat-messaging/core';
import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';
import {
	HTTP_NODE_ROOT,
	PACKAGE_NAME,
	Checks,
	assert,
	assertEqual,
	buildAndPack,
	createUserDir,
	deployFlows,
	freePort,
	httpJson,
	installedExampleFlows,
	loadRuntimes,
	makeTempDir,
	readTextIfExists,
	removeDir,
	sleep,
	startNodeRed,
	waitFor,
	type NodeRedInstance,
} from './e2e-support';

type Json = Record<string, unknown>;
type Flow = Json[];

interface RuntimeUnderTest {
	label: string;
	nodeBin: string;
	nodeRedDir: string;
}

const TAB = 'e2e-tab';
const CONFIG_ID = 'e2e-config';
const EVENT_NODE_ID = 'e2e-events';
const SUBSCRIBED_EVENTS = ['message:received:new', 'message:sent:new'];
const STATUS_RANK: Record<string, number> = { queued: 0, sent: 1, delivered: 2, read: 3 };

/** Stores msg.payload (and msg.parts / msg.topic) under `key` in global context, for GET /api/collected. */
const collector = (id: string, key: string): Json => ({
	id,
	z: TAB,
	type: 'function',
	name: `collect ${key}`,
	func: [
		"const all = global.get('collected') || {};",
		`const key = ${JSON.stringify(key)};`,
		'(all[key] = all[key] || []).push({ topic: msg.topic, payload: msg.payload, parts: msg.parts });',
		"global.set('collected', all);",
		'return null;',
	].join('\n'),
	outputs: 1,
	wires: [[]],
});

function baseFlow(sandboxUrl: string, publicUrl: string, token: string): Flow {
	return [
		{ id: TAB, type: 'tab', label: 'chat messaging e2e' },
		{ id: CONFIG_ID, type: 'chat-messaging-config', name: 'sandbox', baseUrl: sandboxUrl, publicUrl, credentials: { token } },

		// POST /api/send {phone, text}: phone through a msg typedInput, text by the "From payload" option (msg.payload.text).
		{ id: 'send-in', z: TAB, type: 'http in', url: '/send', method: 'post', wires: [['send']] },
		{
			id: 'send',
			z: TAB,
			type: 'chat-messaging',
			name: 'send to phone',
			config: CONFIG_ID,
			resource: 'message',
			operation: 'sendToPhone',
			fields: { phone: { value: 'payload.phone', type: 'msg' }, text: { value: '', type: 'str' } },
			payloadFields: true,
			outputMode: 'array',
			returnAll: false,
			limit: 50,
			waitFor: 'delivered',
			waitTimeout: 20,
			wires: [['send-out']],
		},
		{ id: 'send-out', z: TAB, type: 'http response', wires: [] },

		// GET /api/chats: every chat (all pages) as one array; saved without Output (as before it existed): Raw.
		{ id: 'list-in', z: TAB, type: 'http in', url: '/chats', method: 'get', wires: [['list-array']] },
		{
			id: 'list-array',
			z: TAB,
			type: 'chat-messaging',
			name: 'all chats',
			config: CONFIG_ID,
			resource: 'chat',
			operation: 'getAll',
			fields: {},
			outputMode: 'array',
			returnAll: true,
			limit: 50,
			wires: [['list-out']],
		},
		{ id: 'list-out', z: TAB, type: 'http response', wires: [] },

		// Inject (POST /inject/list-split-inject) → the first 7 chats, one msg each, Output Simplified.
		{
			id: 'list-split-inject',
			z: TAB,
			type: 'inject',
			name: 'list split',
			props: [{ p: 'payload' }],
			payload: '',
			payloadType: 'date',
			repeat: '',
			once: false,
			wires: [['list-split']],
		},
		{
			id: 'list-split',
			z: TAB,
			type: 'chat-messaging',
			name: 'seven chats, split',
			config: CONFIG_ID,
			resource: 'chat',
			operation: 'getAll',
			fields: {},
			outputMode: 'split',
			output: 'simplified',
			returnAll: false,
			limit: 7,
			wires: [['collect-split']],
		},
		collector('collect-split', 'split'),

		// Errors: recorded, and answered as 400 when they come from an HTTP request.
		{ id: 'catch-all', z: TAB, type: 'catch', scope: null, uncaught: false, wires: [['collect-errors', 'error-answer']] },
		collector('collect-errors', 'errors'),
		{
			id: 'error-answer',
			z: TAB,
			type: 'function',
			func: 'if (!msg.res) return null;\nmsg.statusCode = 400;\nmsg.payload = { error: msg.error, details: msg.chatMessagingError };\nreturn msg;',
			outputs: 1,
			wires: [['error-out']],
		},
		{ id: 'error-out', z: TAB, type: 'http response', wires: [] },

		// GET /api/collected: what the collectors stored.
		{ id: 'collected-in', z: TAB, type: 'http in', url: '/collected', method: 'get', wires: [['collected-read']] },
		{
			id: 'collected-read',
			z: TAB,
			type: 'function',
			func: "msg.payload = global.get('collected') || {};\nreturn msg;",
			outputs: 1,
			wires: [['collected-out']],
		},
		{ id: 'collected-out', z: TAB, type: 'http response', wires: [] },
	];
}

const POLL_NODE_ID = 'e2e-poll';

/** An event node in polling mode (no public URL, no subscription) with burst batching, collecting under `polled`. */
const pollingNodes = (pollSeconds: number): Flow => [
	{
		id: POLL_NODE_ID,
		z: TAB,
		type: 'chat-messaging-event',
		name: 'polled inbound',
		config: CONFIG_ID,
		mode: 'polling',
		pollSeconds,
		events: ['message:received:new'],
		burstQuietSeconds: 1,
		wires: [['collect-polled']],
	},
	collector('collect-polled', 'polled'),
];

const eventNodes = (): Flow => [
	{
		id: EVENT_NODE_ID,
		z: TAB,
		type: 'chat-messaging-event',
		name: 'events',
		config: CONFIG_ID,
		events: SUBSCRIBED_EVENTS,
		wires: [['collect-events']],
	},
	collector('collect-events', 'events'),
];

const RESTART_NODE_ID = 'e2e-restart-events';

/** An event node in webhook mode whose collector keeps what it got in the context store on disk, across restarts. */
const restartNodes = (): Flow => [
	{
		id: RESTART_NODE_ID,
		z: TAB,
		type: 'chat-messaging-event',
		name: 'inbound across restarts',
		config: CONFIG_ID,
		events: ['message:received:new'],
		wires: [['collect-restart']],
	},
	{
		id: 'collect-restart',
		z: TAB,
		type: 'function',
		name: 'collect on disk',
		func: [
			"const all = global.get('acrossRestarts', 'file') || [];",
			'all.push({ uid: msg.payload.message_uid, text: msg.payload.text });',
			"global.set('acrossRestarts', all, 'file');",
			'return null;',
		].join('\n'),
		outputs: 1,
		wires: [[]],
	},
	{ id: 'restart-in', z: TAB, type: 'http in', url: '/across-restarts', method: 'get', wires: [['restart-read']] },
	{
		id: 'restart-read',
		z: TAB,
		type: 'function',
		func: "msg.payload = global.get('acrossRestarts', 'file') || [];\nreturn msg;",
		outputs: 1,
		wires: [['restart-out']],
	},
	{ id: 'restart-out', z: TAB, type: 'http response', wires: [] },
];

/** Stop lengths the restart check measures: 10 s by default (CI); CHAT_MESSAGING_E2E_STOP_SECONDS=10,60,600 for more. */
const STOP_SECONDS = (process.env.CHAT_MESSAGING_E2E_STOP_SECONDS ?? '10')
	.split(',')
	.map(Number)
	.filter((seconds) => Number.isFinite(seconds) && seconds > 0);
/** Messages keep arriving this far apart before, during and after a stop. */
const SEND_EVERY_MS = 800;

/** The public API of the sandbox, as the test's own independent view of what happened. */
class SandboxView {
	constructor(
		private readonly sandbox: RunningSandbox,
		private readonly token: string,
	) {}

	async get<T = Json>(pathAndQuery: string): Promise<T> {
		const response = await httpJson<{ status: string; data: T }>('GET', `${this.sandbox.url}${pathAndQuery}`, undefined, {
			Authorization: `Bearer ${this.token}`,
		});
		if (response.status !== 200) throw new Error(`sandbox GET ${pathAndQuery} answered ${response.status}: ${response.text}`);
		return response.body.data;
	}

	async post<T = Json>(pathAndQuery: string, body: unknown): Promise<T> {
		const response = await httpJson<{ status: string; data: T }>('POST', `${this.sandbox.url}${pathAndQuery}`, body, {
			Authorization: `Bearer ${this.token}`,
		});
		if (response.status !== 200) throw new Error(`sandbox POST ${pathAndQuery} answered ${response.status}: ${response.text}`);
		return response.body.data;
	}

	async webhooks(): Promise<Json[]> {
		const data = await this.get<unknown>('/webhooks');
		const list = Array.isArray(data) ? data : ((data as Json).webhooks as Json[] | undefined);
		if (!Array.isArray(list)) throw new Error(`unexpected GET /webhooks data: ${JSON.stringify(data)}`);
		return list;
	}

	async allChats(): Promise<Json[]> {
		const chats: Json[] = [];
		for (let page = 1; ; page++) {
			const data = await this.get<{ has_more_pages: boolean; chats: Json[] }>(`/chats?page=${page}`);
			chats.push(...data.chats);
			if (!data.has_more_pages) return chats;
		}
	}

	/** Public API requests the sandbox counted (its control API, which the test drives, not included). */
	async apiCalls(): Promise<number> {
		return (await this.get<{ api_calls: number }>('/_sandbox/traffic')).api_calls;
	}

	async apiCallsUsed(): Promise<number> {
		const workspace = await this.get<{ api_calls_quota: { used: number } }>('/workspace');
		return workspace.api_calls_quota.used;
	}

	async deliveries(eventType: string): Promise<Json[]> {
		const data = await this.get<{ deliveries: Json[] }>(`/_sandbox/deliveries?event_type=${encodeURIComponent(eventType)}`);
		return data.deliveries;
	}
}

async function collected(nodeRed: NodeRedInstance): Promise<Record<string, Json[]>> {
	const response = await httpJson<Record<string, Json[]>>('GET', `${nodeRed.url}${HTTP_NODE_ROOT}/collected`);
	if (response.status !== 200) throw new Error(`GET /collected answered ${response.status}: ${response.text}`);
	return response.body;
}

const eventsOf = async (nodeRed: NodeRedInstance, eventType: string, match: (payload: Json) => boolean): Promise<Json[]> =>
	((await collected(nodeRed)).events ?? [])
		.map((entry) => entry.payload as Json)
		.filter((payload) => payload.event_type === eventType && match(payload));

const READER = { username: 'reader', password: 'reader-password-e2e', permissions: 'read' };
const ADMIN = { username: 'admin', password: 'admin-password-e2e', permissions: '*' };

/** A settings file next to settings.js: the same settings, with adminAuth (two users) and both roots at "/". */
async function writeAdminAuthSettings(userDir: string, nodeRedDir: string): Promise<string> {
	const base = (await readFile(path.join(userDir, 'settings.js'), 'utf8')).replace(/^module\.exports = /, '').replace(/;\s*$/, '');
	// Node-RED checks passwords with bcrypt; its own bcryptjs makes the hashes.
	const hash = (password: string) =>
		execFileSync(process.execPath, [
			'-e',
			`process.stdout.write(require(${JSON.stringify(path.join(nodeRedDir, 'node_modules/bcryptjs'))}).hashSync(process.argv[1], 8))`,
			password,
		]).toString();
	const settings = {
		...(JSON.parse(base) as Json),
		httpAdminRoot: '/',
		httpNodeRoot: '/',
		adminAuth: {
			type: 'credentials',
			users: [READER, ADMIN].map((user) => ({ username: user.username, password: hash(user.password), permissions: user.permissions })),
		},
	};
	const file = path.join(userDir, 'settings-admin-auth.js');
	await writeFile(file, `module.exports = ${JSON.stringify(settings, null, 2)};\n`);
	return file;
}

/** A loopback server standing for an internal address: records every call it gets. */
async function startRecordingListener(): Promise<{ url: string; calls: string[]; close(): Promise<void> }> {
	const calls: string[] = [];
	const server = createServer((req, res) => {
		calls.push(`${req.method} ${req.url} ${String(req.headers.authorization ?? '')}`);
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.end(JSON.stringify({ status: 'ok', data: { workspace_id: 'internal', display_name: 'internal secrets' } }));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return { url: `http://127.0.0.1:${port}`, calls, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function adminToken(url: string, user: typeof READER): Promise<string> {
	const answer = await httpJson<{ access_token?: string }>('POST', `${url}/auth/token`, {
		client_id: 'node-red-admin',
		grant_type: 'password',
		scope: user.permissions,
		username: user.username,
		password: user.password,
	});
	if (answer.status !== 200 || !answer.body.access_token)
		throw new Error(`POST /auth/token for ${user.username}: ${answer.status} ${answer.text}`);
	return answer.body.access_token;
}

/**
 * Node-RED with adminAuth and both roots at "/": admin routes by what they do (Test connection makes the server call
 * out: write permission; the pick lists read), and the event route's own 1 MB cap although Node-RED's admin body
 * parser (5 MB) reads the body first.
 */
async function adminAuthChecks(red: NodeRedInstance, view: SandboxView, checks: Checks): Promise<void> {
	const listener = await startRecordingListener();
	try {
		const [readerToken, adminTokenValue] = [await adminToken(red.url, READER), await adminToken(red.url, ADMIN)];
		const as = (token: string) => ({ Authorization: `Bearer ${token}` });
		const testConnection = (token: string, body: Json) =>
			httpJson<Json>('POST', `${red.url}/chat-messaging/test-connection`, body, as(token));
		const attack = { baseUrl: listener.url, token: 'token-of-the-readers-choosing' };

		await checks.check(
			'adminAuth: a read-only user is refused Test connection (401, the permission check), and the address they name is never called',
			async () => {
				const answer = await testConnection(readerToken, attack);
				// Node-RED's needsPermission answers a logged-in user without the permission 401, as it does a missing login.
				assertEqual(answer.status, 401, `Test connection as the read-only user (${answer.text})`);
				await sleep(300);
				assertEqual(listener.calls, [], 'calls the internal address got');
				const noLogin = await httpJson('POST', `${red.url}/chat-messaging/test-connection`, attack);
				assertEqual(noLogin.status, 401, 'Test connection without a login');
				// Reading a pick list stays open to the read-only user.
				const chats = await httpJson<{ results?: Json[] }>(
					'GET',
					`${red.url}/chat-messaging/lookup/chat?config=${CONFIG_ID}`,
					undefined,
					as(readerToken),
				);
				assertEqual(chats.status, 200, `the chat list as the read-only user (${chats.text.slice(0, 200)})`);
				assert((chats.body.results ?? []).length > 0, 'the chat list is empty');
				assertEqual(listener.calls, [], 'calls the internal address got');
			},
		);

		await checks.check('adminAuth: the full user can still test a connection (the stored token, and a URL they type)', async () => {
			const stored = await testConnection(adminTokenValue, { config: CONFIG_ID });
			assertEqual([stored.status, stored.body.ok], [200, true], `Test connection with the stored token (${stored.text})`);
			const typed = await testConnection(adminTokenValue, attack);
			assertEqual([typed.status, typed.body.ok], [200, true], `Test connection of a typed URL (${typed.text})`);
			assertEqual(listener.calls.length, 1, 'calls the typed address got from the full user');
		});

		await checks.check(
			'httpAdminRoot = httpNodeRoot = /: a 2 MB delivery to the event route is refused (413), a small one gets in',
			async () => {
				const prefix = `${red.url}/chat-messaging/events/${EVENT_NODE_ID}/`;
				const hook = await waitFor('the subscriptions re-pointed to the new node root', async () =>
					(await view.webhooks()).find((candidate) => String(candidate.url).startsWith(prefix)),
				);
				const tag = randomBytes(3).toString('hex');
				const delivery = (uid: string, text: string) =>
					JSON.stringify({ event_type: 'message:received:new', data: { chat_id: 1, message_uid: uid, text } });
				const post = (body: string) =>
					fetch(String(hook.url), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body }).then(
						(response) => response.status,
						(error: Error) => error.message,
					);
				const big = await post(delivery(`BIG-${tag}`, `big ${tag} ${'x'.repeat(2 * 1024 * 1024)}`));
				assertEqual(big, 413, 'answer to a 2 MB delivery');
				assertEqual(await post(delivery(`SMALL-${tag}`, `small ${tag}`)), 200, 'answer to a small delivery');
				const texts = async () =>
					(((await httpJson<Record<string, Json[]>>('GET', `${red.url}/collected`)).body.events ?? []) as Json[])
						.map((entry) => String((entry.payload as Json).text))
						.filter((text) => text.includes(tag));
				await waitFor('the small delivery in the flow', async () => ((await texts()).length ? true : undefined));
				await sleep(300);
				assertEqual(
					(await texts()).map((text) => text.slice(0, 20)),
					[`small ${tag}`],
					'deliveries that reached the flow',
				);
			},
		);
	} finally {
		await listener.close();
	}
}

async function testRuntime(runtime: RuntimeUnderTest, tarball: string, checks: Checks, timings: Record<string, number>): Promise<void> {
	const token = `nr-e2e-${randomBytes(12).toString('hex')}`;
	const started = Date.now();
	const phase = async <T>(name: string, body: () => Promise<T>): Promise<T> => {
		const at = Date.now();
		try {
			return await body();
		} finally {
			timings[name] = Date.now() - at;
		}
	};

	const sandbox = await startSandbox({
		tokens: [token],
		seed: 11,
		chats: 60,
		paceMs: 50,
		deliveredAfterMs: 300,
		readAfterMs: 600_000,
		webhookRetryMs: 200,
	});
	const view = new SandboxView(sandbox, token);
	let nodeRed: NodeRedInstance | undefined;
	let userDir: string | undefined;
	try {
		const port = await freePort();
		userDir = await checks.step('npm install of the packed package into a fresh user dir', () =>
			phase('install', () => createUserDir(tarball, port)),
		);
		if (!userDir) return;
		const dir = userDir;
		nodeRed = await checks.step(`${runtime.label} starts`, () =>
			phase('start', () => startNodeRed({ nodeBin: runtime.nodeBin, nodeRedDir: runtime.nodeRedDir, userDir: dir, port })),
		);
		if (!nodeRed) return;
		const red = nodeRed;
		const publicUrl = red.url;
		const fullFlow = [...baseFlow(sandbox.url, publicUrl, token), ...eventNodes()];

		const loaded = await checks.check('the runtime loads the package and its three node types', async () => {
			const response = await httpJson<Json[]>('GET', `${red.url}/nodes`, undefined, { Accept: 'application/json' });
			const sets = response.body.filter((set) => set.module === PACKAGE_NAME);
			assert(
				sets.length > 0,
				`GET /nodes lists no ${PACKAGE_NAME}; node sets: ${JSON.stringify(response.body.map((set) => set.module))}\n${red.output()}`,
			);
			for (const set of sets) assert(set.enabled !== false && !set.err, `node set ${String(set.id)} failed to load: ${String(set.err)}`);
			const types = sets.flatMap((set) => set.types as string[]).sort();
			assertEqual(types, ['chat-messaging', 'chat-messaging-config', 'chat-messaging-event'], 'registered node types');
		});
		if (!loaded) return;

		const deployed = await checks.check('deploy through the admin API (token in the config node credentials)', () =>
			phase('deploy', () => deployFlows(red.url, fullFlow)),
		);
		if (!deployed) return;

		await checks.check('the event node subscribes once per event type at publicUrl + httpNodeRoot', async () => {
			const hooks = await waitFor('two subscriptions in the sandbox', async () => {
				const list = await view.webhooks();
				return list.length >= SUBSCRIBED_EVENTS.length ? list : undefined;
			});
			assertEqual(hooks.map((hook) => hook.event_type).sort(), [...SUBSCRIBED_EVENTS].sort(), 'subscribed event types');
			const prefix = `${publicUrl}${HTTP_NODE_ROOT}/chat-messaging/events/${EVENT_NODE_ID}/`;
			for (const hook of hooks) {
				assert(
					String(hook.url).startsWith(prefix) && String(hook.url).length > prefix.length + 8,
					`subscription URL ${String(hook.url)} is not ${prefix}<secret>`,
				);
				assertEqual(hook.enabled, true, 'subscription enabled');
			}
		});

		const phone = '+4915550' + String(Date.now() % 1_000_000).padStart(6, '0');
		const text = `hello from ${runtime.label} ${randomBytes(3).toString('hex')}`;
		let messageUid = '';
		await checks.check('http in → send to phone (wait for delivered) → http response; the sandbox holds it once', async () => {
			const answer = await phase('send', () => httpJson<Json>('POST', `${red.url}${HTTP_NODE_ROOT}/send`, { phone, text }));
			assertEqual(answer.status, 200, `POST /send status (body ${answer.text})`);
			messageUid = String(answer.body.message_uid ?? '');
			assert(messageUid, `no message_uid in ${answer.text}`);
			assert(
				(STATUS_RANK[String(answer.body.status)] ?? -1) >= STATUS_RANK.delivered,
				`status after waiting for delivered: ${String(answer.body.status)}`,
			);
			const message = await view.get<Json>(`/messages/${messageUid}`);
			assertEqual(message.text, text, 'text of the message in the sandbox');
			const chats = await view.get<{ chats: Json[] }>(`/chats?phone=${encodeURIComponent(phone)}`);
			assertEqual(chats.chats.length, 1, 'chats for the new phone number');
			const history = await view.get<{ messages: Json[] }>(`/chats/${String(chats.chats[0].id)}/messages`);
			assertEqual(history.messages.filter((m) => m.text === text).length, 1, 'copies of the message in the chat');
		});

		await checks.check('message:sent:new for the sent message reaches the flow exactly once', async () => {
			assert(messageUid, 'no message was sent');
			const events = await waitFor('the sent event in the flow', async () => {
				const found = await eventsOf(red, 'message:sent:new', (payload) => payload.message_uid === messageUid);
				return found.length > 0 ? found : undefined;
			});
			await sleep(500); // a second copy, if the node let one through, would arrive within this pause
			assertEqual(
				(await eventsOf(red, 'message:sent:new', (payload) => payload.message_uid === messageUid)).length,
				1,
				`sent events for ${messageUid} (first: ${JSON.stringify(events[0])})`,
			);
		});

		await checks.check('an inbound message delivered twice (duplicate) becomes exactly one msg', async () => {
			const inboundText = `inbound ${randomBytes(3).toString('hex')}`;
			await view.post('/_sandbox/incoming', { phone, text: inboundText, duplicate: true });
			await waitFor('both deliveries answered 2xx', async () => {
				const ok = (await view.deliveries('message:received:new')).filter(
					(d) => d.ok === true && JSON.stringify(d.body).includes(inboundText),
				);
				return ok.length >= 2 ? ok : undefined;
			});
			const received = await eventsOf(red, 'message:received:new', (payload) => payload.text === inboundText);
			assertEqual(received.length, 1, 'msgs for one inbound message delivered twice');
			assert(
				typeof received[0].message_uid === 'string' && received[0].chat_id !== undefined,
				`event payload lacks message_uid/chat_id: ${JSON.stringify(received[0])}`,
			);
		});

		await checks.check(
			'Get Many chats, return all, array mode, saved without Output: one msg with every whole chat across pages',
			async () => {
				const chats = await view.allChats();
				const expected = chats.map((chat) => chat.id);
				assert(expected.length > 50, `the sandbox should hold more than one page of chats, holds ${expected.length}`);
				const answer = await httpJson<Json[]>('GET', `${red.url}${HTTP_NODE_ROOT}/chats`);
				assertEqual(answer.status, 200, `GET /chats status (body ${answer.text.slice(0, 300)})`);
				assert(Array.isArray(answer.body), `payload is not an array: ${answer.text.slice(0, 300)}`);
				assertEqual(
					answer.body.map((chat) => chat.id),
					expected,
					'chat ids in order',
				);
				// Raw, as a flow saved before the Output choice existed always had: every field the service sends.
				assertEqual(
					answer.body.map((chat) => Object.keys(chat).sort()),
					chats.map((chat) => Object.keys(chat).sort()),
					'field names of each chat',
				);
				assert(
					chats.some((chat) => Object.keys(chat).some((name) => !RECORD_SHAPES.chat.simplified.includes(name))),
					'the sandbox sends no field beyond the simplified ones: Raw and Simplified would not differ',
				);
			},
		);

		await checks.check(
			'Get Many chats, limit 7, split mode, Output Simplified: seven simplified msgs with msg.parts, in order',
			async () => {
				const firstSeven = (await view.get<{ chats: Json[] }>('/chats?page=1')).chats.slice(0, 7);
				const expected = firstSeven.map((chat) => chat.id);
				const injected = await httpJson('POST', `${red.url}/inject/list-split-inject`);
				assertEqual(injected.status, 200, `POST /inject status (${injected.text})`);
				const split = await waitFor('seven split msgs', async () => {
					const entries = (await collected(red)).split ?? [];
					return entries.length >= 7 ? entries : undefined;
				});
				await sleep(300); // an eighth msg would be a bug: give it the chance to show up
				const entries = (await collected(red)).split ?? split;
				assertEqual(
					entries.map((entry) => (entry.payload as Json).id),
					expected,
					'chat ids of the split msgs',
				);
				assertEqual(
					entries.map((entry) => (entry.parts as Json | undefined)?.index),
					[0, 1, 2, 3, 4, 5, 6],
					'msg.parts.index',
				);
				assertEqual(
					entries.map((entry) => Object.keys(entry.payload as Json).sort()),
					firstSeven.map((chat) => RECORD_SHAPES.chat.simplified.filter((name) => name in chat).sort()),
					'field names of each msg.payload (the simplified ones the chat has)',
				);
				assert(
					entries.every((entry) => (entry.parts as Json | undefined)?.count === 7),
					'msg.parts.count is 7 on every msg',
				);
			},
		);

		await checks.check('bad input (phone with spaces) fails before any request, naming the field', async () => {
			const before = await view.apiCallsUsed();
			const answer = await httpJson<Json>('POST', `${red.url}${HTTP_NODE_ROOT}/send`, { phone: '+49 151 1234 5678', text: 'never sent' });
			const after = await view.apiCallsUsed();
			assertEqual(answer.status, 400, `POST /send with a bad phone answered (body ${answer.text})`);
			const error = answer.body.error as Json | undefined;
			assert(/phone/i.test(String(error?.message)), `error message does not name the phone field: ${answer.text}`);
			assertEqual((answer.body.details as Json | undefined)?.kind, 'input', 'error kind');
			assertEqual(after - before, 1, 'API calls between the two workspace reads (only the second read itself)');
		});

		await checks.check(
			'the token is in neither flows.json, GET /flows, the credentials API nor the log; flows_cred.json is encrypted',
			async () => {
				const flowsFile = await readTextIfExists(path.join(dir, 'flows.json'));
				assert(flowsFile !== undefined && flowsFile.includes(CONFIG_ID), 'flows.json was not written with the config node');
				assert(!flowsFile.includes(token), 'flows.json contains the token');
				const credentialsFile = await readTextIfExists(path.join(dir, 'flows_cred.json'));
				assert(credentialsFile !== undefined, 'flows_cred.json was not written');
				assert(!credentialsFile.includes(token), 'flows_cred.json holds the token in plain text');
				assert(typeof (JSON.parse(credentialsFile) as Json).$ === 'string', 'flows_cred.json is not in the encrypted {"$": ...} form');
				const exported = await httpJson('GET', `${red.url}/flows`, undefined, { 'Node-RED-API-Version': 'v2' });
				assert(exported.text.includes(CONFIG_ID) && !exported.text.includes(token), 'GET /flows contains the token');
				const credentials = await httpJson<Json>('GET', `${red.url}/credentials/chat-messaging-config/${CONFIG_ID}`);
				assertEqual(credentials.body.has_token, true, `credentials API has_token (${credentials.text})`);
				assert(!credentials.text.includes(token), 'the credentials API returns the token');
				assert(!red.output().includes(token), 'the Node-RED log contains the token');
				const seen = await collected(red);
				assert(!JSON.stringify(seen).includes(token), 'a msg or an error carried the token');
			},
		);

		await checks.check('no unexpected errors reached the Catch node', async () => {
			const errors = ((await collected(red)).errors ?? []).filter((entry) => !JSON.stringify(entry).includes('never sent'));
			assertEqual(errors, [], 'errors other than the bad-input one');
		});

		await checks.check('a redeploy without the event node deletes its subscriptions', async () => {
			await phase('redeploy', () => deployFlows(red.url, baseFlow(sandbox.url, publicUrl, token)));
			await waitFor('no subscriptions left', async () => ((await view.webhooks()).length === 0 ? true : undefined), { timeoutMs: 10_000 });
		});

		// The example flows the package ships, deployed next to the base flow on its one config node; a tap on
		// the send example's output records what the flow got back.
		const examples = await installedExampleFlows(dir, CONFIG_ID);
		const sendExample = examples['send-attachment-and-wait-for-delivery'] ?? [];
		const sendNode = sendExample.find((node) => node.type === 'chat-messaging');
		const examplesDeployed = await checks.check('the example flows deploy on one config node and their event nodes subscribe', async () => {
			assert(sendNode, `the package ships no send example; examples: ${Object.keys(examples).join(', ')}`);
			const tap: Json = { ...collector('tap-sent-example', 'sent-example'), z: sendNode.z };
			const tapped = sendExample.map((node) =>
				node === sendNode ? { ...node, wires: [[...((node.wires as string[][])[0] ?? []), 'tap-sent-example']] } : node,
			);
			const flows = Object.entries(examples).flatMap(([name, nodes]) =>
				name === 'send-attachment-and-wait-for-delivery' ? [...tapped, tap] : nodes,
			);
			await deployFlows(red.url, [...baseFlow(sandbox.url, publicUrl, token), ...flows]);
			const events = flows.filter((node) => node.type === 'chat-messaging-event').flatMap((node) => node.events as string[]);
			assertEqual(events.sort(), ['chat:created', 'message:received:new', 'message:received:new'], 'event types of the examples');
			await waitFor("the examples' subscriptions", async () => ((await view.webhooks()).length === events.length ? true : undefined));
		});

		if (examplesDeployed) {
			await checks.check('examples: a new customer gets the label "new", a teammate and one auto-reply', async () => {
				const { teammates } = await view.get<{ teammates: Json[] }>('/workspace/teammates');
				const teammate = teammates.find((member) => member.status === 'active')?.email;
				assert(teammate, 'the sandbox has no active teammate');
				const customer = '+4915177' + String(Date.now() % 1_000_000).padStart(6, '0');
				const incoming = await view.post<Json>('/_sandbox/incoming', { phone: customer, text: 'Hello, a new customer here' });
				assertEqual(incoming.chat_created, true, 'a new chat');
				const reply = 'Thanks for your message, we will answer shortly.';
				const replies = async () =>
					(await view.get<{ messages: Json[] }>(`/chats/${String(incoming.chat_id)}/messages`)).messages.filter(
						(m) => m.from_me === true && m.text === reply,
					).length;
				await waitFor('the label, the assignment and the reply', async () => {
					const chat = await view.get<Json>(`/chats/${String(incoming.chat_id)}`);
					const labelled = (chat.labels as string[]).includes('new') && chat.responsible_email === teammate;
					return labelled && (await replies()) > 0 ? true : undefined;
				});
				await sleep(1000); // a second reply, if one were sent, would show up within this pause
				assertEqual(await replies(), 1, 'auto-replies');
			});

			await checks.check('examples: the morning export writes one CSV row per unread chat', async () => {
				const inject = examples['export-unread-chats-every-morning']?.find((node) => node.type === 'inject');
				assert(inject && String(inject.crontab).trim() !== '', 'the export example has no scheduled inject');
				const file = path.join(dir, 'unread-chats.csv');
				await removeDir(file);
				const injected = await httpJson('POST', `${red.url}/inject/${String(inject.id)}`);
				assertEqual(injected.status, 200, `POST /inject status (${injected.text})`);
				const csv = await waitFor('unread-chats.csv', () => readTextIfExists(file));
				const [header, ...rows] = csv.trim().split('\n');
				assertEqual(header, 'id,name,phone,last_message,responsible,labels', 'CSV header');
				const unread = (await view.allChats()).filter((chat) => chat.read === false).map((chat) => String(chat.id));
				assertEqual(rows.map((row) => row.split(',')[0]).sort(), unread.sort(), 'chat ids in the CSV (the unread chats)');
			});

			await checks.check(
				"examples: the files of an inbound message are downloaded into attachments/, byte-equal, from the sandbox's spec-shaped delivery and from exactly the spec's event (no attachment hint)",
				async () => {
					for (const payload of ['spec', 'spec-exact']) {
						const bytes = Buffer.from(Array.from({ length: 3000 }, (_, index) => (index * 29) % 256));
						const form = new FormData();
						form.append('file', new Blob([bytes], { type: 'application/pdf' }), `order-${payload}.pdf`);
						const uploaded = await fetch(`${sandbox.url}/files_upload`, {
							method: 'POST',
							headers: { authorization: `Bearer ${token}` },
							body: form,
						});
						const fileUid = ((await uploaded.json()) as { data: { uid: string } }).data.uid;
						const incoming = await view.post<Json>('/_sandbox/incoming', { phone, text: 'my order, attached', file_uid: fileUid, payload });
						const written = path.join(dir, 'attachments', `${String(incoming.chat_id)}-order-${payload}.pdf`);
						const content = await waitFor('the downloaded file', async () => {
							try {
								return await readFile(written);
							} catch {
								return undefined;
							}
						});
						assert(Buffer.compare(content, bytes) === 0, `the file written differs from the one sent (${content.length} bytes)`);
					}
				},
			);

			await checks.check('examples: the send example delivers its message with the attachment, once', async () => {
				const inject = sendExample.find((node) => node.type === 'inject');
				assert(inject, 'the send example has no inject node');
				const injected = await httpJson('POST', `${red.url}/inject/${String(inject.id)}`);
				assertEqual(injected.status, 200, `POST /inject status (${injected.text})`);
				const [sent] = await waitFor("the send example's output", async () => (await collected(red))['sent-example']);
				const payload = sent.payload as Json;
				assert(['delivered', 'read'].includes(String(payload.status)), `the flow got status ${String(payload.status)}`);
				const message = await view.get<Json>(`/messages/${String(payload.message_uid)}`);
				assertEqual([message.has_attachment, message.attachment_filename], [true, 'price-list.pdf'], 'attachment of the message');
				const history = await view.get<{ messages: Json[] }>(`/chats/${String(message.chat_id)}/messages`);
				assertEqual(history.messages.filter((m) => m.text === message.text).length, 1, 'copies of the message in the chat');
			});
		}

		await checks.check(
			'stopping Node-RED keeps the subscriptions and their secret; after a restart an inbound message gets in',
			async () => {
				await deployFlows(red.url, fullFlow);
				const before = await waitFor('subscriptions again', async () => {
					const list = await view.webhooks();
					return list.length === SUBSCRIBED_EVENTS.length ? list : undefined;
				});
				await phase('stop', () => red.stop());
				const described = (list: typeof before) => list.map((hook) => `${hook.id} ${hook.url}`).sort();
				assertEqual(described(await view.webhooks()), described(before), 'subscriptions after Node-RED stopped');
				const flowsFile = (await readTextIfExists(path.join(dir, 'flows.json'))) ?? '';
				assert(!flowsFile.includes(token) && !red.output().includes(token), 'the token reached flows.json or the log at shutdown');

				const port = Number(new URL(red.url).port);
				nodeRed = await phase('restart', () =>
					startNodeRed({ nodeBin: runtime.nodeBin, nodeRedDir: runtime.nodeRedDir, userDir: dir, port }),
				);
				const restarted = nodeRed;
				const afterRestart = `after restart ${randomBytes(3).toString('hex')}`;
				await view.post('/_sandbox/incoming', { phone, text: afterRestart });
				await waitFor('the inbound message after the restart in the flow', async () =>
					(await eventsOf(restarted, 'message:received:new', (payload) => payload.text === afterRestart)).length === 1 ? true : undefined,
				);
				assertEqual(described(await view.webhooks()), described(before), 'subscriptions after the restart (reused, not recreated)');
			},
		);

		for (const stopSeconds of STOP_SECONDS) {
			await checks.check(
				`webhook mode, a stop of ${stopSeconds} s with a message every ${SEND_EVERY_MS} ms throughout: each reaches the flow exactly once (caught up after the start)`,
				async () => {
					const running = nodeRed;
					assert(running, 'Node-RED is not running');
					await phase(`deploy restart ${stopSeconds}`, () => deployFlows(running.url, [...fullFlow, ...restartNodes()]));
					await waitFor('the subscription of the restart node', async () =>
						(await view.webhooks()).some((hook) => String(hook.url).includes(`/${RESTART_NODE_ID}/`)) ? true : undefined,
					);
					const tag = randomBytes(3).toString('hex');
					const stopPhone = '+4915552' + String(Date.now() % 1_000_000).padStart(6, '0');
					const sent: string[] = [];
					let sending = true;
					const sender = (async () => {
						for (let index = 0; sending; index++) {
							const answer = await view.post<Json>('/_sandbox/incoming', { phone: stopPhone, text: `stop ${tag} ${index}` });
							sent.push(String((answer.message as Json).uid));
							await sleep(SEND_EVERY_MS);
						}
					})();
					const port = Number(new URL(running.url).port);
					let restarted: NodeRedInstance | undefined;
					try {
						await sleep(4000);
						const sentBeforeStop = sent.length;
						await phase(`stop ${stopSeconds}`, () => running.stop());
						nodeRed = undefined;
						await sleep(stopSeconds * 1000);
						const sentDuringStop = sent.length - sentBeforeStop;
						const apiCallsBefore = await view.apiCalls();
						restarted = await phase(`restart after ${stopSeconds}`, () =>
							startNodeRed({ nodeBin: runtime.nodeBin, nodeRedDir: runtime.nodeRedDir, userDir: dir, port }),
						);
						nodeRed = restarted;
						await sleep(4000);
						sending = false;
						await sender;
						const red2 = restarted;
						const got = async () =>
							(
								(await httpJson<Array<{ uid: string; text: string }>>('GET', `${red2.url}${HTTP_NODE_ROOT}/across-restarts`)).body ?? []
							).filter((entry) => String(entry.text).startsWith(`stop ${tag} `));
						await waitFor(
							'every message sent in the flow',
							async () => (new Set((await got()).map((entry) => entry.uid)).size >= sent.length ? true : undefined),
							{ timeoutMs: 60_000 },
						).catch(() => undefined);
						await sleep(2000);
						const reached = await got();
						const counts = new Map<string, number>();
						for (const entry of reached) counts.set(entry.uid, (counts.get(entry.uid) ?? 0) + 1);
						const lost = sent.filter((uid) => !counts.has(uid));
						const doubled = [...counts.values()].filter((count) => count > 1).length;
						console.log(
							`        stop ${stopSeconds} s: ${sent.length} sent (${sentDuringStop} during the stop), ${counts.size} reached the flow, ` +
								`${lost.length} lost, ${doubled} more than once; requests from the start until now: ${(await view.apiCalls()) - apiCallsBefore}`,
						);
						assertEqual([lost.length, doubled], [0, 0], 'messages lost, messages reaching the flow more than once');
					} finally {
						sending = false;
						await sender;
					}
				},
			);
		}

		await checks.check('a quiet restart: the catch-up costs one request per event type it reads back', async () => {
			const running = nodeRed;
			assert(running, 'Node-RED is not running');
			await phase('stop quiet', () => running.stop());
			nodeRed = undefined;
			const before = await view.apiCalls();
			nodeRed = await phase('restart quiet', () =>
				startNodeRed({ nodeBin: runtime.nodeBin, nodeRedDir: runtime.nodeRedDir, userDir: dir, port: Number(new URL(running.url).port) }),
			);
			await sleep(3000);
			const used = (await view.apiCalls()) - before;
			// Each webhook event node re-reads its subscriptions (GET /webhooks) and catches up: one chat page per event type.
			console.log(`        a quiet restart of two webhook event nodes (3 event types in all): ${used} requests`);
		});

		await checks.check(
			'polling mode: no subscription; each message once (a burst as one item) across a redeploy and a restart, the cursor in the user dir',
			async () => {
				const running = nodeRed;
				assert(running, 'Node-RED is not running');
				const stateFile = path.join(dir, 'chat-messaging', `event-${POLL_NODE_ID}.json`);
				await phase('deploy polling', () => deployFlows(running.url, [...fullFlow, ...pollingNodes(1)]));
				await waitFor('the first poll to store its cursor', async () => ((await readTextIfExists(stateFile)) ? true : undefined));
				const tag = randomBytes(3).toString('hex');
				const pollPhone = '+4915551' + String(Date.now() % 1_000_000).padStart(6, '0');
				const polledTexts = async (red: NodeRedInstance) =>
					((await collected(red)).polled ?? []).map((entry) => entry.payload as Json).filter((p) => String(p.text).includes(tag));

				// A burst of two messages in one chat comes out as one item once the customer is quiet for 1 s.
				const first = await view.post<Json>('/_sandbox/incoming', { phone: pollPhone, text: `burst one ${tag}`, name: `Polled ${tag}` });
				const second = await view.post<Json>('/_sandbox/incoming', { phone: pollPhone, text: `burst two ${tag}` });
				const [burst] = await waitFor('the burst in the flow', async () => {
					const items = await polledTexts(running);
					return items.length ? items : undefined;
				});
				assertEqual(burst.text, `burst one ${tag}\nburst two ${tag}`, "the burst's texts, joined");
				const uid = (answer: Json) => String((answer.message as Json).uid);
				assertEqual(burst.message_uids, [uid(first), uid(second)], "the burst's message uids");

				// A message written just before a redeploy (another interval: a new instance) comes once.
				await view.post('/_sandbox/incoming', { phone: pollPhone, text: `before redeploy ${tag}` });
				await phase('redeploy polling', () => deployFlows(running.url, [...fullFlow, ...pollingNodes(2)]));
				await waitFor(
					'the message of the redeploy in the flow',
					async () => ((await polledTexts(running)).length >= 2 ? true : undefined),
					{ timeoutMs: 20_000 },
				);
				await sleep(4500); // two more polls: nothing may come again
				assertEqual(
					(await polledTexts(running)).map((p) => p.text),
					[`burst one ${tag}\nburst two ${tag}`, `before redeploy ${tag}`],
					'items after the redeploy (each once)',
				);
				const subscribed = (await view.webhooks()).filter((hook) => String(hook.url).includes(`/${POLL_NODE_ID}/`));
				assertEqual(subscribed.length, 0, 'webhook subscriptions of the polling node');

				// Stopped: a message arrives meanwhile; after the restart it comes once, from the stored cursor.
				await phase('stop polling', () => running.stop());
				await view.post('/_sandbox/incoming', { phone: pollPhone, text: `while stopped ${tag}` });
				const port = Number(new URL(running.url).port);
				nodeRed = await phase('restart polling', () =>
					startNodeRed({ nodeBin: runtime.nodeBin, nodeRedDir: runtime.nodeRedDir, userDir: dir, port }),
				);
				const restarted = nodeRed;
				await waitFor(
					'the message written while stopped in the flow',
					async () => ((await polledTexts(restarted)).length ? true : undefined),
					{ timeoutMs: 20_000 },
				);
				await sleep(4500);
				assertEqual(
					(await polledTexts(restarted)).map((p) => p.text),
					[`while stopped ${tag}`],
					'items after the restart (only the new one, once)',
				);
			},
		);

		// Last: a restart with adminAuth and both roots at "/" (the flows deployed above run on).
		const beforeAuth = nodeRed;
		if (beforeAuth) {
			await phase('stop before adminAuth', () => beforeAuth.stop());
			nodeRed = undefined;
			nodeRed = await checks.step('restart with adminAuth (a read-only and a full user), httpAdminRoot = httpNodeRoot = /', () =>
				phase('restart with adminAuth', async () =>
					startNodeRed({
						nodeBin: runtime.nodeBin,
						nodeRedDir: runtime.nodeRedDir,
						userDir: dir,
						port: Number(new URL(beforeAuth.url).port),
						settingsFile: await writeAdminAuthSettings(dir, runtime.nodeRedDir),
					}),
				),
			);
			if (nodeRed) await adminAuthChecks(nodeRed, view, checks);
		}
	} finally {
		await nodeRed?.stop();
		if (nodeRed && (checks.failed > 0 || process.env.CHAT_MESSAGING_E2E_VERBOSE === '1')) {
			console.log(`  --- ${runtime.label} log ---\n${nodeRed.output().trim().replace(/^/gm, '  | ')}`);
		}
		await sandbox.stop();
		if (userDir) await removeDir(userDir);
		timings.total = Date.now() - started;
	}
}

async function main(): Promise<void> {
	const checks = new Checks();
	const work = await makeTempDir('nr-e2e-');
	const allTimings: Array<[string, Record<string, number>]> = [];
	try {
		const prepared = Date.now();
		const runtimes = await checks.step('install or reuse the Node-RED 5, Node-RED 4 and Node 24 runtimes', () => loadRuntimes());
		const tarball = await checks.step('npm run build (packs the Node-RED package)', () => buildAndPack(work));
		console.log(`  prepared in ${Date.now() - prepared} ms`);
		if (!runtimes || !tarball) return checks.report();
		const node24 = path.join(runtimes.node24Bin, 'node');
		const under: RuntimeUnderTest[] = [
			{
				label: `Node-RED 5 on Node ${execFileSync(node24, ['--version']).toString().trim()}`,
				nodeBin: node24,
				nodeRedDir: runtimes.nodeRed5Dir,
			},
			{ label: `Node-RED 4 on Node ${process.version}`, nodeBin: process.execPath, nodeRedDir: runtimes.nodeRed4Dir },
		];
		for (const runtime of under) {
			console.log(`\n${runtime.label} (${runtime.nodeRedDir})`);
			const timings: Record<string, number> = {};
			const runtimeChecks = new Checks(`[${runtime.label.split(' on ')[0]}]`);
			try {
				await testRuntime(runtime, tarball, runtimeChecks, timings);
			} catch (error) {
				await runtimeChecks.check('runtime run completes', () => {
					throw error;
				});
			}
			checks.add(runtimeChecks);
			allTimings.push([runtime.label, timings]);
		}
	} finally {
		await removeDir(work);
	}
	console.log('\nTimings (ms):');
	for (const [label, timings] of allTimings) {
		console.log(
			`  ${label}: ${Object.entries(timings)
				.map(([name, ms]) => `${name} ${ms}`)
				.join(', ')}`,
		);
	}
	checks.report();
}

main().catch((error: unknown) => {
	console.error(error);
	console.log('0 passed, 1 failed');
	process.exitCode = 1;
});
