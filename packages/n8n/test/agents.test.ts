/**
 * Version 2's additions for agents, as n8n resolves them (n8n-workflow's own getNodeParameters and
 * getToolDescriptionForNode, the functions n8n runs) and as the node runs them against the sandbox:
 * the tool variant's description per operation, the Output choice, the tool's small list limit, and
 * that a node saved as version 2 (no Output, no tool limit stored) keeps its Raw output and its limit.
 */
import { NodeHelpers } from 'n8n-workflow';
import type { INode, INodeParameters, INodeType, INodeTypeDescription } from 'n8n-workflow';

import {
	compositeToolDescription,
	findOperation,
	RECORD_SHAPES,
	SEND_AND_WAIT_FOR_REPLY_COMPOSITE,
	sendOperation,
	TOOL_LIST_LIMIT,
	toolDescription,
} from '@chat-messaging/core';
import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';
import { ChatMessaging } from '../nodes/ChatMessaging/ChatMessaging.node';
import type { Credentials } from './support/n8n-context';
import { actionError, runAction } from './support/run-action';

const TOKEN = 'n8n-agents-test-token-7c2';
const versioned = new ChatMessaging();
const v21: INodeType = versioned.getNodeType(2.1);
const description = v21.description;

/** The node as n8n holds it, regular or as its tool variant (`…Tool`), with its saved parameters filled in by n8n. */
function resolve(saved: INodeParameters, typeVersion: number, tool: boolean): { node: INode; typeDescription: INodeTypeDescription } {
	const typeDescription = { ...description, name: `chatMessaging${tool ? 'Tool' : ''}` } as INodeTypeDescription;
	const node: INode = { id: 'n', name: 'Chat Messaging', type: typeDescription.name, typeVersion, position: [0, 0], parameters: saved };
	node.parameters = NodeHelpers.getNodeParameters(description.properties, saved, true, false, node, typeDescription) ?? {};
	return { node, typeDescription };
}

describe('the tool variant, as n8n resolves it', () => {
	it('describes each operation with the catalogue\'s tool description, not "<action> in Chat Messaging"', () => {
		for (const [saved, op] of [
			[{ resource: 'chat', operation: 'close' }, findOperation('chat:close')],
			[{ resource: 'chat', operation: 'getAll' }, findOperation('chat:getAll')],
			[{ resource: 'label', operation: 'add' }, findOperation('label:add')],
			[{ resource: 'message', operation: 'send', sendTo: 'phone' }, sendOperation('phone')],
			[{ resource: 'message', operation: 'send', sendTo: 'jid' }, sendOperation('jid')],
		] as const) {
			for (const typeVersion of [2, 2.1]) {
				const { node, typeDescription } = resolve({ ...saved }, typeVersion, true);
				const text = NodeHelpers.getToolDescriptionForNode(node, { description: typeDescription } as INodeType);
				expect(text).toBe(toolDescription(op));
			}
		}
	});

	it("every operation of the tool variant has the catalogue's description, the composites' included", () => {
		const { node, typeDescription } = resolve({ resource: 'message', operation: 'sendAndWaitForReply' }, 2.1, true);
		expect(NodeHelpers.getToolDescriptionForNode(node, { description: typeDescription } as INodeType)).toBe(
			compositeToolDescription(SEND_AND_WAIT_FOR_REPLY_COMPOSITE),
		);
		const choices = description.properties.filter((property) => property.name === 'operation');
		expect(choices.length).toBeGreaterThan(5);
		for (const choice of choices) {
			for (const resource of choice.displayOptions!.show!.resource as string[]) {
				for (const { value } of choice.options as Array<{ value: string }>) {
					const resolved = resolve({ resource, operation: value }, 2.1, true).node.parameters;
					expect([resource, value, typeof resolved.toolDescription, String(resolved.toolDescription).length > 40]).toEqual([
						resource,
						value,
						'string',
						true,
					]);
				}
			}
		}
	});

	it('a description the user wrote stays theirs', () => {
		const { node, typeDescription } = resolve({ resource: 'chat', operation: 'close', toolDescription: 'Close it' }, 2.1, true);
		expect(NodeHelpers.getToolDescriptionForNode(node, { description: typeDescription } as INodeType)).toBe('Close it');
	});

	it('the regular node shows no tool description', () => {
		const { node } = resolve({ resource: 'chat', operation: 'close' }, 2.1, false);
		expect(node.parameters.toolDescription).toBeUndefined();
	});

	it('version 2.1 starts lists of a tool at a small limit; the regular node and version 2 keep Limit 50', () => {
		const list = { resource: 'chat', operation: 'getAll' };
		expect(resolve(list, 2.1, true).node.parameters).toMatchObject({ toolLimit: TOOL_LIST_LIMIT });
		expect(resolve(list, 2.1, true).node.parameters.limit).toBeUndefined();
		for (const [version, tool] of [
			[2.1, false],
			[2, false],
			[2, true],
		] as const) {
			expect(resolve(list, version, tool).node.parameters).toMatchObject({ limit: 50 });
			expect(resolve(list, version, tool).node.parameters.toolLimit).toBeUndefined();
		}
	});

	it('Output: Simplified for new nodes (2.1), Raw for a node saved as version 2', () => {
		const get = { resource: 'chat', operation: 'get' };
		expect(resolve(get, 2.1, false).node.parameters.output).toBe('simplified');
		expect(resolve(get, 2.1, true).node.parameters.output).toBe('simplified');
		expect(resolve(get, 2, false).node.parameters.output).toBe('raw');
		expect(resolve({ resource: 'label', operation: 'get' }, 2.1, false).node.parameters.output).toBeUndefined();
	});
});

describe('Output and deletes against the sandbox', () => {
	let sandbox: RunningSandbox;
	let credentials: Credentials;
	beforeAll(async () => {
		sandbox = await startSandbox({ tokens: [TOKEN], seed: 4, chats: 15, paceMs: 20 });
		credentials = { baseUrl: sandbox.url, apiToken: TOKEN };
	});
	afterAll(async () => {
		await sandbox?.stop();
	});
	const run = (parameters: Record<string, unknown>, typeVersion = 2.1) =>
		runAction(credentials, parameters, { nodeType: versioned.getNodeType(typeVersion), typeVersion });

	it('Simplified: about ten fields per chat, the id included', async () => {
		const { json } = await run({ resource: 'chat', operation: 'getAll', limit: 3, output: 'simplified' });
		expect(json).toHaveLength(3);
		for (const chat of json) expect(Object.keys(chat)).toEqual(RECORD_SHAPES.chat.simplified.filter((name) => name in chat));
		expect(json.every((chat) => typeof chat.id === 'number')).toBe(true);
	});

	it('a node saved as version 2 (no Output stored) still outputs every field', async () => {
		const { json } = await run({ resource: 'chat', operation: 'getAll', limit: 2 }, 2);
		expect(Object.keys(json[0])).toEqual(expect.arrayContaining(['photo', 'created_timestamp', 'chatapp_account_id']));
	});

	it('Selected Fields: the named fields and the ids; none named is an error naming the parameter, before any request', async () => {
		const { json } = await run({ resource: 'chat', operation: 'getAll', limit: 2, output: 'selected', outputFields: 'name, labels' });
		expect(Object.keys(json[0]).sort()).toEqual(['id', 'labels', 'name']);
		const { error, requests } = await actionError(
			credentials,
			{ resource: 'chat', operation: 'getAll', output: 'selected', outputFields: ' ' },
			{ nodeType: v21, typeVersion: 2.1 },
		);
		expect(error.message).toMatch(/Fields/);
		expect(requests).toHaveLength(0);
		// An Output value no version offers (a workflow edited by hand): the core's words, before any request.
		const unknown = await actionError(
			credentials,
			{ resource: 'chat', operation: 'get', chat_id: 1, output: 'short' },
			{ nodeType: v21, typeVersion: 2.1 },
		);
		expect(unknown.error.message).toMatch(/must be one of simplified, raw, selected, got "short"/);
		expect(unknown.requests).toHaveLength(0);
	});

	it("a delete outputs { deleted: true } from version 2.1; version 2 keeps the service's answer", async () => {
		const bytesUpload = async () =>
			(
				await runAction(
					credentials,
					{ resource: 'file', operation: 'upload', binaryPropertyName: 'data', output: 'raw' },
					{
						nodeType: v21,
						typeVersion: 2.1,
						items: [
							{ json: {}, binary: { data: { data: Buffer.from('hi').toString('base64'), fileName: 'hi.txt', mimeType: 'text/plain' } } },
						],
					},
				)
			).json[0].uid as string;
		const a = await bytesUpload();
		const b = await bytesUpload();
		expect((await run({ resource: 'file', operation: 'delete', uid: { __rl: true, mode: 'id', value: a } })).json).toEqual([
			{ deleted: true },
		]);
		const old = (await run({ resource: 'file', operation: 'delete', uid: { __rl: true, mode: 'id', value: b } }, 2)).json[0];
		expect(old).not.toEqual({ deleted: true });
		expect(old.uid).toBe(b);
	});
});

describe("the tool variant shows no receiver's secret", () => {
	const N8N_SECRET = '9f1c2b7d4e6a8f0c3b5d7e9a1c2b4d6f8e0a2c4d';
	const NODE_RED_SECRET = 'c0ffee42'.repeat(6);
	const receivers = [
		`http://127.0.0.1:9/webhook/4b1e6a52-0c3d-4f7e-9a8b-2d5c6e7f8a9b/chat-messaging?secret=${N8N_SECRET}`,
		`http://127.0.0.1:9/chat-messaging/events/n1/${NODE_RED_SECRET}`,
	];
	let sandbox: RunningSandbox;
	let credentials: Credentials;
	let ids: number[];
	beforeAll(async () => {
		sandbox = await startSandbox({ tokens: [TOKEN], seed: 5, chats: 1, paceMs: 5 });
		credentials = { baseUrl: sandbox.url, apiToken: TOKEN };
		ids = [];
		for (const [index, url] of receivers.entries()) {
			const response = await fetch(`${sandbox.url}/webhooks`, {
				method: 'POST',
				headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
				body: JSON.stringify({ url, event_type: index === 0 ? 'message:received:new' : 'chat:created' }),
			});
			ids.push(((await response.json()) as { data: { id: number } }).data.id);
		}
	});
	afterAll(async () => {
		await sandbox?.stop();
	});

	it.each([1, 2, 2.1])(
		'version %s: as a tool, webhook results mask the secret; the regular node outputs the address as the service holds it',
		async (typeVersion) => {
			const nodeType = versioned.getNodeType(typeVersion);
			const run = (parameters: Record<string, unknown>, tool: boolean) =>
				runAction(credentials, parameters, { nodeType, typeVersion, tool });
			const webhookId = typeVersion === 1 ? ids[1] : { __rl: true, mode: 'id', value: ids[1] };
			const asTool = [
				...(await run({ resource: 'webhook', operation: 'getAll' }, true)).json,
				...(await run({ resource: 'webhook', operation: 'get', id: webhookId }, true)).json,
			];
			expect(asTool.map((hook) => hook.url)).toEqual([
				'http://127.0.0.1:9/webhook/…/chat-messaging?…',
				'http://127.0.0.1:9/chat-messaging/events/n1/…',
				'http://127.0.0.1:9/chat-messaging/events/n1/…',
			]);
			expect(JSON.stringify(asTool)).not.toMatch(new RegExp(`${N8N_SECRET}|${NODE_RED_SECRET}`));
			const regular = (await run({ resource: 'webhook', operation: 'getAll' }, false)).json;
			expect(regular.map((hook) => hook.url)).toEqual(receivers);
		},
	);
});
