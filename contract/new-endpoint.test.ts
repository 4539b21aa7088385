/**
 * Adding an endpoint is one descriptor: a fixture operation added to a copy of the catalogue shows up in the
 * n8n action node's version 2 (not in version 1, whose operations are fixed), in the Node-RED dialog and help,
 * in the client (methods and typings), in the MCP server's tool list (listed and called through the official
 * SDK client), in the OpenAPI document (its answer from the descriptor) and in the UI contract (as an addition,
 * which passes), with no other edit.
 */
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { COMPOSITES, Executor, RESOURCES, type OperationDescriptor, type ResourceDescriptor } from '@chat-messaging/core';
import { chatId, field } from '@chat-messaging/core';
import { createClient, fetchTransport, realTiming } from '@chat-messaging/client';
import { overridesFor } from './catalogue-overrides';
import { compareContracts, currentContract, loadEditor, readContract } from './contract';
import { clientTypes } from '../packages/client/scripts/types';
import { catalogueTools } from '../packages/mcp-server/src/tools';
import { createServer as createMcpServer } from '../packages/mcp-server/src/revisions/2025-11-25';
import { buildProperties, V1_OPERATIONS } from '../packages/n8n/nodes/ChatMessaging/v1/properties';
import { chatMessagingV2Properties } from '../packages/n8n/nodes/ChatMessaging/v2/actions/versionDescription';
import { editorHelp, editorHtml, editorMessages } from '../packages/node-red/src/generate';
import { buildOpenApi } from '../packages/openapi/src/openapi';

/** Named to sort first: n8n lists operations alphabetically, and what a node opens on must not move. */
const archive: OperationDescriptor = {
	resource: 'chat',
	operation: 'archive',
	name: 'Archive',
	action: 'Archive a chat',
	description: 'Move the chat out of the inbox into the archive',
	method: 'PUT',
	path: '/chats/{chat_id}/archive',
	answer: { one: 'Chat' },
	effect: 'idempotent',
	fields: [chatId, field('body', 'until', 'Archived Until', 'dateTime', 'When the chat returns; empty archives it for good')],
};
const withArchive: readonly ResourceDescriptor[] = RESOURCES.map((r) =>
	r.key === 'chat' ? { ...r, operations: [...r.operations, archive] } : r,
);

const operationOptions = (properties: INodeProperties[], resource: string): INodePropertyOptions[] =>
	properties
		.filter((p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource))
		.flatMap((p) => p.options as INodePropertyOptions[]);
const shownFor = (properties: INodeProperties[], operation: string): INodeProperties[] =>
	properties.filter((p) => p.displayOptions?.show?.operation?.includes(operation));

test("the n8n action node's version 2 offers it, with its fields", () => {
	const properties = chatMessagingV2Properties(withArchive);
	expect(operationOptions(properties, 'chat').find((o) => o.value === 'archive')).toMatchObject({
		name: 'Archive',
		action: 'Archive a chat',
	});
	const shown = shownFor(properties, 'archive');
	expect(shown.map((p) => p.name)).toEqual(expect.arrayContaining(['chat_id', 'additionalFields']));
	const additional = shown.find((p) => p.name === 'additionalFields')!;
	expect((additional.options as INodeProperties[]).map((o) => [o.name, o.type])).toEqual([['until', 'dateTime']]);
	expect(shownFor(chatMessagingV2Properties(), 'archive')).toEqual([]);
});

test('version 1 does not grow: its operations are the fixed list the UI contract holds', () => {
	const properties = buildProperties(withArchive);
	expect(operationOptions(properties, 'chat').map((o) => o.value)).not.toContain('archive');
	expect(shownFor(properties, 'archive')).toEqual([]);
	expect(properties).toEqual(buildProperties());

	const saved = readContract().n8n.nodes['@chat-messaging/n8n-nodes-chat-messaging.chatMessaging']!.versions['1']!;
	const contracted = Object.fromEntries(
		saved.filter((p) => p.name === 'operation').map((p) => [p.show!.resource![0], [...(p.values as string[])].sort()]),
	);
	const fixed = Object.fromEntries(Object.entries(V1_OPERATIONS).map(([resource, operations]) => [resource, [...operations].sort()]));
	expect(fixed).toEqual(contracted);
});

test('the Node-RED dialog and help offer it, with its fields and their rules', () => {
	const html = editorHtml(withArchive);
	const { catalogue, definitions } = loadEditor(html);
	const op = catalogue.resources.find((r) => r.key === 'chat')?.operations.find((o) => o.id === 'chat:archive');
	expect(op?.fields.map((f) => [f.name, f.kind, f.required])).toEqual([
		['chat_id', 'integer', true],
		['until', 'dateTime', false],
	]);
	expect(html).toContain('id="cm-op-chat-archive"');
	expect(html).toContain('id="node-input-cm-chat-archive-until"');
	expect(editorMessages(withArchive)['chat-messaging'].fields.chat!.archive).toMatchObject({ until: { label: 'Archived Until' } });
	expect(editorHelp(withArchive)).toContain('<code>PUT /chats/{chat_id}/archive</code>');
	const validate = definitions['chat-messaging']!.defaults!.fields!.validate as (this: object, v: object) => unknown;
	expect(validate.call({ resource: 'chat', operation: 'archive' }, { chat_id: { value: 'x', type: 'str' } })).toEqual([
		'Chat ID: must be a whole number',
	]);
});

test('the OpenAPI document describes it, its answer from the descriptor', () => {
	const paths = buildOpenApi('0.0.0', withArchive).paths as Record<string, Record<string, Record<string, unknown>>>;
	const put = paths['/chats/{chat_id}/archive']?.put as {
		operationId: string;
		requestBody: { content: { 'application/json': { schema: { properties: Record<string, unknown> } } } };
		responses: { '200': { content: { 'application/json': { schema: { properties: { data: unknown } } } } } };
	};
	expect(put.operationId).toBe('chat_archive');
	expect(Object.keys(put.requestBody.content['application/json'].schema.properties)).toEqual(['until']);
	expect(put.responses['200'].content['application/json'].schema.properties.data).toEqual({ $ref: '#/components/schemas/Chat' });
	const unanswered = buildOpenApi(
		'0.0.0',
		RESOURCES.map((r) => (r.key === 'chat' ? { ...r, operations: [...r.operations, { ...archive, answer: undefined }] } : r)),
	);
	expect((unanswered.paths as typeof paths)['/chats/{chat_id}/archive']!.put!.responses).toMatchObject({
		'200': { content: { 'application/json': { schema: { properties: { data: { description: 'Not shown by the spec' } } } } } },
	});
	expect((buildOpenApi('0.0.0').paths as typeof paths)['/chats/{chat_id}/archive']).toBeUndefined();
});

/** A loopback service answering the archive: what the client and the MCP tool send, over real HTTP. */
async function archiveService(): Promise<{
	url: string;
	requests: Array<{ method: string; url: string; body: string }>;
	close: () => Promise<void>;
}> {
	const requests: Array<{ method: string; url: string; body: string }> = [];
	const server = createHttpServer((request: IncomingMessage, response) => {
		let body = '';
		request.on('data', (chunk: Buffer) => (body += chunk.toString()));
		request.on('end', () => {
			requests.push({ method: request.method ?? '', url: request.url ?? '', body });
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end(
				JSON.stringify({
					status: 'ok',
					data: {
						id: 7,
						name: 'Archived chat',
						jid: '14155550123@c.us',
						is_group: false,
						closed: false,
						read: true,
						labels: [],
						ai_autoresponse_enabled: false,
						chatapp_account_id: 'acc-1',
						chat_url: 'https://app.example.com/chats/7',
						created_timestamp: '2026-01-02 03:04:05 +0000',
						unattended: false,
						photo: '',
					},
				}),
			);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return { url, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

test('the client has it as a method, in its typings too, and it sends the request', async () => {
	expect(clientTypes(withArchive)).toMatch(/\tarchive\(input: \{[^}]*chat_id: number[^}]*until\?: string/);
	expect(clientTypes()).not.toMatch(/\tarchive\(/);
	const service = await archiveService();
	try {
		const client = createClient({ baseUrl: service.url, token: 'fixture-token', transport: fetchTransport }, withArchive);
		await expect(client.chats!.archive!({ chat_id: 7, until: '2030-01-02T03:04:05Z' })).resolves.toMatchObject({
			id: 7,
			name: 'Archived chat',
		});
		expect(service.requests).toEqual([{ method: 'PUT', url: '/chats/7/archive', body: JSON.stringify({ until: '2030-01-02T03:04:05Z' }) }]);
		expect(createClient({ baseUrl: service.url, token: 't' }).chats!.archive).toBeUndefined();
	} finally {
		await service.close();
	}
});

test("the MCP server lists it as a tool, and the SDK's client calls it", async () => {
	const operations = [...withArchive.flatMap((r) => r.operations), ...COMPOSITES];
	expect(catalogueTools().some((tool) => tool.name === 'chat_archive')).toBe(false);
	const service = await archiveService();
	const executor = new Executor({ baseUrl: service.url, token: 'fixture-token', transport: fetchTransport, timing: realTiming });
	const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
	const server = createMcpServer({ executor, version: '0.0.0', operations });
	const client = new Client({ name: 'new-endpoint-test', version: '0.0.0' });
	try {
		await server.connect(serverSide);
		await client.connect(clientSide);
		const { tools } = await client.listTools();
		const tool = tools.find((candidate) => candidate.name === 'chat_archive');
		expect(tool).toMatchObject({ annotations: { readOnlyHint: false, idempotentHint: true } });
		expect(tool?.inputSchema).toMatchObject({
			required: ['chat_id'],
			properties: { chat_id: { type: 'integer' }, until: { type: 'string' } },
		});
		const result = await client.callTool({ name: 'chat_archive', arguments: { chat_id: 7 } });
		expect(result.isError).toBeFalsy();
		expect(service.requests.map((request) => `${request.method} ${request.url}`)).toEqual(['PUT /chats/7/archive']);
	} finally {
		await client.close();
		await server.close();
		await service.close();
	}
});

test('the UI contract records it as an addition to version 2 and the Node-RED node, which passes (what a node opens on stays)', () => {
	const diff = compareContracts(currentContract(overridesFor(RESOURCES)), currentContract(overridesFor(withArchive)));
	expect(diff.breaking).toEqual([]);
	expect(diff.additions).toEqual([
		"chatMessaging v2: option 'archive' of 'operation' (shown for resource 'chat')",
		// The tool variant describes it to a model from the same descriptor.
		"chatMessaging v2: parameter 'toolDescription' (shown for @tool true, resource 'chat', operation 'archive')",
		"chatMessaging v2: parameter 'chat_id' (shown for resource 'chat', operation 'archive')",
		"chatMessaging v2: parameter 'additionalFields' (shown for resource 'chat', operation 'archive')",
		"chatMessaging v2.1: option 'archive' of 'operation' (shown for resource 'chat')",
		"chatMessaging v2.1: parameter 'toolDescription' (shown for @tool true, resource 'chat', operation 'archive')",
		"chatMessaging v2.1: parameter 'chat_id' (shown for resource 'chat', operation 'archive')",
		"chatMessaging v2.1: parameter 'additionalFields' (shown for resource 'chat', operation 'archive')",
		"chat-messaging: operation 'chat:archive'",
	]);
});
