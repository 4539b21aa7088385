/**
 * Installed and updated the way users do it (`npm run test:e2e:registry`): from a registry, through each
 * editor's own installer.
 *
 * 1. A local registry (Verdaccio, registry.ts) on loopback; `node scripts/publish.mjs` — what `npm run release`
 *    runs — publishes every publishable package dist/packages.json lists to it.
 * 2. n8n 2.41.1 on Node 24 installs the n8n package through its community-package installer, the REST API its
 *    Settings > Community nodes page calls (POST /rest/community-packages), pointed at the registry with
 *    N8N_COMMUNITY_PACKAGES_REGISTRY (n8n's documented setting; a registry other than npm's is an Enterprise
 *    licence feature, switched on here with n8n's own end-to-end test mode, E2E_TESTS=true and
 *    PATCH /rest/e2e/feature). A saved workflow (Webhook -> the action node, version 1) sends a message, and a
 *    published workflow with the trigger receives inbound messages.
 * 3. Node-RED 5 (Node 24) and Node-RED 4 (Node 20) install the Node-RED package through the palette manager's
 *    admin API (POST /nodes {module, version}; npm reads the registry from the user dir's .npmrc), deploy the
 *    example flows on one config node (token in credentials) plus an event node that forwards every event to a
 *    receiver in this process, and run the "new customer" example.
 * 4. A second version of every package is published; both editors update in place through the same installers
 *    (n8n: PATCH /rest/community-packages; Node-RED: POST /nodes with the new version, then the restart its
 *    editor asks for) while inbound messages keep arriving: each one reaches the trigger / event node exactly
 *    once, the subscriptions stay the same, saved workflows, flows and credentials keep working, and the n8n node
 *    descriptions of the new version keep every parameter (name, type, default) of the old one.
 * 5. Uninstall: n8n after unpublishing the trigger's workflow (which deletes its subscription), Node-RED after
 *    deleting its nodes and deploying (which deletes theirs); then neither lists the package.
 *
 * Prints install and update times and ends with `N passed, N failed`.
 * Environment: E2E_SKIP_BUILD=1 uses the last `npm run build`; KEEP_E2E_DIR=1 keeps the work folder.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';
import { builtPackages, REPO_ROOT, type BuiltPackage } from '../../support/packages';
import { N8nInstance } from '../n8n/n8n-instance';
import {
	assert,
	assertEqual,
	Checks,
	deployFlows,
	freePort,
	HTTP_NODE_ROOT,
	installedExampleFlows,
	sleep,
	startNodeRed,
	waitFor,
	type NodeRedInstance,
} from '../node-red/e2e-support';
import { repackAsNextVersion, startRegistry, viewVersion, type LocalRegistry } from './registry';

type Json = Record<string, unknown>;

// npm run exports npm_config_* (the repository's .npmrc, its prefix) to children: the editors' own npm must not
// inherit them, or it would install into this repository.
process.env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_(config|package|lifecycle)_/i.test(key)));

const N8N_PACKAGE = '@chat-messaging/n8n-nodes-chat-messaging';
const NODE_RED_PACKAGE = '@chat-messaging/node-red-chat-messaging';
const TOKEN = `e2e_${randomBytes(16).toString('hex')}`;
const redact = (text: string) => text.split(TOKEN).join('<token>');
const checks = new Checks();
const timings: Array<[string, number]> = [];
/** What reached Node-RED's event node while it restarted after its update (measured, not asserted). */
const restartLoss: string[] = [];

async function timed<T>(label: string, body: () => Promise<T>): Promise<T> {
	const started = Date.now();
	const value = await body();
	timings.push([label, Date.now() - started]);
	return value;
}

/** Runs a setup step; on failure the run stops (what follows depends on it). */
async function required<T>(name: string, body: () => Promise<T>): Promise<T> {
	const value = await checks.step(name, body);
	if (value === undefined) throw new Error(`stopped: "${name}" failed`);
	return value;
}

// ---------------------------------------------------------------------------------------------
// The sandbox, seen through its public API with the token.

/**
 * One HTTP request on a connection of its own. fetch reuses kept-alive sockets, and one the server closed while
 * it sat idle (an editor busy installing, a publish) fails a POST or PATCH with ECONNRESET, which fetch does not
 * retry: the test could not tell whether it took effect.
 */
function freshRequest(
	method: string,
	url: string,
	headers: Record<string, string>,
	body?: unknown,
): Promise<{ status: number; text: string }> {
	const payload = body === undefined ? undefined : JSON.stringify(body);
	return new Promise((resolve, reject) => {
		const req = request(
			url,
			{
				method,
				agent: false,
				headers: {
					...headers,
					...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }),
				},
			},
			(res) => {
				let received = '';
				res.on('data', (chunk: Buffer) => (received += chunk.toString()));
				res.on('end', () => resolve({ status: res.statusCode ?? 0, text: received }));
			},
		);
		req.on('error', reject);
		req.end(payload);
	});
}

/** Like httpJson (e2e-support), on a connection of its own. */
async function freshJson<T = unknown>(
	method: string,
	url: string,
	body?: unknown,
	headers: Record<string, string> = {},
): Promise<{ status: number; body: T; text: string }> {
	const { status, text } = await freshRequest(method, url, headers, body);
	let parsed: unknown = text;
	try {
		parsed = JSON.parse(text);
	} catch {
		// not JSON; keep the text
	}
	return { status, body: parsed as T, text };
}

async function sandboxCall<T = Json>(sandbox: RunningSandbox, method: string, path: string, body?: unknown): Promise<T> {
	const { status, text } = await freshRequest(method, `${sandbox.url}${path}`, { authorization: `Bearer ${TOKEN}` }, body);
	if (status !== 200) throw new Error(`sandbox ${method} ${path} answered ${status}: ${redact(text)}`);
	return (JSON.parse(text) as { data: T }).data;
}

/** n8n's REST API with the owner's session, on a connection of its own; returns `data`. */
async function n8nRest<T = unknown>(n8n: N8nInstance, method: string, path: string, body?: unknown): Promise<T> {
	const { status, text } = await freshRequest(method, `${n8n.baseUrl}${path}`, { cookie: n8n.sessionCookie }, body);
	if (status !== 200) throw new Error(`${method} ${path} answered ${status}: ${redact(text).slice(0, 500)}`);
	return (JSON.parse(text) as { data: T }).data;
}

interface Subscription {
	id: number | string;
	url: string;
	event_type?: string;
	events?: string[];
}

async function subscriptions(sandbox: RunningSandbox): Promise<Subscription[]> {
	const data = await sandboxCall<Subscription[] | { webhooks: Subscription[] }>(sandbox, 'GET', '/webhooks');
	return Array.isArray(data) ? data : data.webhooks;
}
const described = (list: Subscription[]) =>
	list.map((hook) => `${String(hook.id)} ${hook.url.replace(/[0-9a-f]{16,}/g, '<secret>')}`).sort();

const incoming = (sandbox: RunningSandbox, phone: string, text: string) =>
	sandboxCall(sandbox, 'POST', '/_sandbox/incoming', { phone, text });

interface Sent {
	marker: string;
	/** When the sandbox had accepted it (the event was emitted by then). */
	at: number;
}

/**
 * Inbound messages sent one after another (about one a second) while `during` runs and for `afterMs` more,
 * each with a unique marker in its text.
 */
async function inboundDuring(
	sandbox: RunningSandbox,
	phone: string,
	tag: string,
	during: () => Promise<void>,
	afterMs = 2000,
): Promise<Sent[]> {
	const sent: Sent[] = [];
	let stop = false;
	const pump = (async () => {
		do {
			const marker = `${tag}-${String(sent.length).padStart(3, '0')}-end`;
			await incoming(sandbox, phone, `registry e2e ${marker}`);
			sent.push({ marker, at: Date.now() });
			await sleep(1000);
		} while (!stop);
	})();
	// A failing send ends the pump; its error is reported below, after `during` (never unhandled).
	pump.catch(() => undefined);
	try {
		await during();
		await sleep(afterMs);
	} finally {
		stop = true;
	}
	await pump;
	return sent;
}

/** Each marker's count among `seen` (a list of marker sets, one per execution / delivery): all must be 1. */
function exactlyOnce(sent: Sent[], seen: string[][]): string | undefined {
	const counts = new Map(sent.map(({ marker }) => [marker, 0]));
	for (const markers of seen) for (const marker of new Set(markers)) if (counts.has(marker)) counts.set(marker, counts.get(marker)! + 1);
	const wrong = [...counts].filter(([, count]) => count !== 1);
	return wrong.length ? wrong.map(([marker, count]) => `${marker}: ${count}`).join(', ') : undefined;
}
const markersIn = (text: string, tag: string) => [...text.matchAll(new RegExp(`${tag}-\\d{3}-end`, 'g'))].map((match) => match[0]);

// ---------------------------------------------------------------------------------------------
// n8n

interface InstalledPackage {
	packageName: string;
	installedVersion: string;
	installedNodes: Array<{ name: string; type: string; latestVersion: number }>;
}

/** Every parameter of our node types as n8n serves them to the editor (POST /rest/node-types), by type@version. */
async function n8nParameters(n8n: N8nInstance, nodes: InstalledPackage['installedNodes']): Promise<Map<string, string>> {
	const nodeInfos = nodes.flatMap((node) => Array.from({ length: node.latestVersion }, (_, i) => ({ name: node.type, version: i + 1 })));
	const descriptions = (await n8nRest(n8n, 'POST', '/rest/node-types', { nodeInfos })) as Array<{
		name: string;
		version: number | number[];
		properties: Array<{ name: string; type: string; default: unknown; displayOptions?: unknown }>;
	}>;
	const parameters = new Map<string, string>();
	for (const description of descriptions) {
		const versions = Array.isArray(description.version) ? description.version : [description.version];
		for (const version of versions)
			for (const property of description.properties)
				parameters.set(
					`${description.name}@${version} ${property.name} ${JSON.stringify(property.displayOptions ?? {})}`,
					`${property.type} ${JSON.stringify(property.default)}`,
				);
	}
	return parameters;
}

async function n8nRun(
	registry: LocalRegistry,
	sandbox: RunningSandbox,
	workDir: string,
	v1: string,
	v2: string,
	publishV2: () => Promise<void>,
) {
	console.log('\n== n8n 2.41.1 (Node 24): Settings > Community nodes');
	const env = runtimesOf('runtimes.sh');
	const userFolder = join(workDir, 'n8n-user');
	const logDir = join(workDir, 'n8n-logs');
	mkdirSync(userFolder, { recursive: true });
	mkdirSync(logDir, { recursive: true });
	// The registry n8n's installer uses (npm pack/install --registry=...); E2E_TESTS lets the test licence it.
	process.env.N8N_COMMUNITY_PACKAGES_REGISTRY = registry.url;
	process.env.E2E_TESTS = 'true';
	// Our package is not on n8n's vetted list; n8n warns that this default will change.
	process.env.N8N_UNVERIFIED_PACKAGES_ENABLED = 'true';
	const n8n = new N8nInstance(env.NODE24_BIN, env.N8N_BIN, userFolder, await freePort(), await freePort(), logDir);
	try {
		await required('n8n: started, owner and API key set up, custom registry licensed (n8n e2e mode)', async () => {
			await n8n.start();
			const feature = await freshJson('PATCH', `${n8n.baseUrl}/rest/e2e/feature`, {
				feature: 'feat:communityNodes:customRegistry',
				enabled: true,
			});
			assertEqual(feature.status, 200, `PATCH /rest/e2e/feature (${feature.text.slice(0, 200)})`);
			await n8n.setupOwnerAndApiKey();
			return true;
		});

		const installed = await required(`n8n: installs ${N8N_PACKAGE}@${v1} from the registry (POST /rest/community-packages)`, async () => {
			const result = (await timed('n8n install', () =>
				n8nRest(n8n, 'POST', '/rest/community-packages', { name: N8N_PACKAGE, version: v1 }),
			)) as InstalledPackage;
			assertEqual(result.installedVersion, v1, 'installed version');
			const types = result.installedNodes.map((node) => node.type).sort();
			assertEqual(
				types,
				['chatMessaging', 'chatMessagingMemory', 'chatMessagingPollTrigger', 'chatMessagingTrigger'].map(
					(name) => `${N8N_PACKAGE}.${name}`,
				),
				'installed node types',
			);
			const onDisk = JSON.parse(
				readFileSync(join(userFolder, '.n8n', 'nodes', 'node_modules', ...N8N_PACKAGE.split('/'), 'package.json'), 'utf8'),
			) as { version: string };
			assertEqual(onDisk.version, v1, 'version in the nodes folder');
			return result;
		});
		const parametersBefore = await n8nParameters(n8n, installed.installedNodes);
		const triggerVersion = installed.installedNodes.find((node) => node.type.endsWith('.chatMessagingTrigger'))!.latestVersion;

		const { phone } = await firstPhone(sandbox);
		const ids = await required('n8n: a credential and two workflows saved, both published', () =>
			saveAndPublishWorkflows(n8n, sandbox, triggerVersion),
		);

		const sendThroughWorkflow = async (text: string) => {
			const answer = await freshJson<Json>('POST', `${n8n.baseUrl}/webhook/registry-e2e-send`, { phone, text });
			assertEqual(answer.status, 200, `the send workflow answered (${redact(answer.text).slice(0, 300)})`);
			const uid = answer.body.message_uid;
			assert(typeof uid === 'string' && uid, `no message_uid in ${redact(answer.text).slice(0, 300)}`);
			const message = await sandboxCall<{ text: string }>(sandbox, 'GET', `/messages/${encodeURIComponent(uid)}`);
			assertEqual(message.text, text, 'text the sandbox holds');
		};
		const triggerMarkers = async (tag: string) => {
			const found: string[][] = [];
			let cursor: string | undefined;
			do {
				const page = await n8n.publicApi(
					'GET',
					`/executions?workflowId=${ids.trigger}&includeData=true&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
				);
				const body = page.body as { data: Json[]; nextCursor?: string | null };
				for (const execution of body.data) found.push(markersIn(JSON.stringify(execution.data ?? {}), tag));
				cursor = body.nextCursor ?? undefined;
			} while (cursor);
			return found;
		};

		await checks.check('n8n: the saved workflow sends with the installed action node and its credential', () =>
			sendThroughWorkflow(`registry e2e before update ${randomBytes(3).toString('hex')}`),
		);
		await checks.check('n8n: the published trigger runs once per inbound message', async () => {
			const sent = await inboundDuring(sandbox, phone, 'n8n-before', async () => undefined, 0);
			await waitFor('the executions', async () => (exactlyOnce(sent, await triggerMarkers('n8n-before')) ? undefined : true), {
				timeoutMs: 30_000,
			});
		});

		const hooksBefore = described(await subscriptions(sandbox));
		await publishV2();
		await required(`n8n: updates in place to ${v2} (PATCH /rest/community-packages) with no inbound message lost`, async () => {
			await updateN8nInPlace(n8n, sandbox, phone, v2, triggerMarkers);
			return true;
		});
		await checks.check('n8n: after the update the trigger keeps its subscription (same id and URL)', async () => {
			assertEqual(described(await subscriptions(sandbox)), hooksBefore, 'subscriptions');
		});
		await checks.check('n8n: after the update the saved workflow and its credential still send', () =>
			sendThroughWorkflow(`registry e2e after update ${randomBytes(3).toString('hex')}`),
		);
		await checks.check(
			`n8n: UI contract between ${v1} and ${v2}: every parameter of every node version kept (name, type, default)`,
			async () => {
				const after = await n8nParameters(n8n, installed.installedNodes);
				const changed = [...parametersBefore].filter(([key, value]) => after.get(key) !== value).map(([key]) => key);
				assert(parametersBefore.size > 20, `only ${parametersBefore.size} parameters read before the update`);
				assertEqual(changed, [], 'parameters missing or changed after the update');
			},
		);

		await checks.check(
			'n8n: uninstall — unpublishing the trigger deletes its subscription, then DELETE /rest/community-packages removes the package',
			async () => {
				const deactivated = await n8n.publicApi('POST', `/workflows/${ids.trigger}/deactivate`);
				assertEqual(deactivated.status, 200, 'deactivate');
				await waitFor('no subscription left', async () => ((await subscriptions(sandbox)).length === 0 ? true : undefined), {
					timeoutMs: 30_000,
				});
				await timed('n8n uninstall', () => n8nRest(n8n, 'DELETE', `/rest/community-packages?name=${encodeURIComponent(N8N_PACKAGE)}`));
				assertEqual(await n8nRest(n8n, 'GET', '/rest/community-packages'), [], 'installed packages after the uninstall');
			},
		);
	} finally {
		await n8n.stop();
		delete process.env.N8N_COMMUNITY_PACKAGES_REGISTRY;
		delete process.env.E2E_TESTS;
		delete process.env.N8N_UNVERIFIED_PACKAGES_ENABLED;
	}
}

/** A credential, a workflow that sends (Webhook → action node, version 1) and one the trigger starts, both published. */
async function saveAndPublishWorkflows(
	n8n: N8nInstance,
	sandbox: RunningSandbox,
	triggerVersion: number,
): Promise<{ send: string; trigger: string }> {
	const credential = (await n8nRest(n8n, 'POST', '/rest/credentials', {
		name: 'Chat Messaging sandbox',
		type: 'chatMessagingApi',
		data: { baseUrl: sandbox.url, apiToken: TOKEN },
	})) as { id: string; name: string };
	const credentials = { chatMessagingApi: { id: credential.id, name: credential.name } };
	const send = await saveWorkflow(n8n, 'Registry e2e: send', [
		{
			id: 'hook',
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId: '0b7a3c1e-5d2f-4e8a-9c6b-1f2e3d4c5b6a',
			parameters: { httpMethod: 'POST', path: 'registry-e2e-send', responseMode: 'lastNode', options: {} },
		},
		{
			id: 'send',
			name: 'Chat Messaging',
			type: `${N8N_PACKAGE}.chatMessaging`,
			typeVersion: 1,
			position: [220, 0],
			parameters: {
				resource: 'message',
				operation: 'sendToPhone',
				phone: '={{ $json.body.phone }}',
				text: '={{ $json.body.text }}',
				additionalFields: {},
			},
			credentials,
		},
	]);
	const trigger = await saveWorkflow(n8n, 'Registry e2e: inbound', [
		{
			id: 'trigger',
			name: 'Chat Messaging Trigger',
			type: `${N8N_PACKAGE}.chatMessagingTrigger`,
			typeVersion: triggerVersion,
			position: [0, 0],
			webhookId: '7c1d9e2a-3b4f-4a6e-8d0c-2e5f7a9b1c3d',
			parameters: { events: ['message:received:new'] },
			credentials,
		},
	]);
	for (const id of [send, trigger]) {
		const activated = await n8n.publicApi('POST', `/workflows/${id}/activate`);
		assertEqual(activated.status, 200, `activating ${id} (${JSON.stringify(activated.body).slice(0, 300)})`);
	}
	await waitFor('the trigger subscription', async () => ((await subscriptions(sandbox)).length === 1 ? true : undefined), {
		timeoutMs: 30_000,
	});
	return { send, trigger };
}

/** Updates the installed package to `v2` while inbound messages arrive: each must start exactly one execution. */
async function updateN8nInPlace(
	n8n: N8nInstance,
	sandbox: RunningSandbox,
	phone: string,
	v2: string,
	triggerMarkers: (tag: string) => Promise<string[][]>,
): Promise<void> {
	const sent = await inboundDuring(sandbox, phone, 'n8n-update', async () => {
		const updated = (await timed('n8n update', () =>
			n8nRest(n8n, 'PATCH', '/rest/community-packages', { name: N8N_PACKAGE, version: v2 }),
		)) as InstalledPackage;
		assertEqual(updated.installedVersion, v2, 'installed version after the update');
	});
	const missing = await waitFor(
		'every inbound message in an execution',
		async () => (exactlyOnce(sent, await triggerMarkers('n8n-update')) ? undefined : 'none'),
		{ timeoutMs: 60_000 },
	).catch(async (error: Error) => `${error.message}: ${exactlyOnce(sent, await triggerMarkers('n8n-update'))}`);
	assertEqual(missing, 'none', `${sent.length} inbound messages during the update, each in exactly one execution`);
	const listed = (await n8nRest(n8n, 'GET', '/rest/community-packages')) as InstalledPackage[];
	assertEqual(
		listed.map((pkg) => `${pkg.packageName}@${pkg.installedVersion}`),
		[`${N8N_PACKAGE}@${v2}`],
		'installed packages',
	);
}

async function saveWorkflow(n8n: N8nInstance, name: string, nodes: Json[]): Promise<string> {
	const connections: Record<string, unknown> = {};
	for (let i = 0; i + 1 < nodes.length; i++)
		connections[String(nodes[i].name)] = { main: [[{ node: String(nodes[i + 1].name), type: 'main', index: 0 }]] };
	const saved = (await n8nRest(n8n, 'POST', '/rest/workflows', {
		name,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
		active: false,
	})) as {
		id: string;
	};
	return saved.id;
}

async function firstPhone(sandbox: RunningSandbox): Promise<{ phone: string }> {
	const { chats } = await sandboxCall<{ chats: Array<{ phone?: string; is_group?: boolean }> }>(sandbox, 'GET', '/chats?page=1');
	const chat = chats.find((candidate) => !candidate.is_group && candidate.phone);
	assert(chat?.phone, 'the sandbox has no direct chat with a phone');
	return { phone: chat.phone };
}

// ---------------------------------------------------------------------------------------------
// Node-RED

const TAB = 'registry-e2e';
const CONFIG_ID = 'registry-e2e-config';

/** Every delivery the flows' forwarding node posts, as the text of its body. */
function startReceiver(): Promise<{ url: string; bodies: string[]; server: Server }> {
	const bodies: string[] = [];
	const server = createServer((request, response) => {
		let body = '';
		request.on('data', (chunk: Buffer) => (body += chunk.toString()));
		request.on('end', () => {
			bodies.push(body);
			response.writeHead(200).end('ok');
		});
	});
	return new Promise((resolve) =>
		server.listen(0, '127.0.0.1', () =>
			resolve({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}/received`, bodies, server }),
		),
	);
}

async function nodeRedModule(red: NodeRedInstance): Promise<{ name: string; version: string; pending_version?: string } | undefined> {
	const response = await freshJson<{ name: string; version: string; pending_version?: string }>(
		'GET',
		`${red.url}/nodes/${NODE_RED_PACKAGE}`,
		undefined,
		{ Accept: 'application/json' },
	);
	return response.status === 200 ? response.body : undefined;
}

/** A Node-RED user dir whose palette manager installs from the registry, on `port`. */
function writeUserDir(userDir: string, registry: LocalRegistry, port: number): void {
	mkdirSync(userDir, { recursive: true });
	writeFileSync(join(userDir, 'package.json'), JSON.stringify({ name: 'node-red-project', private: true, dependencies: {} }, null, 2));
	// The palette manager runs npm in the user dir: npm reads the registry from the user dir's .npmrc.
	writeFileSync(join(userDir, '.npmrc'), `registry=${registry.url}/\n`);
	const settings = {
		flowFile: 'flows.json',
		credentialSecret: 'registry-e2e-credential-secret',
		uiHost: '127.0.0.1',
		uiPort: port,
		httpNodeRoot: HTTP_NODE_ROOT,
		logging: { console: { level: 'warn', metrics: false, audit: false } },
		diagnostics: { enabled: false, ui: false },
		telemetry: { enabled: false },
		editorTheme: { tours: false, projects: { enabled: false } },
		// The palette manager's defaults, spelled out: installs and updates through the admin API are allowed.
		externalModules: { palette: { allowInstall: true, allowUpdate: true, allowUpload: false } },
	};
	writeFileSync(join(userDir, 'settings.js'), `module.exports = ${JSON.stringify(settings, null, 2)};\n`);
}

/** The test's own flow: an event node on the config node (with the token), forwarding each event to `receiverUrl`. */
function registryFlows(sandboxUrl: string, publicUrl: string, receiverUrl: string): Json[] {
	return [
		{ id: TAB, type: 'tab', label: 'registry e2e' },
		{
			id: CONFIG_ID,
			type: 'chat-messaging-config',
			name: 'sandbox',
			baseUrl: sandboxUrl,
			publicUrl,
			credentials: { token: TOKEN },
		},
		{
			id: 'registry-e2e-events',
			z: TAB,
			type: 'chat-messaging-event',
			name: 'every inbound message',
			config: CONFIG_ID,
			events: ['message:received:new'],
			wires: [['registry-e2e-forward']],
		},
		{ id: 'registry-e2e-forward', z: TAB, type: 'http request', method: 'POST', ret: 'txt', url: receiverUrl, wires: [[]] },
	];
}

/** The example flows at work: a new customer's chat is labelled "new", assigned to a teammate and answered. */
async function examplesAnswerNewCustomer(sandbox: RunningSandbox, stage: string): Promise<void> {
	const { teammates } = await sandboxCall<{ teammates: Json[] }>(sandbox, 'GET', '/workspace/teammates');
	const teammate = teammates.find((member) => member.status === 'active')?.email;
	const customer = '+4915166' + String(Date.now() % 1_000_000).padStart(6, '0');
	const incoming = await sandboxCall<Json>(sandbox, 'POST', '/_sandbox/incoming', { phone: customer, text: `Hello (${stage})` });
	assertEqual(incoming.chat_created, true, 'a new chat');
	await waitFor(
		'the label "new", the teammate and the auto-reply',
		async () => {
			const chat = await sandboxCall<Json>(sandbox, 'GET', `/chats/${String(incoming.chat_id)}`);
			const { messages } = await sandboxCall<{ messages: Json[] }>(sandbox, 'GET', `/chats/${String(incoming.chat_id)}/messages`);
			const replied = messages.some((message) => message.from_me === true);
			return (chat.labels as string[]).includes('new') && chat.responsible_email === teammate && replied ? true : undefined;
		},
		{ timeoutMs: 30_000 },
	);
}

async function nodeRedRun(
	label: string,
	nodeBin: string,
	nodeRedDir: string,
	registry: LocalRegistry,
	sandbox: RunningSandbox,
	workDir: string,
	v1: string,
	v2: string,
) {
	console.log(`\n== ${label}: palette manager`);
	const userDir = join(workDir, `node-red-${label.replace(/\W+/g, '-')}`);
	const port = await freePort();
	writeUserDir(userDir, registry, port);
	// Node-RED's npm is the one next to the Node it runs on.
	const start = () => startNodeRed({ nodeBin, nodeRedDir, userDir, port, env: { PATH: `${dirname(nodeBin)}:${process.env.PATH ?? ''}` } });
	const receiver = await startReceiver();
	let red: NodeRedInstance | undefined;
	try {
		red = await required(`${label}: started with an empty palette`, async () => {
			const started = await start();
			assertEqual(await nodeRedModule(started), undefined, 'our module before the install');
			return started;
		});
		await required(`${label}: installs ${NODE_RED_PACKAGE}@${v1} from the registry (POST /nodes)`, async () => {
			const answer = await timed(`${label} install`, () =>
				freshJson<Json>('POST', `${red!.url}/nodes`, { module: NODE_RED_PACKAGE, version: v1 }),
			);
			assertEqual(answer.status, 200, `POST /nodes (${answer.text.slice(0, 300)})`);
			const installed = await nodeRedModule(red!);
			assertEqual(installed?.version, v1, 'installed version');
			return true;
		});

		const { phone } = await firstPhone(sandbox);
		const examples = await installedExampleFlows(userDir, CONFIG_ID);
		const allFlows = [...registryFlows(sandbox.url, red.url, receiver.url), ...Object.values(examples).flat()];
		// Event nodes in webhook mode subscribe, one subscription per event type; one in polling mode (the AI responder's) none.
		const eventTypes = allFlows
			.filter((node) => node.type === 'chat-messaging-event' && node.mode !== 'polling')
			.flatMap((node) => node.events as string[]);
		await required(`${label}: the example flows and an event node deploy on one config node; their event nodes subscribe`, async () => {
			assert(Object.keys(examples).length >= 4, `examples: ${Object.keys(examples).join(', ')}`);
			await deployFlows(red!.url, allFlows);
			await waitFor('the subscriptions', async () => ((await subscriptions(sandbox)).length === eventTypes.length ? true : undefined), {
				timeoutMs: 30_000,
			});
			return true;
		});
		const newCustomer = (stage: string) => examplesAnswerNewCustomer(sandbox, stage);
		await checks.check(`${label}: the examples run: a new customer is labelled, assigned and answered`, () => newCustomer('before update'));
		await checks.check(`${label}: the event node forwards each inbound message once`, async () => {
			const sent = await inboundDuring(sandbox, phone, 'nr-before', async () => undefined, 0);
			await waitFor(
				'the deliveries',
				async () =>
					exactlyOnce(
						sent,
						receiver.bodies.map((body) => markersIn(body, 'nr-before')),
					)
						? undefined
						: true,
				{ timeoutMs: 30_000 },
			);
		});

		const hooksBefore = described(await subscriptions(sandbox));
		await required(`${label}: updates in place to ${v2} (POST /nodes, then the restart it asks for)`, async () => {
			let down = { from: 0, to: 0 };
			const sent = await inboundDuring(sandbox, phone, 'nr-update', async () => {
				const answer = await timed(`${label} update (npm)`, () =>
					freshJson<Json>('POST', `${red!.url}/nodes`, { module: NODE_RED_PACKAGE, version: v2 }),
				);
				assertEqual(answer.status, 200, `POST /nodes (${answer.text.slice(0, 300)})`);
				// Node-RED cannot unload a module's code: the new version runs from the next start, as the editor says.
				const running = await nodeRedModule(red!);
				assert(running?.pending_version === v2 || running?.version === v2, `module after the update: ${JSON.stringify(running)}`);
				down = { from: Date.now(), to: 0 };
				await timed(`${label} restart after the update`, async () => {
					await red!.stop();
					red = await start();
				});
				down.to = Date.now();
			});
			assertEqual((await nodeRedModule(red!))?.version, v2, 'version running after the restart');
			// While Node-RED runs (the npm install of the update, and after the restart) nothing may be lost. While it
			// is stopped, the service's three attempts (the sandbox's 1 s apart) may all fail: the event node reads
			// what it missed when it starts again, so these too arrive, each once.
			const running = sent.filter(({ at }) => at < down.from || at > down.to);
			const stopped = sent.filter(({ at }) => at >= down.from && at <= down.to);
			const seen = () => receiver.bodies.map((body) => markersIn(body, 'nr-update'));
			const result = await waitFor('every inbound message forwarded', async () => (exactlyOnce(running, seen()) ? undefined : 'none'), {
				timeoutMs: 60_000,
			}).catch((error: Error) => `${error.message}: ${exactlyOnce(running, seen())}`);
			assertEqual(result, 'none', `${running.length} inbound messages while Node-RED ran, each forwarded exactly once`);
			const counts = stopped.map(({ marker }) => seen().filter((markers) => markers.includes(marker)).length);
			restartLoss.push(
				`${label}: restart ${((down.to - down.from) / 1000).toFixed(1)} s, ${stopped.length} inbound messages meanwhile, ${counts.filter((count) => count === 1).length} forwarded (retries or catch-up), ${counts.filter((count) => count === 0).length} lost, ${counts.filter((count) => count > 1).length} twice`,
			);
			assert(
				counts.every((count) => count === 1),
				`messages sent during the restart forwarded ${JSON.stringify(counts)} times (each once expected)`,
			);
			return true;
		});
		await checks.check(`${label}: after the update the event nodes keep their subscriptions (same ids and URLs)`, async () => {
			assertEqual(described(await subscriptions(sandbox)), hooksBefore, 'subscriptions');
		});
		await checks.check(
			`${label}: after the update the flows and the stored token still work (the examples answer a new customer)`,
			async () => {
				const flows = (await freshJson<{ flows: Json[] }>('GET', `${red!.url}/flows`, undefined, { 'Node-RED-API-Version': 'v2' })).body
					.flows;
				assert(
					flows.some((node) => node.id === 'registry-e2e-events'),
					'the deployed flows are gone',
				);
				assert(!readFileSync(join(userDir, 'flows.json'), 'utf8').includes(TOKEN), 'the token is in flows.json');
				await newCustomer('after update');
			},
		);
		await checks.check(
			`${label}: uninstall — deleting the nodes and deploying deletes their subscriptions, then DELETE /nodes removes the package`,
			async () => {
				const refused = await freshJson('DELETE', `${red!.url}/nodes/${NODE_RED_PACKAGE}`);
				assert(refused.status >= 400, `DELETE /nodes while the nodes are in use answered ${refused.status}`);
				await deployFlows(red!.url, []);
				await waitFor('no subscription left', async () => ((await subscriptions(sandbox)).length === 0 ? true : undefined), {
					timeoutMs: 30_000,
				});
				const removed = await timed(`${label} uninstall`, () => freshJson('DELETE', `${red!.url}/nodes/${NODE_RED_PACKAGE}`));
				assertEqual(removed.status, 204, `DELETE /nodes (${removed.text.slice(0, 200)})`);
				assertEqual(await nodeRedModule(red!), undefined, 'our module after the uninstall');
			},
		);
	} finally {
		await red?.stop();
		receiver.server.close();
	}
}

// ---------------------------------------------------------------------------------------------

function runtimesOf(script: string, env: NodeJS.ProcessEnv = {}): Record<string, string> {
	const out = execFileSync('bash', [join(REPO_ROOT, 'test', 'e2e', script)], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'inherit'],
		env: { ...process.env, ...env },
	});
	return Object.fromEntries([...out.matchAll(/^(\w+)='([^']*)'$/gm)].map((match) => [match[1], match[2]]));
}

async function main() {
	const workDir = mkdtempSync(join(tmpdir(), 'registry-e2e-'));
	let registry: LocalRegistry | undefined;
	let sandbox: RunningSandbox | undefined;
	let failedHard = false;
	try {
		if (process.env.E2E_SKIP_BUILD !== '1') {
			console.log('building ...');
			execFileSync('npm', ['run', 'build'], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
		}
		const publishable = builtPackages().filter((pkg) => !pkg.private);
		const n8nRuntimes = runtimesOf('runtimes.sh', { WITH_VERDACCIO: '1' });
		const nodeRedRuntimes = runtimesOf('node-red-runtimes.sh');
		const { VERDACCIO_BIN } = n8nRuntimes;
		assert(
			n8nRuntimes.N8N_BIN && nodeRedRuntimes.NODE_RED5_DIR && nodeRedRuntimes.NODE_RED4_DIR && VERDACCIO_BIN,
			'the runtime scripts printed no runtimes',
		);

		registry = await required(
			'registry: Verdaccio on loopback; npm run release publishes every package dist/packages.json lists',
			async () => {
				const started = await startRegistry(workDir, join(n8nRuntimes.NODE24_BIN, 'node'), VERDACCIO_BIN);
				const output = execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'publish.mjs')], {
					cwd: REPO_ROOT,
					env: started.npmEnv,
					encoding: 'utf8',
					stdio: ['ignore', 'pipe', 'pipe'],
				});
				assert(output.includes(`published ${publishable.length} package(s)`), `publish said:\n${output}`);
				for (const pkg of publishable) assertEqual(viewVersion(started, pkg.name, pkg.version), pkg.version, `${pkg.name} in the registry`);
				// Publishing again skips what the registry holds: a rerun of the release workflow publishes nothing twice.
				const again = execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'publish.mjs')], {
					cwd: REPO_ROOT,
					env: started.npmEnv,
					encoding: 'utf8',
				});
				assert(again.includes('published 0 package(s)'), `the second publish said:\n${again}`);
				return started;
			},
		);
		for (const pkg of publishable) console.log(`  published ${pkg.name}@${pkg.version}: ${(pkg.files ?? []).join(', ')}`);

		const byName = (name: string) => publishable.find((pkg) => pkg.name === name) as BuiltPackage;
		const v1 = byName(N8N_PACKAGE).version;
		const nrV1 = byName(NODE_RED_PACKAGE).version;
		let v2 = '';
		let nrV2 = '';
		let published2 = false;
		/** The second version of every package, published once (before the first update needs it). */
		const publishV2 = async () => {
			if (published2) return;
			await required('registry: a second version of every package is published', async () => {
				for (const pkg of publishable) {
					const next = repackAsNextVersion(join(REPO_ROOT, pkg.tarball!), workDir);
					execFileSync('npm', ['publish', next.tarball, '--access', 'public'], {
						env: registry!.npmEnv,
						stdio: ['ignore', 'ignore', 'pipe'],
					});
					assertEqual(viewVersion(registry!, pkg.name, next.version), next.version, `${pkg.name} in the registry`);
					if (pkg.name === N8N_PACKAGE) v2 = next.version;
					if (pkg.name === NODE_RED_PACKAGE) nrV2 = next.version;
				}
				return true;
			});
			published2 = true;
		};
		// The next versions are known before they are published (the next patch).
		const nextPatch = (version: string) => version.replace(/^(\d+)\.(\d+)\.(\d+).*$/, (_, a, b, c) => `${a}.${b}.${Number(c) + 1}`);
		v2 = nextPatch(v1);
		nrV2 = nextPatch(nrV1);

		sandbox = await required('sandbox: started', () =>
			startSandbox({ tokens: [TOKEN], seed: 11, chats: 20, paceMs: 50, deliveredAfterMs: 200, readAfterMs: 400 }),
		);

		const sections: Array<[string, () => Promise<void>]> = [
			['n8n', () => n8nRun(registry!, sandbox!, workDir, v1, v2, publishV2)],
			[
				'Node-RED 5',
				async () => {
					await publishV2();
					await nodeRedRun(
						'Node-RED 5 (Node 24)',
						join(nodeRedRuntimes.NODE24_BIN, 'node'),
						nodeRedRuntimes.NODE_RED5_DIR,
						registry!,
						sandbox!,
						workDir,
						nrV1,
						nrV2,
					);
				},
			],
			[
				'Node-RED 4',
				() => nodeRedRun('Node-RED 4 (Node 20)', process.execPath, nodeRedRuntimes.NODE_RED4_DIR, registry!, sandbox!, workDir, nrV1, nrV2),
			],
		];
		// REGISTRY_E2E_ONLY=n8n,Node-RED 5 runs only those sections (while working on one).
		const only = process.env.REGISTRY_E2E_ONLY?.split(',').map((name) => name.trim());
		for (const [name, section] of sections) {
			if (only && !only.includes(name)) continue;
			try {
				// Each editor starts from the seeded workspace with no subscription (whatever an earlier one left).
				await sandboxCall(sandbox, 'POST', '/_sandbox/reset', {});
				await section();
			} catch (error) {
				console.log(`  ${name} stopped: ${redact(error instanceof Error ? error.message : String(error))}`);
				if (!(error instanceof Error && error.message.startsWith('stopped:'))) checks.failed++;
			}
		}
	} catch (error) {
		// A failed required step is counted already.
		failedHard = !(error instanceof Error && error.message.startsWith('stopped:'));
		console.log(`stopped: ${redact(error instanceof Error ? (error.stack ?? error.message) : String(error))}`);
	} finally {
		await sandbox?.stop();
		await registry?.stop();
		if (process.env.KEEP_E2E_DIR === '1') console.log(`work folder kept: ${workDir}`);
		else rmSync(workDir, { recursive: true, force: true });
	}
	console.log('\nTimes (this machine, this run):');
	for (const [label, ms] of timings) console.log(`  ${label.padEnd(40)} ${(ms / 1000).toFixed(1)} s`);
	for (const line of restartLoss) console.log(`  ${line}`);
	if (failedHard) checks.failed++;
	checks.report();
}

void main();
