/**
 * Every tool's result against the output schema the core generates for it (`outputSchemaOf`): the built server,
 * driven by the official SDK client over stdio, runs every catalogue operation and both composites against the
 * sandbox over real HTTP, and each `structuredContent` is validated with Ajv, as the MCP SDK's client validates it
 * (draft-07) and as a 2020-12 client does. Record tools are checked with each Output choice. A schema that is wrong
 * about one member fails (the last test), so a pass here means the schemas say what the server returns.
 */

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import Ajv, { type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

import { CATALOGUE, isComposite, operationId, recordShape, type CatalogueOperation, type JsonSchema } from '@chat-messaging/core';
import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';
import { operationInputs } from '../../../test/support/operation-inputs';
import { serverEnvironment, stdioServer } from './support';
import { outputSchemaOf } from '../src/outputSchemas';
import { toolName } from '../src/tools';

const TOKEN = 'mcp-output-schema-token-5d21';

/** One validator per dialect, configured as the MCP SDK configures its own (formats checked, unknown keywords allowed). */
const validators = [new Ajv({ strict: false, allErrors: true }), new Ajv2020({ strict: false, allErrors: true })].map((ajv) => {
	addFormats(ajv);
	return ajv;
});

function compile(schema: JsonSchema): ValidateFunction[] {
	return validators.map((ajv) => ajv.compile(schema));
}

/** What is wrong with a value by a schema, in both dialects; empty when it conforms. */
function problems(schema: JsonSchema, value: unknown): string[] {
	return compile(schema).flatMap((validate) =>
		validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`),
	);
}

describe('every tool returns what its output schema says', () => {
	let sandbox: RunningSandbox;
	let client: Client;
	let listed: Tool[] = [];
	const results = new Map<string, Array<{ output: string; structured: unknown }>>();

	async function call(op: CatalogueOperation, args: Record<string, unknown>, output?: string): Promise<Record<string, any>> {
		const result = (await client.callTool({ name: toolName(op), arguments: output ? { ...args, output } : args })) as CallToolResult;
		if (result.isError) throw new Error(`${toolName(op)} failed: ${JSON.stringify(result.content)}`);
		const entry = { output: output ?? 'default', structured: result.structuredContent };
		results.set(operationId(op), [...(results.get(operationId(op)) ?? []), entry]);
		return result.structuredContent as Record<string, any>;
	}
	const byId = (id: string) => CATALOGUE.find((op) => operationId(op) === id)!;

	beforeAll(async () => {
		sandbox = await startSandbox({ tokens: [TOKEN], chats: 60, paceMs: 20, deliveredAfterMs: 40, readAfterMs: 80, seed: 5 });
		const { transport } = stdioServer([], serverEnvironment(sandbox, TOKEN, { CHAT_MESSAGING_MCP_TOOLSETS: 'all' }));
		client = new Client({ name: 'output-schema-test', version: '1.0.0' });
		await client.connect(transport);
		// Listing the tools makes the SDK's client validate each result against its outputSchema as it arrives.
		listed = (await client.listTools()).tools;
	});
	afterAll(async () => {
		await client?.close();
		await sandbox?.stop();
	});

	it('every schema is an object schema both dialects compile, each type one type (anyOf for nullable members)', () => {
		/** Where a schema lists several types: clients mapping tool schemas onto a one-type dialect (Gemini's) refuse those. */
		const typeLists = (schema: unknown, path: string): string[] =>
			Array.isArray(schema)
				? schema.flatMap((item, index) => typeLists(item, `${path}/${index}`))
				: schema && typeof schema === 'object'
					? Object.entries(schema).flatMap(([key, value]) =>
							key === 'type' && Array.isArray(value) ? [path] : key === 'enum' || key === 'const' ? [] : typeLists(value, `${path}/${key}`),
						)
					: [];
		for (const op of CATALOGUE) {
			const schema = outputSchemaOf(op);
			expect({ tool: toolName(op), type: schema.type }).toEqual({ tool: toolName(op), type: 'object' });
			expect(() => compile(schema)).not.toThrow();
			expect(typeLists(schema, toolName(op))).toEqual([]);
		}
	});

	it('lists every tool with the output schema the core generates for it', () => {
		expect(listed.map((tool) => tool.name).sort()).toEqual(CATALOGUE.map(toolName).sort());
		for (const op of CATALOGUE)
			expect({ tool: toolName(op), schema: listed.find((tool) => tool.name === toolName(op))?.outputSchema }).toEqual({
				tool: toolName(op),
				schema: outputSchemaOf(op),
			});
	});

	it('runs every tool against the sandbox, and each structuredContent validates against its schema', async () => {
		const { items: chats } = await call(byId('chat:getAll'), { limit: 5 });
		const chat = chats.find((candidate: { is_group: boolean }) => !candidate.is_group) ?? chats[0];
		const { items: teammates } = await call(byId('teammate:getAll'), {}, 'raw');
		const sent = await call(byId('message:sendToChat'), { chat_id: chat.id, text: 'schema check' });
		const upload = await call(byId('file:upload'), {
			file: { data: Buffer.from('hello').toString('base64'), filename: 'hello.txt', mimeType: 'text/plain' },
		});
		const invitation = await call(byId('invitation:create'), { email: 'newbie@example.com', role: 'agent' });
		const webhook = await call(byId('webhook:create'), { event_type: 'chat:created', url: 'http://127.0.0.1:9/hook', enabled: false });
		const inputs: Record<string, Record<string, unknown>> = {
			...operationInputs({
				chat,
				teammateEmail: teammates[0].email,
				sentMessageUid: sent.message_uid,
				uploadUid: upload.uid,
				invitationUserId: invitation.user_id,
				webhookId: webhook.id,
				fileData: (bytes) => Buffer.from(bytes).toString('base64'),
			}),
			'chat:getAll': { closed: false, limit: 3 },
			'message:getAll': { chat_id: chat.id, limit: 2 },
		};
		expect(CATALOGUE.map(operationId).filter((id) => !(id in inputs))).toEqual([]);
		for (const op of CATALOGUE) {
			const args = inputs[operationId(op)]!;
			// A record tool once per Output choice; a choice that reads (get, list) is run again with the next.
			if (!isComposite(op) && recordShape(op) && op.effect === 'read') {
				await call(op, args, 'simplified');
				await call(op, args, 'raw');
				await call(op, { ...args, fields: ['name', 'text', 'status'] }, 'selected');
			} else await call(op, args);
		}
		// A list part with more to follow carries its cursor, and the schema allows it.
		expect((await call(byId('chat:getAll'), { limit: 2 })).nextCursor).toEqual(expect.any(String));

		const findings: string[] = [];
		for (const op of CATALOGUE) {
			const runs = results.get(operationId(op)) ?? [];
			if (!runs.length) findings.push(`${toolName(op)}: never ran`);
			for (const { output, structured } of runs)
				for (const problem of problems(outputSchemaOf(op), structured)) findings.push(`${toolName(op)} (${output}): ${problem}`);
		}
		expect(findings).toEqual([]);
	});

	it('a schema wrong about one member fails on the result it describes', async () => {
		const op = CATALOGUE.find((candidate) => operationId(candidate) === 'chat:get')!;
		const { items } = await call(byId('chat:getAll'), { limit: 1 });
		const chat = await call(op, { chat_id: items[0].id }, 'raw');
		const schema = outputSchemaOf(op) as { properties: Record<string, JsonSchema> };
		expect(problems(schema, chat)).toEqual([]);
		const wrongId = { ...schema, properties: { ...schema.properties, id: { type: 'string' } } };
		expect(problems(wrongId, chat).join('\n')).toContain('/id must be string');
	});
});
