/**
 * n8n's scale-out engine with the package inside (`npm run test:e2e:queue`): queue mode with
 * PostgreSQL and Redis (Debian's packages, on loopback), one main, two workers and two webhook
 * processes of the real n8n 2.41.1 on Node 24, sharing one encryption key; the package installed as a
 * community node from its packed tarball, as test/e2e/n8n does.
 *
 * - Inbound events, each delivered twice (same body, same redelivery key), executions counted per event
 *   through n8n's public API: 50 with both copies to the same webhook process (exactly one execution
 *   each is required); 200 through alternating webhook processes, the second copy after the first was
 *   answered; 50 with both copies at the same moment. For the last two no event may be lost and the
 *   executions per event are reported, as are the events that passed the workflow's Remove Duplicates
 *   node twice (docs/queue-mode.md): a trigger's memory does not cross processes.
 * - Sends, against a sandbox limited to 30 requests a second, the answers counted by a proxy in front of
 *   it: a webhook-started workflow called 10 times at once with 100 items each, executed by both workers
 *   (per-worker counts from their logs), then once with 1,000 items (one worker, one pacer). Every
 *   message must be stored exactly once.
 *
 * Ports are chosen free (two runs on one machine do not meet): the proxy and the relay bind port 0; PostgreSQL,
 * Redis and each n8n process (its HTTP port and its task broker's) are started on ports chosen free, and again on
 * others when one was taken between the choosing and the binding.
 * Ends with `N passed, N failed`; exits 1 on any failure, printing the end of every process's log. Every
 * process is stopped, and only then its work folder removed, at the end, even on failure; KEEP_E2E_DIR=1 keeps the
 * folder (logs, database); E2E_SKIP_BUILD=1 packs the existing dist/.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { tmpdir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { startSandbox } from '@chat-messaging/sandbox';
import { assert, CheckRun } from '../n8n/checks';
import { freePort, N8nInstance, installCommunityPackage, n8nRuntimes, packN8nPackage } from '../n8n/n8n-instance';
import { CREDENTIAL_ID, PACKAGE_NAME, TRIGGER_NODE_TYPE, ACTION_NODE_TYPE, CREDENTIAL_TYPE, credentialExport } from '../n8n/workflows';
import { runSendAndWaitCases } from '../n8n/send-and-wait-cases';
import { runBurstCases } from './burst-cases';
import { killAllServicesNow, onFreePorts, psqlQuery, Service, startPostgres, startRedis, stopAllServices } from './services';
import { sleep, waitFor } from '../../support/harness';

const ROOT = resolve(__dirname, '../../..');
const EVENTS_SAME_PROCESS = 50;
const EVENTS_IN_TURN = 200;
const EVENTS_AT_ONCE = 50;
const SEND_EXECUTIONS = 10;
const SENDS_PER_EXECUTION = 100;
const WORKER_CONCURRENCY = 5;
const RATE_LIMIT = 30;
const TRIGGER_WORKFLOW_ID = 'queueTriggerIn01';
const SEND_WORKFLOW_ID = 'queueSendMany001';
const TRIGGER_WEBHOOK_ID = '7d2b0f5e-4c1a-4f7e-9a55-2e8c1b6d9f30';
const SEND_WEBHOOK_PATH = 'queue-send-batch';
const CREDENTIAL_NAME = 'Chat Messaging sandbox';

const TOKEN = `queue_${randomBytes(16).toString('hex')}`;
const redact = (text: string) => text.split(TOKEN).join('<token>');

// Checks, each timed and counted (test/e2e/n8n/checks.ts).
const run = new CheckRun(redact);
const { check } = run;
/** Figures for the closing note (printed as one JSON line at the end). */
const figures: Record<string, unknown> = {};

// ---------------------------------------------------------------------------------------------
// The sandbox behind a counting proxy (n8n's credential points at the proxy), and a relay that
// takes the sandbox's webhook deliveries so that the run decides where and how often each goes.

interface Counted {
	/** `METHOD /path` (no query) → status → count. */
	statuses: Map<string, Map<number, number>>;
	/** Every POST: when it arrived and when its answer came (epoch ms), and the answer's status. */
	posts: Array<{ at: number; answeredAt: number; status: number }>;
}

/** Listening on 127.0.0.1 at a port the system picks (nothing can take it between choosing and binding); that port. */
function listenOnLoopback(server: Server): Promise<number> {
	return new Promise((done, fail) => {
		server.once('error', fail);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			if (address && typeof address === 'object') done(address.port);
			else fail(new Error('no port'));
		});
	});
}

function startCountingProxy(target: string): Promise<{ server: Server; counted: Counted; port: number }> {
	const counted: Counted = { statuses: new Map(), posts: [] };
	const base = new URL(target);
	const server = createServer((req, res) => {
		const at = Date.now();
		const upstream = httpRequest(
			{ host: base.hostname, port: base.port, method: req.method, path: req.url, headers: { ...req.headers, host: base.host } },
			(answer) => {
				const key = `${req.method} ${(req.url ?? '').split('?')[0]}`;
				const byStatus = counted.statuses.get(key) ?? new Map<number, number>();
				byStatus.set(answer.statusCode ?? 0, (byStatus.get(answer.statusCode ?? 0) ?? 0) + 1);
				counted.statuses.set(key, byStatus);
				if (req.method === 'POST') counted.posts.push({ at, answeredAt: Date.now(), status: answer.statusCode ?? 0 });
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			},
		);
		upstream.on('error', () => {
			res.writeHead(502);
			res.end();
		});
		req.pipe(upstream);
	});
	return listenOnLoopback(server).then((port) => ({ server, counted, port }));
}

interface Delivery {
	/** Path and query as the sandbox called them (the query holds the trigger's secret). */
	pathAndQuery: string;
	body: string;
	uid: string;
}

function readBody(req: IncomingMessage): Promise<string> {
	return new Promise((done, fail) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
		req.on('error', fail);
	});
}

/** What the relay does besides recording: the run's hook for each delivery, and the webhook processes it passes resume calls to. */
export interface RelayRoutes {
	onDelivery?: (delivery: Delivery) => void;
	webhookPorts: () => readonly number[];
}

/**
 * The relay stands where a load balancer would: n8n's public address (WEBHOOK_URL). The service's deliveries are
 * recorded for the run to hand on; n8n's own calls of an execution's resume URL (`/webhook-waiting/…`) are passed to
 * the webhook processes in turn, as a load balancer passes them.
 */
function startRelay(routes: RelayRoutes): Promise<{ server: Server; deliveries: Delivery[]; port: number }> {
	const deliveries: Delivery[] = [];
	let resumeCalls = 0;
	const server = createServer((req, res) => {
		const ports = routes.webhookPorts();
		if (req.url?.startsWith('/webhook-waiting/') && ports.length) {
			const upstream = httpRequest(
				{ host: '127.0.0.1', port: ports[resumeCalls++ % ports.length], method: req.method, path: req.url, headers: req.headers },
				(answer) => {
					res.writeHead(answer.statusCode ?? 502, answer.headers);
					answer.pipe(res);
				},
			);
			upstream.on('error', () => {
				res.writeHead(502);
				res.end();
			});
			req.pipe(upstream);
			return;
		}
		void readBody(req).then((body) => {
			let uid = '';
			try {
				const parsed = JSON.parse(body) as { data?: { message_uid?: string }; message?: { message_uid?: string; uid?: string } };
				uid = parsed.data?.message_uid ?? parsed.message?.message_uid ?? parsed.message?.uid ?? '';
			} catch {
				// kept with an empty uid: the check below names it
			}
			const delivery = { pathAndQuery: req.url ?? '', body, uid };
			deliveries.push(delivery);
			routes.onDelivery?.(delivery);
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end('{"status":"ok"}');
		});
	});
	return listenOnLoopback(server).then((port) => ({ server, deliveries, port }));
}

/** One delivery to one webhook process; its HTTP status. */
async function deliver(delivery: Delivery, webhookPort: number): Promise<number> {
	const response = await fetch(`http://127.0.0.1:${webhookPort}${delivery.pathAndQuery}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: delivery.body,
	});
	await response.text();
	return response.status;
}

// ---------------------------------------------------------------------------------------------
// Workflows.

function triggerWorkflow(triggerVersion: number) {
	const credentials = { [CREDENTIAL_TYPE]: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } };
	return {
		id: TRIGGER_WORKFLOW_ID,
		name: 'Queue mode: record inbound messages',
		active: false,
		nodes: [
			{
				id: 'queue-trigger',
				name: 'Inbound message',
				type: TRIGGER_NODE_TYPE,
				typeVersion: triggerVersion,
				position: [0, 0],
				parameters: { events: ['message:received:new'] },
				credentials,
				webhookId: TRIGGER_WEBHOOK_ID,
			},
			// n8n's own cross-execution deduplication (processed_data table, shared by every process).
			{
				id: 'queue-dedupe',
				name: 'Drop redeliveries',
				type: 'n8n-nodes-base.removeDuplicates',
				typeVersion: 2,
				position: [110, 0],
				parameters: {
					operation: 'removeItemsSeenInPreviousExecutions',
					logic: 'removeItemsWithAlreadySeenKeyValues',
					dedupeValue: '={{ $json.event_type }}|{{ $json.message_uid }}',
					options: {},
				},
			},
			{
				id: 'queue-record',
				name: 'Record',
				type: 'n8n-nodes-base.set',
				typeVersion: 3.4,
				position: [220, 0],
				parameters: {
					assignments: { assignments: [{ id: 'recorded-uid', name: 'recorded_uid', value: '={{ $json.message_uid }}', type: 'string' }] },
					options: {},
				},
			},
		],
		connections: {
			'Inbound message': { main: [[{ node: 'Drop redeliveries', type: 'main', index: 0 }]] },
			'Drop redeliveries': { main: [[{ node: 'Record', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

function sendWorkflow(actionVersion: number) {
	return {
		id: SEND_WORKFLOW_ID,
		name: 'Queue mode: send a batch of messages',
		active: false,
		nodes: [
			{
				id: 'queue-send-webhook',
				name: 'Batch',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				parameters: { httpMethod: 'POST', path: SEND_WEBHOOK_PATH, responseMode: 'onReceived', options: {} },
				webhookId: 'b3c1e8a2-6f4d-4e0b-8d17-5a9c2f3e7b41',
			},
			{
				id: 'queue-send-split',
				name: 'One per message',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [220, 0],
				parameters: { fieldToSplitOut: 'body.sends', options: {} },
			},
			{
				id: 'queue-send-action',
				name: 'Send',
				type: ACTION_NODE_TYPE,
				typeVersion: actionVersion,
				position: [440, 0],
				// Version 2 sends through one Send with Send To; version 1 had an operation per target.
				parameters:
					actionVersion >= 2
						? {
								resource: 'message',
								operation: 'send',
								sendTo: 'phone',
								phone: '={{ $json.phone }}',
								text: '={{ $json.text }}',
								options: {},
							}
						: {
								resource: 'message',
								operation: 'sendToPhone',
								phone: '={{ $json.phone }}',
								text: '={{ $json.text }}',
								additionalFields: {},
							},
				credentials: { [CREDENTIAL_TYPE]: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
			},
		],
		connections: {
			Batch: { main: [[{ node: 'One per message', type: 'main', index: 0 }]] },
			'One per message': { main: [[{ node: 'Send', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

// ---------------------------------------------------------------------------------------------

interface Execution {
	id: string;
	status?: string;
	finished?: boolean;
	workflowId?: string;
	data?: unknown;
}

/** Every execution's end state. */
const ended = (execution: Execution) => ['success', 'error', 'crashed', 'canceled'].includes(String(execution.status));

/** How the two copies of each event travel: which webhook process gets each, and whether the second waits for the first's answer. */
type Route = (index: number) => { ports: [number, number]; together: boolean };

/** The run's processes, servers and counts, and the reads and scenarios its checks share. */
class QueueRun {
	readonly workDir = mkdtempSync(join(tmpdir(), 'chat-messaging-queue-e2e-'));
	readonly logDir = join(this.workDir, 'logs');
	readonly userFolder = join(this.workDir, 'n8n-user');
	nodeBin = '';
	n8nBin = '';
	tarball = '';
	actionVersion = 1;
	triggerVersion = 1;
	readonly servers: Server[] = [];
	readonly services: { main?: Service; workers: Service[]; webhooks: Service[]; postgres?: Service; redis?: Service } = {
		workers: [],
		webhooks: [],
	};
	stopSandbox: (() => Promise<void>) | undefined;
	counted: Counted | undefined;
	relayed: Delivery[] = [];
	readonly relayRoutes: RelayRoutes = { webhookPorts: () => this.ports.webhook };
	n8n: N8nInstance | undefined;
	sandboxUrl = '';
	/** Each known once its server is listening (chosen free, see the header). */
	readonly ports = { proxy: 0, relay: 0, main: 0, workerHealth: [] as number[], webhook: [] as number[], redis: 0, postgres: 0 };
	private readonly encryptionKey = randomBytes(24).toString('hex');

	/** Every n8n process: the same database, Redis, encryption key and user folder (community package). */
	get queueEnv(): Record<string, string> {
		return {
			EXECUTIONS_MODE: 'queue',
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(this.ports.postgres),
			DB_POSTGRESDB_DATABASE: 'n8n',
			DB_POSTGRESDB_USER: 'n8n',
			DB_POSTGRESDB_PASSWORD: '',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(this.ports.redis),
			N8N_ENCRYPTION_KEY: this.encryptionKey,
			N8N_LOG_LEVEL: 'info',
			// The service delivers to the URL the trigger subscribes: the relay, which hands deliveries to the run.
			WEBHOOK_URL: `http://127.0.0.1:${this.ports.relay}/`,
		};
	}
	triggerExecutions = 0;
	sendExecutions = 0;
	readonly phones = Array.from({ length: 10 }, (_, index) => `+4915177${String(index).padStart(3, '0')}42`);

	env(extra: Record<string, string>): Record<string, string> {
		return { ...required(this.n8n).env(), N8N_WEBHOOK_URL: this.queueEnv.WEBHOOK_URL, ...extra };
	}

	// The run's own reads share the workspace's rate limit with n8n: wait as told on a 429 (reads only).
	async sandbox<T>(method: string, path: string, body?: unknown): Promise<T> {
		let response: Response;
		for (let attempt = 0; ; attempt++) {
			response = await fetch(`${this.sandboxUrl}${path}`, {
				method,
				headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
				body: body === undefined ? undefined : JSON.stringify(body),
			});
			if (response.status !== 429 || method !== 'GET' || attempt >= 20) break;
			await response.text();
			await sleep(1000 * Number(response.headers.get('retry-after') ?? 1));
		}
		const text = await response.text();
		assert(response.ok, `sandbox ${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
		const parsed = JSON.parse(text) as { status?: string; data?: unknown };
		return (parsed.status === 'ok' && 'data' in parsed ? parsed.data : parsed) as T;
	}

	async api(path: string): Promise<{ data: Execution[]; nextCursor?: string | null }> {
		const answer = await required(this.n8n).publicApi('GET', path);
		assert(answer.status === 200, `GET /api/v1${path} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
		return answer.body as { data: Execution[]; nextCursor?: string | null };
	}

	/** Every execution of a workflow (with its data when asked), through the public API's pages. */
	async executionsOf(workflowId: string, includeData = false): Promise<Execution[]> {
		const all: Execution[] = [];
		let cursor: string | null | undefined;
		do {
			const page = await this.api(
				`/executions?workflowId=${workflowId}&limit=250&includeData=${includeData}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
			);
			all.push(...page.data);
			cursor = page.nextCursor;
		} while (cursor);
		return all;
	}

	/** Waits until the workflow has at least `atLeast` executions, all ended, and no new one for a moment. */
	async settled(workflowId: string, atLeast: number, timeoutMs: number): Promise<Execution[]> {
		let last = -1;
		return waitFor(
			`${atLeast} ended executions of ${workflowId}`,
			async () => {
				const list = await this.executionsOf(workflowId);
				const stable = list.length === last;
				last = list.length;
				return list.length >= atLeast && list.every(ended) && stable ? list : undefined;
			},
			{ timeoutMs: timeoutMs, intervalMs: 1500 },
		);
	}

	/** Creates `count` inbound messages in the sandbox and collects the deliveries the relay received for them. */
	async inboundEvents(label: string, count: number): Promise<Delivery[]> {
		const uids: string[] = [];
		for (let index = 0; index < count; index++) {
			const incoming = await this.sandbox<{ message: { uid: string } }>('POST', '/_sandbox/incoming', {
				phone: `+4915166${String(index % 20).padStart(3, '0')}01`,
				text: `queue ${label} ${index}`,
			});
			uids.push(incoming.message.uid);
		}
		const wanted = new Set(uids);
		return waitFor(
			`${count} deliveries at the relay`,
			async () => {
				const ours = this.relayed.filter((delivery) => wanted.has(delivery.uid));
				return new Set(ours.map((delivery) => delivery.uid)).size === count
					? uids.map((uid) => ours.find((d) => d.uid === uid) as Delivery)
					: undefined;
			},
			{ timeoutMs: 60_000, intervalMs: 200 },
		);
	}

	/** Executions per message uid (from the trigger's item in each execution's data). */
	async executionsPerUid(uids: string[]) {
		const list = await this.executionsOf(TRIGGER_WORKFLOW_ID, true);
		const perUid = new Map<string, number>(uids.map((uid) => [uid, 0]));
		const recordedPerUid = new Map<string, number>(uids.map((uid) => [uid, 0]));
		let failed = 0;
		for (const execution of list) {
			if (execution.status !== 'success') failed++;
			const text = JSON.stringify(execution.data ?? {});
			const data = execution.data as { resultData?: { runData?: Record<string, unknown> } } | undefined;
			const recorded = JSON.stringify(data?.resultData?.runData?.Record ?? []);
			for (const uid of uids) {
				if (text.includes(uid)) perUid.set(uid, (perUid.get(uid) ?? 0) + 1);
				if (recorded.includes(uid)) recordedPerUid.set(uid, (recordedPerUid.get(uid) ?? 0) + 1);
			}
		}
		return { perUid, recordedPerUid, failed, total: list.length };
	}

	/**
	 * Creates `count` inbound events, delivers each twice as `route` says, waits for the executions,
	 * and counts per event: executions started, and passes through the Record node (past Remove Duplicates).
	 */
	async deliverTwice(label: string, count: number, route: Route) {
		const deliveries = await this.inboundEvents(label, count);
		const statuses: number[] = [];
		const started = Date.now();
		for (const [index, delivery] of deliveries.entries()) {
			const { ports, together } = route(index);
			if (together) statuses.push(...(await Promise.all(ports.map((port) => deliver(delivery, port)))));
			else for (const port of ports) statuses.push(await deliver(delivery, port));
		}
		const deliveryMs = Date.now() - started;
		const refused = statuses.filter((status) => status !== 200);
		assert(refused.length === 0, `${refused.length} deliveries refused: ${JSON.stringify(refused.slice(0, 10))}`);
		const list = await this.settled(TRIGGER_WORKFLOW_ID, this.triggerExecutions + count, 120_000);
		this.triggerExecutions = list.length;
		const { perUid, recordedPerUid, failed } = await this.executionsPerUid(deliveries.map((d) => d.uid));
		const counts = [...perUid.values()];
		const recorded = [...recordedPerUid.values()];
		const result = {
			events: count,
			deliveries: statuses.length,
			executions: counts.reduce((sum, n) => sum + n, 0),
			eventsRunTwice: counts.filter((n) => n > 1).length,
			eventsLost: counts.filter((n) => n === 0).length,
			recordedTwice: recorded.filter((n) => n > 1).length,
			recordedNever: recorded.filter((n) => n === 0).length,
			failed,
			deliveryMs,
		};
		figures[label] = result;
		assert(failed === 0, `${failed} executions did not succeed`);
		assert(result.eventsLost === 0, `${result.eventsLost} events started no execution`);
		assert(
			counts.every((n) => n <= 2),
			'an event started more executions than it had deliveries',
		);
		assert(result.recordedNever === 0, `${result.recordedNever} events never got past Remove Duplicates`);
		return result;
	}

	/** The sends' endpoint: the POST the proxy has seen most often (n8n's other POST is the subscription). */
	sendEndpoint(): string {
		return (
			[...(this.counted?.statuses ?? new Map<string, Map<number, number>>())]
				.filter(([key]) => key.startsWith('POST '))
				.sort((a, b) => [...b[1].values()].reduce((x, y) => x + y, 0) - [...a[1].values()].reduce((x, y) => x + y, 0))[0]?.[0] ?? ''
		);
	}

	answersOf(endpoint: string): Map<number, number> {
		return new Map(this.counted?.statuses.get(endpoint) ?? []);
	}

	/**
	 * Calls the send workflow `executions` times (alternating webhook processes) with `perExecution` items,
	 * waits for the executions, and checks the sandbox holds every message once.
	 */
	async sendMessages(label: string, executions: number, perExecution: number) {
		const total = executions * perExecution;
		const quotaBefore = (await this.sandbox<{ quota: { used: number } }>('GET', '/_sandbox/queue')).quota.used;
		const answersBefore = new Map([...(this.counted?.statuses ?? [])].map(([key, byStatus]) => [key, new Map(byStatus)]));
		const earlier = new Set((await this.executionsOf(SEND_WORKFLOW_ID)).map((execution) => String(execution.id)));
		const texts: string[] = [];
		const started = Date.now();
		const answers = await Promise.all(
			Array.from({ length: executions }, async (_, batch) => {
				const sends = Array.from({ length: perExecution }, (__, index) => {
					const text = `queue ${label} ${batch} item ${index}`;
					texts.push(text);
					return { phone: this.phones[index % this.phones.length], text };
				});
				const response = await fetch(`http://127.0.0.1:${this.ports.webhook[batch % 2]}/webhook/${SEND_WEBHOOK_PATH}`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ batch, sends }),
				});
				await response.text();
				return response.status;
			}),
		);
		assert(
			answers.every((status) => status === 200),
			`webhook answers ${JSON.stringify(answers)}`,
		);
		const list = await this.settled(SEND_WORKFLOW_ID, this.sendExecutions + executions, 300_000);
		const ms = Date.now() - started;
		const ours = list.filter((execution) => !earlier.has(String(execution.id)));
		this.sendExecutions = list.length;
		assert(
			ours.length === executions && ours.every((execution) => execution.status === 'success'),
			`executions: ${JSON.stringify(ours.map((execution) => execution.status))}`,
		);
		// Which worker ran which execution: each worker logs "Worker started execution <id>".
		const ids = new Set(ours.map((execution) => String(execution.id)));
		const perWorker = this.services.workers.map(
			(worker) => [...worker.log().matchAll(/Worker started execution (\d+)/g)].filter((match) => ids.has(match[1])).length,
		);
		// Every message of the ten chats, page by page.
		const chats: Array<{ id: number; phone: string | null }> = [];
		for (let page = 1; ; page++) {
			const data = await this.sandbox<{ chats: typeof chats; has_more_pages: boolean }>('GET', `/chats?page=${page}`);
			chats.push(...data.chats);
			if (!data.has_more_pages) break;
		}
		const stored: string[] = [];
		for (const phone of this.phones) {
			const chat = chats.find((c) => c.phone?.replace(/^\+/, '') === phone.replace(/^\+/, ''));
			assert(chat, `no chat for ${phone}`);
			for (let page = 1; ; page++) {
				const data = await this.sandbox<{ messages: Array<{ text: string; from_me: boolean }>; has_more_pages: boolean }>(
					'GET',
					`/chats/${chat.id}/messages?page=${page}`,
				);
				stored.push(...data.messages.filter((m) => m.from_me && m.text.startsWith(`queue ${label} `)).map((m) => m.text));
				if (!data.has_more_pages) break;
			}
		}
		const quotaUsed = (await this.sandbox<{ quota: { used: number } }>('GET', '/_sandbox/queue')).quota.used - quotaBefore;
		const endpoint = this.sendEndpoint();
		const before = answersBefore.get(endpoint) ?? new Map<number, number>();
		const delta = Object.fromEntries([...this.answersOf(endpoint)].map(([status, count]) => [status, count - (before.get(status) ?? 0)]));
		const storedSet = new Set(stored);
		// The sending itself, as the service saw it: from the first send's arrival to the last one's answer.
		const posts = (this.counted?.posts ?? []).filter((post) => post.at >= started);
		const firstAt = Math.min(...posts.map((post) => post.at));
		const spanMs = Math.max(...posts.map((post) => post.answeredAt)) - firstAt;
		const refusedAt = posts.filter((post) => post.status === 429).map((post) => post.at - firstAt);
		const rateLimited = delta[429] ?? 0;
		const result = {
			executions,
			messages: total,
			stored: stored.length,
			duplicates: stored.length - storedSet.size,
			missing: texts.filter((text) => !storedSet.has(text)).length,
			quotaUsed,
			perWorker,
			ms,
			sendAnswers: delta,
			rateLimited,
			/** Of every send request, the share refused for the rate. */
			rateLimitedShare: rateLimited / (total + rateLimited),
			/** The time against the floor, (messages − burst) / rate: the run's whole time, and the sending's span. */
			floorS: (total - 10) / RATE_LIMIT,
			timesFloor: ms / 1000 / ((total - 10) / RATE_LIMIT),
			spanMs,
			spanTimesFloor: spanMs / 1000 / ((total - 10) / RATE_LIMIT),
			/** When the refusals came: within the first second (processes' first bursts meeting), and later. */
			rateLimitedFirstSecond: refusedAt.filter((ms) => ms < 1000).length,
			rateLimitedLater: refusedAt.filter((ms) => ms >= 1000).length,
			/** Second of the sending (from the first send's arrival) → refusals in it: when the workers met, and how often after. */
			rateLimitedBySecond: refusedAt.reduce<Record<number, number>>((bySecond, ms) => {
				const second = Math.floor(ms / 1000);
				bySecond[second] = (bySecond[second] ?? 0) + 1;
				return bySecond;
			}, {}),
		};
		figures[label] = result;
		assert(
			result.duplicates === 0 && result.missing === 0 && stored.length === total,
			`stored ${stored.length}, ${result.duplicates} duplicated, ${result.missing} missing`,
		);
		assert(quotaUsed === total, `${quotaUsed} messages charged`);
		return result;
	}
}

/** The two webhook processes' ports. */
const webhookA = (q: QueueRun) => q.ports.webhook[0]!;
const webhookB = (q: QueueRun) => q.ports.webhook[1]!;

const describeSends = (result: Awaited<ReturnType<QueueRun['sendMessages']>>) =>
	`${result.stored} stored once in ${result.ms} ms (${result.timesFloor.toFixed(2)}x the floor of ${result.floorS.toFixed(1)} s; ` +
	`sending ${result.spanMs} ms, ${result.spanTimesFloor.toFixed(2)}x); executions per worker ${result.perWorker.join(' / ')}; ` +
	`answers ${JSON.stringify(result.sendAnswers)}: ${(100 * result.rateLimitedShare).toFixed(1)} % refused ` +
	`(${result.rateLimitedFirstSecond} in the first second, ${result.rateLimitedLater} later; by second ${JSON.stringify(result.rateLimitedBySecond)})`;

async function prerequisites(q: QueueRun): Promise<string | undefined> {
	({ nodeBin: q.nodeBin, n8nBin: q.n8nBin } = n8nRuntimes());
	const redis = execFileSync('redis-server', ['--version'], { encoding: 'utf8' }).trim();
	const postgres = execFileSync(join(process.env.POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin', 'postgres'), ['--version'], {
		encoding: 'utf8',
	}).trim();
	return `${redis.split(' ').slice(0, 3).join(' ')}; ${postgres}`;
}

async function startServices(q: QueueRun): Promise<string | undefined> {
	const postgres = await startPostgres({ dir: join(q.workDir, 'postgres'), user: 'n8n', database: 'n8n', logDir: q.logDir });
	[q.services.postgres, q.ports.postgres] = [postgres.server, postgres.port];
	const redis = await startRedis({ dir: join(q.workDir, 'redis'), logDir: q.logDir });
	[q.services.redis, q.ports.redis] = [redis.server, redis.port];
	return `PostgreSQL on 127.0.0.1:${q.ports.postgres}, Redis on 127.0.0.1:${q.ports.redis}`;
}

async function packPackage(q: QueueRun): Promise<string | undefined> {
	if (process.env.E2E_SKIP_BUILD !== '1') execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
	const packed = packN8nPackage(q.workDir);
	q.tarball = packed.tarball;
	installCommunityPackage(q.tarball, q.userFolder, PACKAGE_NAME);
	const version = (name: string) => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const exported = require(join(packed.dir, 'dist', 'nodes', name, `${name}.node.js`)) as Record<
			string,
			new () => { description: { version?: number | number[]; defaultVersion?: number } }
		>;
		// A versioned node (VersionedNodeType) names the version new nodes get in defaultVersion.
		const { version: described, defaultVersion } = new (Object.values(exported)[0])().description;
		const latest = defaultVersion ?? (Array.isArray(described) ? Math.max(...described) : described);
		assert(typeof latest === 'number', `${name}: no version in its description`);
		return latest;
	};
	q.actionVersion = version('ChatMessaging');
	q.triggerVersion = version('ChatMessagingTrigger');
	return packed.filename;
}

async function startSandboxProxyRelay(q: QueueRun): Promise<string | undefined> {
	const sandbox = await startSandbox({
		tokens: [TOKEN],
		seed: 12,
		chats: 30,
		rateLimit: RATE_LIMIT,
		quota: 100_000,
		paceMs: 0,
		deliveredAfterMs: 0,
		readAfterMs: 0,
	});
	q.sandboxUrl = sandbox.url.replace(/\/+$/, '');
	q.stopSandbox = () => sandbox.stop();
	const proxy = await startCountingProxy(q.sandboxUrl);
	q.counted = proxy.counted;
	q.servers.push(proxy.server);
	const relay = await startRelay(q.relayRoutes);
	q.relayed = relay.deliveries;
	q.servers.push(relay.server);
	[q.ports.proxy, q.ports.relay] = [proxy.port, relay.port];
	return `${q.sandboxUrl}; proxy on :${q.ports.proxy}, relay on :${q.ports.relay}`;
}

async function importCredentialAndWorkflows(q: QueueRun): Promise<string | undefined> {
	// The CLI binds no port; the main gets its own when it starts.
	q.n8n = new N8nInstance(q.nodeBin, q.n8nBin, q.userFolder, await freePort(), await freePort(), q.logDir);
	const credentialFile = join(q.workDir, 'credential.json');
	writeFileSync(credentialFile, JSON.stringify(credentialExport(`http://127.0.0.1:${q.ports.proxy}`, TOKEN)));
	try {
		const cli = await q.n8n.cli(['import:credentials', `--input=${credentialFile}`], 240_000);
		assert(cli.code === 0, `import:credentials: ${redact(cli.stdout + cli.stderr).slice(-800)}`);
	} finally {
		rmSync(credentialFile, { force: true });
	}
	const workflowFile = join(q.workDir, 'workflows.json');
	writeFileSync(workflowFile, JSON.stringify([triggerWorkflow(q.triggerVersion), sendWorkflow(q.actionVersion)]));
	const imported = await q.n8n.cli(['import:workflow', `--input=${workflowFile}`]);
	assert(imported.code === 0, `import:workflow: ${imported.stdout.slice(-800)} ${imported.stderr.slice(-800)}`);
	return undefined;
}

async function startN8nProcesses(q: QueueRun): Promise<string | undefined> {
	const node = join(q.nodeBin, 'node');
	const readiness = (port: number) => async () => (await fetch(`http://127.0.0.1:${port}/healthz/readiness`)).status === 200;
	// The main: its HTTP port and its task broker's, chosen free (again on others when one was taken meanwhile).
	const mainMs = await onFreePorts(2, async ([port, broker]) => {
		q.n8n = new N8nInstance(q.nodeBin, q.n8nBin, q.userFolder, port, broker, q.logDir);
		const main = Service.start('n8n-main', node, [q.n8nBin, 'start'], { logDir: q.logDir, env: q.env({}) });
		q.services.main = main;
		q.ports.main = port;
		return main.waitUntil('ready', readiness(port), 180_000);
	});
	// Two workers (health port and task broker) and two webhook processes (HTTP port and task broker), started together.
	const started = (name: string, env: (ports: number[]) => Record<string, string>, args: string[], list: Service[]) =>
		onFreePorts(2, async (ports) => {
			const service = Service.start(name, node, [q.n8nBin, ...args], { logDir: q.logDir, env: q.env(env(ports)) });
			try {
				const ms = await service.waitUntil('ready', readiness(ports[0]!), 180_000);
				list.push(service);
				return { ms, port: ports[0]! };
			} catch (error) {
				await service.stop();
				throw error;
			}
		});
	const workers = [1, 2].map((index) =>
		started(
			`n8n-worker-${index}`,
			([health, broker]) => ({
				QUEUE_HEALTH_CHECK_ACTIVE: 'true',
				QUEUE_HEALTH_CHECK_PORT: String(health),
				N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
				N8N_RUNNERS_BROKER_PORT: String(broker),
			}),
			['worker', `--concurrency=${WORKER_CONCURRENCY}`],
			q.services.workers,
		),
	);
	const webhooks = [1, 2].map((index) =>
		started(
			`n8n-webhook-${index}`,
			([port, broker]) => ({ N8N_PORT: String(port), N8N_RUNNERS_BROKER_PORT: String(broker) }),
			['webhook'],
			q.services.webhooks,
		),
	);
	const [workersReady, webhooksReady] = await Promise.all([Promise.all(workers), Promise.all(webhooks)]);
	q.ports.workerHealth = workersReady.map((worker) => worker.port);
	q.ports.webhook = webhooksReady.map((webhook) => webhook.port);
	const others = [...workersReady, ...webhooksReady].map((ready) => ready.ms);
	await q.n8n?.setupOwnerAndApiKey();
	// Published through the main's public API (one CLI start fewer per workflow than publish:workflow).
	for (const id of [TRIGGER_WORKFLOW_ID, SEND_WORKFLOW_ID]) {
		const activated = await required(q.n8n).publicApi('POST', `/workflows/${id}/activate`);
		assert(activated.status === 200, `activating ${id} answered ${activated.status}: ${JSON.stringify(activated.body).slice(0, 300)}`);
	}
	return (
		`main on :${q.ports.main} ready after ${mainMs} ms, the others after ${Math.max(...others)} ms more ` +
		`(workers' health :${q.ports.workerHealth.join(', :')}; webhook processes :${q.ports.webhook.join(', :')})`
	);
}

async function relaySubscribed(q: QueueRun): Promise<string | undefined> {
	const hooks = await waitFor(
		'the subscription',
		async () => {
			const data = await q.sandbox<{ webhooks: Array<{ url: string; event_type: string }> } | Array<{ url: string; event_type: string }>>(
				'GET',
				'/webhooks',
			);
			const list = (Array.isArray(data) ? data : data.webhooks).filter((hook) => hook.url.includes(TRIGGER_WEBHOOK_ID));
			return list.length ? list : undefined;
		},
		{ timeoutMs: 30_000 },
	);
	assert(
		hooks.length === 1 && hooks[0].event_type === 'message:received:new',
		`subscriptions: ${JSON.stringify(hooks.map((h) => h.event_type))}`,
	);
	assert(
		hooks[0].url.startsWith(`http://127.0.0.1:${q.ports.relay}/`) && /[?&]secret=/.test(hooks[0].url),
		'the subscription URL is not the relay with a secret',
	);
	return undefined;
}

async function eventsSameProcess(q: QueueRun): Promise<string | undefined> {
	const result = await q.deliverTwice('eventsSameProcess', EVENTS_SAME_PROCESS, (index) => ({
		ports: index % 2 === 0 ? [webhookA(q), webhookA(q)] : [webhookB(q), webhookB(q)],
		together: false,
	}));
	assert(
		result.executions === EVENTS_SAME_PROCESS && result.eventsRunTwice === 0,
		`${result.executions} executions for ${EVENTS_SAME_PROCESS} events`,
	);
	// What the trigger wrote into its static data during webhook(): n8n 2.41.1 does not save it (see docs/queue-mode.md).
	const stored = psqlQuery(
		{ port: q.ports.postgres, user: 'n8n', database: 'n8n' },
		`select "staticData"::text from workflow_entity where id = '${TRIGGER_WORKFLOW_ID}'`,
	).trim();
	const seenKeysSaved =
		(JSON.parse(stored || '{}') as Record<string, { seenEvents?: unknown[] }>)['node:Inbound message']?.seenEvents?.length ?? 0;
	figures.seenKeysInDatabase = seenKeysSaved;
	return `${result.deliveries} deliveries in ${result.deliveryMs} ms → ${result.executions} executions; seen keys in the database's static data: ${seenKeysSaved}`;
}

async function eventsAlternating(q: QueueRun): Promise<string | undefined> {
	const result = await q.deliverTwice('eventsAlternating', EVENTS_IN_TURN, (index) => ({
		ports: index % 2 === 0 ? [webhookA(q), webhookB(q)] : [webhookB(q), webhookA(q)],
		together: false,
	}));
	return `${result.deliveries} deliveries in ${result.deliveryMs} ms → ${result.executions} executions (${result.eventsRunTwice} events ran twice); past Remove Duplicates twice: ${result.recordedTwice}`;
}

async function eventsAtOnce(q: QueueRun): Promise<string | undefined> {
	const result = await q.deliverTwice('eventsAtOnce', EVENTS_AT_ONCE, () => ({ ports: [webhookA(q), webhookB(q)], together: true }));
	return `${result.deliveries} deliveries → ${result.executions} executions (${result.eventsRunTwice} events ran twice); past Remove Duplicates twice: ${result.recordedTwice}`;
}

async function sendsSpread(q: QueueRun): Promise<string | undefined> {
	const result = await q.sendMessages('sendsSpread', SEND_EXECUTIONS, SENDS_PER_EXECUTION);
	assert(
		result.perWorker.every((count) => count > 0),
		`executions per worker: ${result.perWorker.join(' / ')}`,
	);
	return describeSends(result);
}

async function sendsOneExecution(q: QueueRun): Promise<string | undefined> {
	const result = await q.sendMessages('sendsOneExecution', 1, SEND_EXECUTIONS * SENDS_PER_EXECUTION);
	return describeSends(result);
}

async function tokenInNoLog(q: QueueRun): Promise<string | undefined> {
	const leaks = [q.services.main, ...q.services.workers, ...q.services.webhooks].filter((service) => service?.log().includes(TOKEN));
	assert(leaks.length === 0, `the token appears in: ${leaks.map((service) => service?.name).join(', ')}`);
	return `searched ${2 + q.services.workers.length + q.services.webhooks.length - 1} logs`;
}

async function main(): Promise<void> {
	const runStarted = Date.now();
	const q = new QueueRun();
	current = q;
	// PostgreSQL runs as its own user and must reach its folders inside.
	if (userInfo().uid === 0) chmodSync(q.workDir, 0o711);
	mkdirSync(q.logDir);
	let stopping = false;
	const onSignal = (signal: NodeJS.Signals) => {
		// A second signal while stopping: no more waiting.
		if (stopping) {
			killAllServicesNow();
			process.exit(130);
		}
		stopping = true;
		console.log(`\n${signal}: stopping every process of the run`);
		void stopEverything(q).finally(() => process.exit(130));
	};
	process.on('SIGINT', onSignal);
	process.on('SIGTERM', onSignal);
	process.on('exit', () => killAllServicesNow());
	console.log(`n8n queue-mode end-to-end test (work folder ${q.workDir})`);

	const cases: Array<[string, (q: QueueRun) => Promise<string | undefined>, boolean?]> = [
		['prerequisites: Node 24 and n8n (test/e2e/runtimes.sh), PostgreSQL and Redis binaries', prerequisites, true],
		['services: PostgreSQL and Redis on loopback, on ports chosen free', startServices, true],
		['package: built, packed and extracted as a community package', packPackage, true],
		[`sandbox: limited to ${RATE_LIMIT} requests/s, behind a counting proxy; event relay`, startSandboxProxyRelay, true],
		['import: credential and both workflows into PostgreSQL', importCredentialAndWorkflows, true],
		[
			`n8n: main, two workers (concurrency ${WORKER_CONCURRENCY}) and two webhook processes ready; both workflows published`,
			startN8nProcesses,
			true,
		],
		['trigger: the published workflow subscribed the relay with its secret', relaySubscribed],
		[
			`events: ${EVENTS_SAME_PROCESS} inbound events, each delivered twice to the same webhook process (half to each): exactly one execution per event`,
			eventsSameProcess,
		],
		[
			`events: ${EVENTS_IN_TURN} inbound events, each delivered twice through alternating webhook processes, the second after the first was answered: none lost (executions per event counted)`,
			eventsAlternating,
		],
		[
			`events: ${EVENTS_AT_ONCE} inbound events, both copies sent to the two webhook processes at the same moment: none lost (executions per event counted)`,
			eventsAtOnce,
		],
		[
			`sends: ${SEND_EXECUTIONS} executions of ${SENDS_PER_EXECUTION} items at once, spread over both workers: ${SEND_EXECUTIONS * SENDS_PER_EXECUTION} messages stored, each once (429s reported)`,
			sendsSpread,
		],
		[
			`sends: one execution of ${SEND_EXECUTIONS * SENDS_PER_EXECUTION} items (one worker, one pacer): every message stored once (429s reported)`,
			sendsOneExecution,
		],
	];
	// RESPONDER_ONLY=1 runs the setup and the AI responder's cases alone (its latencies, measured while changing it).
	const responderOnly = process.env.RESPONDER_ONLY === '1';
	for (const [name, body, stopsRunOnFailure] of cases) {
		if (responderOnly && !stopsRunOnFailure && body !== relaySubscribed) continue;
		// The n8n processes read the queue settings from the environment once the services are up.
		if (body === importCredentialAndWorkflows) Object.assign(process.env, q.queueEnv);
		await check(name, () => body(q), stopsRunOnFailure);
	}
	// Send and Wait for Response across processes: the worker keeps each wait with the execution, a webhook process
	// serves one wait's page and the other the next one's (test/e2e/n8n/send-and-wait-cases.ts).
	if (!responderOnly)
		await runSendAndWaitCases({
			check,
			n8n: () => required(q.n8n),
			sandbox: (method, path, body) => q.sandbox(method, path, body),
			typeVersion: q.actionVersion,
			webhookProcesses: { linkOrigin: q.queueEnv.WEBHOOK_URL, servedBy: q.ports.webhook.map((port) => `http://127.0.0.1:${port}`) },
			cases: ['loop'],
		});
	// The AI responder: one turn per burst and the memory from the service, on two workers (burst-cases.ts).
	await runBurstCases({
		check,
		n8n: () => required(q.n8n),
		sandbox: (method, path, body) => q.sandbox(method, path, body),
		chatCredential: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME },
		relayRoutes: q.relayRoutes,
		deliver,
		webhookPorts: q.ports.webhook,
		workerLogs: () => q.services.workers.map((worker) => worker.log()),
	});
	await check('the token appears in no n8n log', () => tokenInNoLog(q));

	const { failed } = run;
	figures.totalMs = Date.now() - runStarted;
	console.log(`figures ${JSON.stringify(figures)}`);
	await stopEverything(q, failed > 0);
	console.log(run.summary());
	process.exitCode = failed === 0 ? 0 : 1;
}

/** The run under way, for the failure path. */
let current: QueueRun | undefined;

/**
 * Stops everything, n8n first (it talks to the others), then Redis and PostgreSQL, the sandbox, the servers; then,
 * with every process gone and every log closed, removes the work folder (KEEP_E2E_DIR=1 keeps it). After a failure the
 * end of each log is printed first.
 */
async function stopEverything(q: QueueRun, printLogs = false): Promise<void> {
	const { services } = q;
	await Promise.all([services.main, ...services.workers, ...services.webhooks].map((service) => service?.stop()));
	await Promise.all([services.redis?.stop(), services.postgres?.stop('SIGINT')]);
	// Any left: started and never recorded (a start that failed), or an n8n CLI command still running.
	await stopAllServices({ postgres: 'SIGINT' });
	q.n8n?.killNow();
	await q.stopSandbox?.().catch((error: unknown) => console.log(`    (the sandbox did not stop cleanly: ${String(error)})`));
	q.stopSandbox = undefined;
	for (const server of q.servers) {
		server.close();
		server.closeAllConnections();
	}
	if (printLogs) printLogTails(q.logDir);
	if (process.env.KEEP_E2E_DIR === '1') console.log(`work folder kept: ${q.workDir}`);
	else rmSync(q.workDir, { recursive: true, force: true, maxRetries: 3 });
}

function printLogTails(logDir: string, lines = 15): void {
	for (const file of readdirSync(logDir).sort()) {
		const tail = readFileSync(join(logDir, file), 'utf8').trimEnd().split('\n').slice(-lines);
		console.log(`--- ${file} (last ${tail.length} lines)\n${redact(tail.join('\n'))}`);
	}
}

function required<T>(value: T | undefined): T {
	assert(value !== undefined, 'a value the run needs is missing');
	return value;
}

main().catch(async (error: unknown) => {
	console.error(redact(error instanceof Error ? (error.stack ?? error.message) : String(error)));
	if (current) await stopEverything(current, true).catch((stopError: unknown) => console.error(redact(String(stopError))));
	killAllServicesNow();
	console.log(run.summary(true));
	process.exit(1);
});
