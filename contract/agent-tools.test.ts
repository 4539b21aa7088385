/**
 * contract/n8n-agent-tools.json holds the tools a model received from n8n's AI Agent in the agents e2e
 * (`npm run test:e2e:n8n-agents`, which compares every run with it; UPDATE_AGENT_TOOLS=1 rewrites it).
 * This test keeps the held file and the catalogue together: each tool's description is the catalogue's
 * tool description of its operation, each parameter carries its field's description and type.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { findOperation, sendOperation, toolDescription, toolFieldDescription, type OperationDescriptor } from '@chat-messaging/core';

interface HeldTool {
	name: string;
	description: string;
	parameters: { properties: Record<string, { type: string; description: string }>; required: string[] };
}

const held = (JSON.parse(readFileSync(join(__dirname, 'n8n-agent-tools.json'), 'utf8')) as { tools: HeldTool[] }).tools;

/** The tool nodes of the e2e, by the name n8n gives the model. */
const OPERATIONS: Record<string, OperationDescriptor> = {
	Send_a_message_in_Chat_Messaging: sendOperation('phone'),
	Get_many_chats_in_Chat_Messaging: findOperation('chat:getAll'),
	Add_labels_to_a_chat_in_Chat_Messaging: findOperation('label:add'),
	Close_a_chat_in_Chat_Messaging: findOperation('chat:close'),
};

test('the held tools are the four tools of the agents e2e', () => {
	expect(held.map((tool) => tool.name).sort()).toEqual(Object.keys(OPERATIONS).sort());
});

test.each(Object.entries(OPERATIONS))("%s: the catalogue's description and typed, described parameters", (name, op) => {
	const tool = held.find((candidate) => candidate.name === name)!;
	expect(tool.description).toBe(toolDescription(op));
	for (const [parameter, schema] of Object.entries(tool.parameters.properties)) {
		const field = op.fields.find((candidate) => candidate.name === parameter);
		expect(field).toBeDefined();
		expect(schema.description).toBe(toolFieldDescription(field!));
		expect(schema.type).toBe(field!.kind === 'integer' ? 'number' : 'string');
	}
	expect(tool.parameters.required.sort()).toEqual(Object.keys(tool.parameters.properties).sort());
});
