/**
 * The event node at deploy: subscriptions a crash left are re-pointed or deleted, a missing or unusable public URL is
 * reported before anything is sent, and the URL the service posts to.
 */
import { subscriptionUrl } from '../src/nodes/event/receiver';
import {
	credentialsFor,
	eventNodeFlow,
	eventNodeTestHooks,
	helper,
	nodesUnderTest,
	sandboxCall,
	sandboxData,
	waitFor,
	type NodeHttp,
	type Sandbox,
} from './support';

let sbx: Sandbox;
let nodeHttp: NodeHttp;
eventNodeTestHooks('deploy-token', (sandbox, http) => {
	sbx = sandbox;
	nodeHttp = http;
});

const eventFlow = (events: string[]) => eventNodeFlow(sbx, nodeHttp.url, { events });
const webhooks = async (): Promise<any[]> => (await sandboxData(sbx, '/webhooks')).webhooks;
const nodePrefix = () => `${nodeHttp.url}/chat-messaging/events/ev/`;

test('on start it re-points or deletes subscriptions of this node left by a crash, and keeps everyone else’s', async () => {
	const crashed = `${nodePrefix()}secret-from-a-crashed-run`;
	const stale = await sandboxCall(sbx, 'POST', '/webhooks', { event_type: 'message:received:new', url: crashed });
	const reusable = await sandboxCall(sbx, 'POST', '/webhooks', { event_type: 'chat:created', url: crashed, enabled: false });
	const foreign = await sandboxCall(sbx, 'POST', '/webhooks', { event_type: 'message:received:new', url: `${nodeHttp.url}/somebody-else` });
	expect(stale.status).toBe(200);
	await helper.load(nodesUnderTest as never, eventFlow(['chat:created']), credentialsFor(sbx.tokens[0]!));
	const hooks = await waitFor('const list = await webhooks(); return list.length === 2 && list.eve...', async () => {
		const list = await webhooks();
		return list.length === 2 && list.every((hook) => hook.url !== crashed) && list;
	});
	expect(hooks.map((hook) => hook.id).sort()).toEqual([reusable.body.data.id, foreign.body.data.id].sort());
	const mine = hooks.find((hook) => hook.id === reusable.body.data.id);
	expect(mine).toMatchObject({ event_type: 'chat:created', enabled: true });
	expect(mine.url.startsWith(nodePrefix())).toBe(true);
	await (helper.getNode('ev') as unknown as { close(removed: boolean): Promise<void> }).close(true);
	expect((await webhooks()).map((hook) => hook.id)).toEqual([foreign.body.data.id]);
});

test('without a public URL the node reports the missing setting and subscribes to nothing', async () => {
	const flow = eventFlow(['chat:created']);
	(flow[1] as Record<string, unknown>).publicUrl = '';
	await helper.load(nodesUnderTest as never, flow, credentialsFor(sbx.tokens[0]!));
	const logged = await waitFor('helper .log() .args.map((args) => args[0] as { id?: string; level?:...', () =>
		helper
			.log()
			.args.map((args) => args[0] as { id?: string; level?: number; msg?: unknown })
			.find((entry) => entry.id === 'ev' && entry.level === 20),
	);
	expect(String(logged.msg)).toMatch(/publicUrl/);
	expect(await webhooks()).toEqual([]);
});

test('a public service with an http or loopback public URL fails at deploy, saying how to fix it, and sends nothing', async () => {
	const flow = eventFlow(['chat:created']);
	Object.assign(flow[1] as Record<string, unknown>, { baseUrl: 'https://api.chat-messaging.example', publicUrl: 'http://127.0.0.1:1880' });
	await helper.load(nodesUnderTest as never, flow, credentialsFor('never-sent-token'));
	const logged = await waitFor('helper .log() .args.map((args) => args[0] as { id?: string; level?:...', () =>
		helper
			.log()
			.args.map((args) => args[0] as { id?: string; level?: number; msg?: unknown })
			.find((entry) => entry.id === 'ev' && entry.level === 20),
	);
	expect(String(logged.msg)).toMatch(/public HTTPS address.*http:\/\/127\.0\.0\.1:1880\/chat-messaging\/events\/ev\/ is not HTTPS/);
	expect(String(logged.msg)).toMatch(/Public URL of the Chat Messaging configuration node/);
});

// Parsing, redelivery keys, SeenEvents and subscription syncing are tested in packages/core/test/events.test.ts.
describe('event helpers', () => {
	test('subscriptionUrl joins public URL, HTTP node root and path without double slashes', () => {
		expect(subscriptionUrl('https://red.example.com/', '/', 'abc', 's3')).toBe('https://red.example.com/chat-messaging/events/abc/s3');
		expect(subscriptionUrl('https://red.example.com', '/api/', 'abc', 's3')).toBe(
			'https://red.example.com/api/chat-messaging/events/abc/s3',
		);
		expect(subscriptionUrl('https://red.example.com', undefined, 'abc')).toBe('https://red.example.com/chat-messaging/events/abc/');
	});
});
