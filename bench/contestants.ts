/**
 * Our code as users run it, in this process: the executor, the n8n action node through its execute() (the test
 * suite's n8n context: real HTTP with axios, as n8n sends it), and the Node-RED nodes inside a real Node-RED runtime
 * (node-red-node-test-helper), fed messages and read at their outputs.
 */
import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import { Executor } from '@chat-messaging/core';
import type { NodeMessage } from 'node-red';
import { createExecuteContext } from '../packages/n8n/test/support/n8n-context';
import { Collector, helper, nodesUnderTest, waitUntil } from '../packages/node-red/test/support';
import { fetchTransport, realTiming } from '../test/support/fetch-transport';
import { requireBuilt } from '../test/support/packages';
import { pacingKey } from '@chat-messaging/core';

/**
 * The built node, as n8n loads it (npm run bench builds first). Not the source: under tsx, `ChatMessaging.node`
 * resolves to the codex file ChatMessaging.node.json beside it.
 */
const built = requireBuilt<typeof import('../packages/n8n/nodes/ChatMessaging/ChatMessaging.node')>(
	'n8n',
	'dist/nodes/ChatMessaging/ChatMessaging.node.js',
);
// Version 1's parameters (sendToPhone, chat_id as text): both versions run the same executor and item loop.
const actionNode = new built.ChatMessaging().getNodeType(1) as INodeType & Required<Pick<INodeType, 'execute'>>;

/** An executor as a script would make one: fetch, real time, pacing shared per base URL and token. */
export function scriptExecutor(baseUrl: string, token: string, options: { paced?: boolean } = {}): Executor {
	return new Executor({
		baseUrl,
		token,
		transport: fetchTransport,
		timing: realTiming,
		...(options.paced === false ? { rateLimit: false } : { pacingKey: pacingKey(baseUrl, token) }),
	});
}

/** One n8n execution of the action node over `items`, parameters per item; its output items. */
export async function n8nExecute(
	baseUrl: string,
	token: string,
	parameters: (itemIndex: number) => Record<string, unknown>,
	itemCount = 1,
): Promise<INodeExecutionData[]> {
	const items: INodeExecutionData[] = Array.from({ length: itemCount }, (_, index) => ({ json: { index } }));
	const { context } = createExecuteContext({
		properties: actionNode.description.properties,
		credentials: { baseUrl, apiToken: token },
		parameters,
		items,
	});
	const output = (await actionNode.execute.call(context as unknown as IExecuteFunctions)) as INodeExecutionData[][];
	return output[0] ?? [];
}

interface FlowAction {
	/** Node id of the action node; its output goes to `<id>-out`. */
	id: string;
	/** Config node id; each config node is one configuration (own HTTP client), as in separate flows. */
	config: string;
	props: Record<string, unknown>;
}

/**
 * A running Node-RED with the action nodes side by side, each with its own configuration node (its own HTTP client;
 * all on the same base URL and token), and a Catch node: the flows users deploy. One tab, because the test helper
 * registers the Catch node type once per Catch node it is given.
 */
export class NodeRedFlows {
	private readonly outputs = new Map<string, Collector>();
	private caught?: Collector;

	private constructor() {}

	static async load(baseUrl: string, token: string, actions: FlowAction[], extraNodes: Array<Record<string, unknown>> = []) {
		const flows = new NodeRedFlows();
		const configs = [...new Set(actions.map((action) => action.config))];
		const flow: Array<Record<string, unknown>> = [
			{ id: 'bench-tab', type: 'tab', label: 'bench' },
			...actions.flatMap((action, index) => [
				{
					id: action.id,
					z: 'bench-tab',
					type: 'chat-messaging',
					name: '',
					config: action.config,
					x: 100,
					y: 100 + index * 100,
					wires: [[`${action.id}-out`]],
					...action.props,
				},
				{ id: `${action.id}-out`, z: 'bench-tab', type: 'helper', x: 300, y: 100 + index * 100 },
			]),
			{ id: 'bench-catch', z: 'bench-tab', type: 'catch', scope: null, x: 100, y: 50, wires: [['bench-caught']] },
			{ id: 'bench-caught', z: 'bench-tab', type: 'helper', x: 300, y: 50 },
			...configs.map((id) => ({ id, type: 'chat-messaging-config', name: `configuration ${id}`, baseUrl, publicUrl: '' })),
			...extraNodes,
		];
		const credentials = Object.fromEntries(configs.map((id) => [id, { token }]));
		await helper.load(nodesUnderTest as never, flow, credentials);
		for (const action of actions) flows.outputs.set(action.id, new Collector(`${action.id}-out`));
		flows.caught = new Collector('bench-caught');
		return flows;
	}

	/** Feeds `msgs` to the action node at once (as fast as a flow would) and resolves with its `count` outputs. */
	async run(actionId: string, msgs: NodeMessage[], count = msgs.length, timeoutMs = 600_000): Promise<NodeMessage[]> {
		const out = this.outputs.get(actionId)!;
		const caught = this.caught!;
		const before = out.messages.length;
		const caughtBefore = caught.messages.length;
		const node = helper.getNode(actionId) as unknown as { receive(msg: NodeMessage): void };
		for (const msg of msgs) node.receive(msg);
		await waitUntil(
			[out, caught],
			() => out.messages.length - before >= count || caught.messages.length > caughtBefore,
			timeoutMs,
			() => `${count} outputs of ${actionId}, got ${out.messages.length - before}`,
		);
		if (caught.messages.length > caughtBefore)
			throw new Error(`Node-RED ${actionId} failed: ${JSON.stringify(caught.messages[caughtBefore]!.error).slice(0, 300)}`);
		return out.messages.slice(before, before + count);
	}

	async unload(): Promise<void> {
		await helper.unload();
	}
}
