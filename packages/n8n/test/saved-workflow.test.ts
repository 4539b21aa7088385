/**
 * A workflow saved with version 1 of the nodes (packages/n8n/test/fixtures/workflow-v1.json, exported as n8n
 * saves it: only the parameters that differ from their defaults) still loads and runs. n8n resolves
 * a saved node against the description of its saved typeVersion, so this keeps holding once a
 * breaking change ships as version 2 (docs/ui-contract.md).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
	NodeHelpers,
	type INode,
	type INodeParameters,
	type INodeType,
	type INodeTypeDescription,
	type IVersionedNodeType,
} from 'n8n-workflow';

import { ChatMessaging } from '../nodes/ChatMessaging/ChatMessaging.node';
import { ChatMessagingTrigger } from '../nodes/ChatMessagingTrigger/ChatMessagingTrigger.node';
import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';
import { runAction, sandboxCall } from './support/run-action';

const TOKEN = 'saved-workflow-token';
const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { name: string };
const workflow = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'workflow-v1.json'), 'utf8')) as { nodes: INode[] };
const nodeTypes: Record<string, INodeType | IVersionedNodeType> = {
	[`${pkg.name}.chatMessaging`]: new ChatMessaging(),
	[`${pkg.name}.chatMessagingTrigger`]: new ChatMessagingTrigger(),
};

/** The node type n8n would load for a saved node: its type, at its saved version. */
function typeOf(node: INode): INodeType {
	const type = nodeTypes[node.type];
	if (!type) throw new Error(`${node.name}: no node type ${node.type} in this package`);
	if ('nodeVersions' in type) return type.getNodeType(node.typeVersion);
	const versions = ([] as number[]).concat(type.description.version);
	if (!versions.includes(node.typeVersion)) throw new Error(`${node.name}: ${node.type} does not serve version ${node.typeVersion}`);
	return type;
}

const parametersOf = (node: INode, description: INodeTypeDescription, withDefaults: boolean): INodeParameters =>
	NodeHelpers.getNodeParameters(description.properties, node.parameters, withDefaults, false, node, description) ?? {};

let sandbox: RunningSandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ tokens: [TOKEN], seed: 11, chats: 12, paceMs: 1 });
});
afterAll(async () => {
	await sandbox?.stop();
});

test('every node loads as saved: no parameter dropped, none missing', () => {
	expect(workflow.nodes.map((node) => node.typeVersion)).toEqual(workflow.nodes.map(() => 1));
	for (const node of workflow.nodes) {
		const { description } = typeOf(node);
		// n8n drops a saved value its description no longer shows, and flags a required one it lacks.
		expect({ node: node.name, parameters: parametersOf(node, description, false) }).toEqual({
			node: node.name,
			parameters: node.parameters,
		});
		expect({ node: node.name, issues: NodeHelpers.getNodeParametersIssues(description.properties, node, description) }).toEqual({
			node: node.name,
			issues: null,
		});
	}
});

test('its action nodes run against the sandbox and do what they were saved to do', async () => {
	const credentials = { baseUrl: sandbox.url, apiToken: TOKEN };
	await sandboxCall(sandbox.url, TOKEN, 'PATCH', '/chats/1000001', { closed: false });
	const results: Record<string, Array<Record<string, unknown>>> = {};
	for (const node of workflow.nodes.filter((n) => n.type.endsWith('.chatMessaging'))) {
		const nodeType = typeOf(node);
		const { json } = await runAction(credentials, parametersOf(node, nodeType.description, true), { nodeType });
		results[node.name] = json;
	}
	// Saved without resource, operation or Return All: the defaults (chat, Get Many, up to the limit) apply.
	expect(results['Open direct chats']).toHaveLength(5);
	expect(results['Open direct chats']!.every((chat) => chat.closed === false && chat.is_group === false)).toBe(true);
	expect(results['Send a greeting']![0]!.message_uid).toEqual(expect.any(String));
	const chat = await sandboxCall(sandbox.url, TOKEN, 'GET', '/chats/1000001');
	expect(chat.closed).toBe(true);
	expect(chat.labels).toEqual(expect.arrayContaining(['vip', 'follow-up']));
	expect(results.Workspace![0]).toHaveProperty('workspace_id');
});
