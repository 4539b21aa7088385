/**
 * Shared set-up of the Node-RED node tests: the real Node-RED runtime through node-red-node-test-helper,
 * the nodes loaded from their TypeScript sources, and the sandbox over real HTTP.
 *
 * The test helper gives each load a fresh `RED.httpNode` express app but serves it nowhere, so
 * `startNodeHttp()` serves whichever app is current on a loopback port: the sandbox then delivers
 * webhook events to the event node over real HTTP, as the live service would.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import helper from 'node-red-node-test-helper';
import chatMessagingNodes from '../src';
import type { NodeAPI, NodeMessage } from 'node-red';
import { startSandbox, type SandboxOptions } from '@chat-messaging/sandbox';
import { sandboxClient, waitFor, type HttpAnswer } from '../../../test/support/harness';

helper.init(require.resolve('node-red'));

export { helper };
export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

/** Quick settings: short send pace, status changes and webhook retries. */
export const FAST_SANDBOX: Partial<SandboxOptions> = {
	seed: 11,
	chats: 30,
	paceMs: 20,
	deliveredAfterMs: 60,
	readAfterMs: 120,
	webhookRetryMs: 30,
	webhookTimeoutMs: 1000,
};

let currentRED: NodeAPI | undefined;
/** The module as Node-RED loads it, remembering the RED it was given (for its httpNode app). */
export const nodesUnderTest = (RED: NodeAPI): void => {
	currentRED = RED;
	chatMessagingNodes(RED);
};

export const TAB = 'tab1';
export const CONFIG_ID = 'cfg1';

export function configNode(sandbox: Sandbox, extra: Record<string, unknown> = {}): Record<string, unknown> {
	return { id: CONFIG_ID, type: 'chat-messaging-config', name: 'sandbox', baseUrl: sandbox.url, publicUrl: '', ...extra };
}

export const credentialsFor = (token: string) => ({ [CONFIG_ID]: { token } });

/** Collects what arrives at a helper node. */
export class Collector {
	readonly messages: NodeMessage[] = [];
	private listeners = new Set<() => void>();

	constructor(nodeId: string) {
		const node = helper.getNode(nodeId) as unknown as { on(event: 'input', listener: (msg: NodeMessage) => void): void };
		node.on('input', (msg) => {
			this.messages.push(msg);
			for (const listener of [...this.listeners]) listener();
		});
	}

	/** Resolves once `count` messages arrived; rejects after `timeoutMs`. */
	waitFor(count: number, timeoutMs = 10_000): Promise<NodeMessage[]> {
		return waitUntil(
			[this],
			() => this.messages.length >= count,
			timeoutMs,
			() => `expected ${count} message(s), got ${this.messages.length}`,
		).then(() => this.messages);
	}

	/** Calls `listener` after each arrival until the returned function is called. */
	subscribe(listener: () => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}
}

/** Resolves when `done()` holds (checked now and after each arrival at any collector); no timer outlives it. */
export function waitUntil(
	collectors: Collector[],
	done: () => boolean,
	timeoutMs: number,
	describe: () => string = () => 'condition',
): Promise<void> {
	return new Promise((resolve, reject) => {
		if (done()) return resolve();
		const unsubscribes: Array<() => void> = [];
		const finish = (error?: Error) => {
			clearTimeout(timer);
			for (const unsubscribe of unsubscribes) unsubscribe();
			if (error) reject(error);
			else resolve();
		};
		const timer = setTimeout(() => finish(new Error(`timed out: ${describe()}`)), timeoutMs);
		for (const collector of collectors) unsubscribes.push(collector.subscribe(() => done() && finish()));
	});
}

export interface ActionRun {
	/** Messages on the action node's output. */
	outputs: NodeMessage[];
	/** What a Catch node received, if the node failed. */
	caught?: NodeMessage;
}

/**
 * Loads [config, action node → out, catch → caught] (flow nodes need x/y: Node-RED treats nodes without
 * a position as config nodes), sends `msg`, and waits for either `expectOutputs`
 * messages or a caught error. Extra nodes (e.g. an inject feeding context) can be appended.
 */
export async function runAction(
	sandbox: Sandbox,
	props: Record<string, unknown>,
	msg: NodeMessage = {},
	options: {
		token?: string;
		expectOutputs?: number;
		settleMs?: number;
		config?: Record<string, unknown>;
		beforeInput?: () => void | Promise<void>;
	} = {},
): Promise<ActionRun> {
	const flow = [
		{ id: TAB, type: 'tab', label: 'test' },
		configNode(sandbox, options.config),
		{ id: 'action', z: TAB, type: 'chat-messaging', name: '', config: CONFIG_ID, x: 100, y: 100, wires: [['out']], ...props },
		{ id: 'out', z: TAB, type: 'helper', x: 300, y: 100 },
		{ id: 'catcher', z: TAB, type: 'catch', scope: null, uncaught: false, x: 100, y: 200, wires: [['caught']] },
		{ id: 'caught', z: TAB, type: 'helper', x: 300, y: 200 },
	];
	await helper.load(nodesUnderTest as never, flow, credentialsFor(options.token ?? sandbox.tokens[0]!));
	try {
		const out = new Collector('out');
		const caught = new Collector('caught');
		await options.beforeInput?.();
		(helper.getNode('action') as unknown as { receive(msg: NodeMessage): void }).receive(msg);
		const expected = options.expectOutputs ?? 1;
		await waitUntil(
			[out, caught],
			() => out.messages.length >= expected || caught.messages.length > 0,
			15_000,
			() => `${expected} output(s) or an error`,
		);
		if (options.settleMs) await new Promise((resolve) => setTimeout(resolve, options.settleMs));
		return { outputs: out.messages, caught: caught.messages[0] };
	} finally {
		await helper.unload();
	}
}

/** Runs an action expected to succeed with one output; returns its payload. */
export async function payloadOf(sandbox: Sandbox, props: Record<string, unknown>, msg: NodeMessage = {}): Promise<any> {
	const run = await runAction(sandbox, props, msg);
	if (run.caught) throw new Error(`node failed: ${JSON.stringify(run.caught.error)} ${JSON.stringify(run.caught.chatMessagingError)}`);
	return run.outputs[0]!.payload;
}

/** Shorthand for the `fields` property: plain values become `str` typed inputs. */
export function fields(values: Record<string, unknown>): Record<string, { value: unknown; type: string }> {
	const out: Record<string, { value: unknown; type: string }> = {};
	for (const [name, value] of Object.entries(values)) {
		if (value && typeof value === 'object' && 'type' in (value as object)) out[name] = value as { value: unknown; type: string };
		else out[name] = { value: String(value), type: typeof value === 'number' ? 'num' : typeof value === 'boolean' ? 'boolean' : 'str' };
	}
	return out;
}

/** Serves the current RED.httpNode on a loopback port (see the module comment). */
export async function startNodeHttp(): Promise<{ url: string; server: Server; stop(): Promise<void> }> {
	const server = createServer((req, res) => {
		const app = currentRED?.httpNode as unknown as ((req: unknown, res: unknown, next: () => void) => void) | undefined;
		if (!app) {
			res.statusCode = 503;
			res.end();
			return;
		}
		app(req, res, () => {
			res.statusCode = 404;
			res.end('no route');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return {
		url,
		server,
		stop: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}

export type NodeHttp = Awaited<ReturnType<typeof startNodeHttp>>;

/**
 * The hooks every event-node test file shares: for the file, a sandbox holding `token` (with `sandboxOptions`) and the current RED.httpNode
 * served on loopback (`ready` receives both); after each test, the flow unloaded and every subscription deleted (a
 * stopped event node keeps its subscriptions for its next start: each test starts from none).
 */
export function eventNodeTestHooks(
	token: string,
	ready: (sandbox: Sandbox, nodeHttp: NodeHttp) => void,
	sandboxOptions: Partial<SandboxOptions> = {},
): void {
	let sandbox: Sandbox | undefined;
	let nodeHttp: NodeHttp | undefined;
	beforeAll(async () => {
		sandbox = await startSandbox({ ...FAST_SANDBOX, ...sandboxOptions, tokens: [token] });
		nodeHttp = await startNodeHttp();
		ready(sandbox, nodeHttp);
	});
	afterAll(async () => {
		await nodeHttp?.stop();
		await sandbox?.stop();
	});
	afterEach(async () => {
		await helper.unload();
		if (!sandbox) return;
		for (const hook of (await sandboxData(sandbox, '/webhooks')).webhooks) await sandboxCall(sandbox, 'DELETE', `/webhooks/${hook.id}`);
	});
}

/** One event node `ev` (`settings` on top of its defaults) on the sandbox's config node, wired to a helper node `out`. */
export function eventNodeFlow(sandbox: Sandbox, publicUrl: string, settings: Record<string, unknown>): Array<Record<string, unknown>> {
	return [
		{ id: TAB, type: 'tab', label: 'events' },
		configNode(sandbox, { publicUrl }),
		{ id: 'ev', z: TAB, type: 'chat-messaging-event', name: '', config: CONFIG_ID, x: 100, y: 100, wires: [['out']], ...settings },
		{ id: 'out', z: TAB, type: 'helper', x: 300, y: 100 },
	];
}

/** What the action-node test files share: a sandbox of 130 chats (three pages of 50), a loopback file server, the chats. */
export interface ActionNodeTestContext {
	sandbox: Sandbox;
	/** A JPEG served on loopback, for URL attachments. */
	fileUrl: string;
	/** Every chat of the sandbox, in list order. */
	chats: any[];
	/** A direct chat that may be messaged. */
	directChat: any;
}

/** Starts (for the file) what ActionNodeTestContext holds; its fields are set once the file's first beforeAll ran. */
export function actionNodeTestHooks(token: string): ActionNodeTestContext {
	const context = { fileUrl: '', chats: [] } as unknown as ActionNodeTestContext;
	let fileServer: Server | undefined;
	beforeAll(async () => {
		context.sandbox = await startSandbox({ ...FAST_SANDBOX, chats: 130, tokens: [token] });
		const server = (fileServer = createServer((_req, res) => {
			res.writeHead(200, { 'content-type': 'image/jpeg' });
			res.end(Buffer.from('ffd8ffe000104a464946', 'hex'));
		}));
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		context.fileUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/photos/cat.jpg`;
		for (let page = 1; ; page++) {
			const data = await sandboxData(context.sandbox, `/chats?page=${page}`);
			context.chats.push(...data.chats);
			if (!data.has_more_pages) break;
		}
		context.directChat = context.chats.find((chat) => !chat.is_group && chat.is_allowed_to_message !== false);
	});
	afterAll(async () => {
		await context.sandbox?.stop();
		fileServer?.closeAllConnections();
		await new Promise((resolve) => fileServer?.close(resolve) ?? resolve(undefined));
	});
	return context;
}

/** A direct call to the sandbox (independent of the nodes), for set-up and for checking effects. */
export const sandboxCall = (
	sandbox: Sandbox,
	method: string,
	path: string,
	body?: unknown,
	token = sandbox.tokens[0]!,
): Promise<HttpAnswer> => sandboxClient(sandbox.url, token).call(method, path, body);

/** GET through the sandbox and return `data`. */
export const sandboxData = (sandbox: Sandbox, path: string, token?: string): Promise<any> =>
	sandboxClient(sandbox.url, token ?? sandbox.tokens[0]!).get(path);

export { waitFor };

export { startSandbox };
