/**
 * What the Node-RED end-to-end cases (runtime-*-cases.ts, run by e2e.ts for each runtime) share: the flows they
 * deploy (the base flow, the event, polling and restart nodes), the test's own view of the sandbox, the msgs the
 * flows collected, the adminAuth set-up and its checks, and the state of one runtime's run.
 */
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningSandbox, SandboxOptions } from '@chat-messaging/sandbox';
import { HTTP_NODE_ROOT, Checks, assert, assertEqual, httpJson, sleep, waitFor, type NodeRedInstance } from './e2e-support';

export type Json = Record<string, unknown>;
export type Flow = Json[];

export interface RuntimeUnderTest {
	label: string;
	nodeBin: string;
	nodeRedDir: string;
}

export const TAB = 'e2e-tab';
export const CONFIG_ID = 'e2e-config';
export const EVENT_NODE_ID = 'e2e-events';
export const SUBSCRIBED_EVENTS = ['message:received:new', 'message:sent:new'];
export const STATUS_RANK: Record<string, number> = { queued: 0, sent: 1, delivered: 2, read: 3 };

/** Stores msg.payload (and msg.parts / msg.topic) under `key` in global context, for GET /api/collected. */
export const collector = (id: string, key: string): Json => ({
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

export function baseFlow(sandboxUrl: string, publicUrl: string, token: string): Flow {
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

export const POLL_NODE_ID = 'e2e-poll';

/** An event node in polling mode (no public URL, no subscription) with burst batching, collecting under `polled`. */
export const pollingNodes = (pollSeconds: number): Flow => [
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

export const eventNodes = (): Flow => [
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

export const RESTART_NODE_ID = 'e2e-restart-events';

/** An event node in webhook mode whose collector keeps what it got in the context store on disk, across restarts. */
export const restartNodes = (): Flow => [
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
export const STOP_SECONDS = (process.env.CHAT_MESSAGING_E2E_STOP_SECONDS ?? '10')
	.split(',')
	.map(Number)
	.filter((seconds) => Number.isFinite(seconds) && seconds > 0);
/** Messages keep arriving this far apart before, during and after a stop. */
export const SEND_EVERY_MS = 800;

/** The sandbox the Node-RED end-to-end runs start (with their token). */
export const E2E_SANDBOX: Partial<SandboxOptions> = {
	seed: 11,
	chats: 60,
	paceMs: 50,
	deliveredAfterMs: 300,
	readAfterMs: 600_000,
	webhookRetryMs: 200,
};

/** The public API of the sandbox, as the test's own independent view of what happened. */
export class SandboxView {
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

export async function collected(nodeRed: NodeRedInstance): Promise<Record<string, Json[]>> {
	const response = await httpJson<Record<string, Json[]>>('GET', `${nodeRed.url}${HTTP_NODE_ROOT}/collected`);
	if (response.status !== 200) throw new Error(`GET /collected answered ${response.status}: ${response.text}`);
	return response.body;
}

export const eventsOf = async (nodeRed: NodeRedInstance, eventType: string, match: (payload: Json) => boolean): Promise<Json[]> =>
	((await collected(nodeRed)).events ?? [])
		.map((entry) => entry.payload as Json)
		.filter((payload) => payload.event_type === eventType && match(payload));

export const READER = { username: 'reader', password: 'reader-password-e2e', permissions: 'read' };
export const ADMIN = { username: 'admin', password: 'admin-password-e2e', permissions: '*' };

/** A settings file next to settings.js: the same settings, with adminAuth (two users) and both roots at "/". */
export async function writeAdminAuthSettings(userDir: string, nodeRedDir: string): Promise<string> {
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
export async function startRecordingListener(): Promise<{ url: string; calls: string[]; close(): Promise<void> }> {
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

export async function adminToken(url: string, user: typeof READER): Promise<string> {
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
export async function adminAuthChecks(red: NodeRedInstance, view: SandboxView, checks: Checks): Promise<void> {
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

/** One runtime's run: what its cases share, and what one case leaves for the next. */
export interface RuntimeRun {
	runtime: RuntimeUnderTest;
	token: string;
	sandbox: RunningSandbox;
	view: SandboxView;
	/** The user dir (flows.json, flows_cred.json, the files the examples write). */
	dir: string;
	/** The Node-RED running now (a case that restarts it sets the new one; undefined while stopped). */
	nodeRed: NodeRedInstance | undefined;
	/** The first Node-RED's address (publicUrl of the config node); a restart keeps its port. */
	publicUrl: string;
	/** The base flow with the webhook event node. */
	fullFlow: Flow;
	/** The phone number the send case sends to (its chat then takes inbound messages). */
	phone: string;
	messageUid: string;
	/** The example flows as deployed (the send example's output tapped), once their deploy succeeded. */
	examples?: Record<string, Flow>;
	/** Times each step, into the runtime's timings. */
	phase<T>(name: string, body: () => Promise<T>): Promise<T>;
}

/** One check of a runtime's run. */
export interface RuntimeCase {
	name: string;
	/** What it needs from the cases before it (it is left out otherwise). */
	when?: (r: RuntimeRun) => boolean;
	/** When it fails, no case after it runs (what follows needs it). */
	stopsRunOnFailure?: boolean;
	run(r: RuntimeRun): Promise<void>;
}

/** The Node-RED running now; a case that needs it fails when a restart before it did not come back. */
export function running(r: RuntimeRun): NodeRedInstance {
	assert(r.nodeRed, 'Node-RED is not running');
	return r.nodeRed;
}
