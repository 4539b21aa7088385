/**
 * The workflows of the agents e2e, as n8n stores them: AI Agents (webhook in, OpenAI Chat Model
 * pointed at the stub, this package's tools) and an MCP Server Trigger with this package's tools.
 * The tools' `$fromAI` parameters carry the catalogue's own field descriptions and types, as a
 * builder filling them from the node's parameter help would.
 */
import { findOperation, toolFieldDescription, type FieldDescriptor } from '@chat-messaging/core';

import { CREDENTIAL_TYPE, PACKAGE_NAME } from '../n8n/workflows';
import { burstWorkflow } from './burst-responder';

export const TOOL_NODE_TYPE = `${PACKAGE_NAME}.chatMessagingTool`;
/** Tools are built with the version new nodes get. */
export const TOOL_TYPE_VERSION = 2.1;
export const CHAT_CREDENTIAL = { id: 'e2eAgentChatCred', name: 'Chat Messaging sandbox (agents)' } as const;
export const OPENAI_CREDENTIAL = { id: 'e2eAgentOpenAiSt', name: 'OpenAI stub' } as const;
/** A second workspace of the sandbox (another token): the Simple Memory workflow's, so that the responder never sees its chats. */
export const SECOND_WORKSPACE_CREDENTIAL = { id: 'e2eAgentChatCrd2', name: 'Chat Messaging sandbox (second workspace)' } as const;

export const AGENT_WORKFLOWS = {
	send: { id: 'e2eAgentSendPhon', path: 'agent-send' },
	label: { id: 'e2eAgentFindLabl', path: 'agent-label' },
	close: { id: 'e2eAgentCloseCht', path: 'agent-close' },
} as const;
export const MCP_WORKFLOW = { id: 'e2eMcpServerTrig', path: 'chat-messaging-e2e' } as const;
/** An AI Agent whose Close tool is gated by this node's human-in-the-loop tool (n8n's Send and Wait). */
export const HITL_WORKFLOW = { id: 'e2eAgentHitlRevw', path: 'agent-hitl' } as const;
export const HITL_NODE_TYPE = `${PACKAGE_NAME}.chatMessagingHitlTool`;
/** Who approves the agent's tool calls: the review message goes to this number. */
export const HITL_APPROVER_PHONE = '+4915160000042';

/** Plain credential data (`n8n import:credentials` encrypts it). Holds the token: write it, import it, delete it. */
export function credentials(sandboxUrl: string, token: string, stubUrl: string, secondToken: string) {
	return [
		{ ...CHAT_CREDENTIAL, type: CREDENTIAL_TYPE, data: { baseUrl: sandboxUrl, apiToken: token } },
		{ ...SECOND_WORKSPACE_CREDENTIAL, type: CREDENTIAL_TYPE, data: { baseUrl: sandboxUrl, apiToken: secondToken } },
		{ ...OPENAI_CREDENTIAL, type: 'openAiApi', data: { apiKey: 'stub-key-not-secret', url: stubUrl, header: false } },
	];
}

type FromAiType = 'string' | 'number' | 'boolean';

/** `$fromAI(key, description, type)` with the catalogue's description of the field. */
function fromAi(field: FieldDescriptor, type: FromAiType = field.kind === 'integer' ? 'number' : 'string'): string {
	const description = toolFieldDescription(field).replace(/`/g, "'");
	return `={{ $fromAI('${field.name}', \`${description}\`, '${type}') }}`;
}

const fieldOf = (operation: string, name: string): FieldDescriptor => {
	const field = findOperation(operation).fields.find((candidate) => candidate.name === name);
	if (!field) throw new Error(`${operation} has no field ${name}`);
	return field;
};

const chatLocator = () => ({ __rl: true, mode: 'id', value: fromAi(fieldOf('chat:get', 'chat_id')) });

interface Node {
	id: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	webhookId?: string;
}

/** The tools, named as n8n names a new tool node ("<action> in Chat Messaging"). */
export const TOOLS = {
	send: {
		name: 'Send a message in Chat Messaging',
		parameters: () => ({
			resource: 'message',
			operation: 'send',
			sendTo: 'phone',
			phone: fromAi(fieldOf('message:sendToPhone', 'phone')),
			text: fromAi(fieldOf('message:sendToPhone', 'text')),
			options: {},
		}),
	},
	getChats: {
		name: 'Get many chats in Chat Messaging',
		parameters: () => ({ resource: 'chat', operation: 'getAll', filters: { phone: fromAi(fieldOf('chat:getAll', 'phone')) } }),
	},
	addLabels: {
		name: 'Add labels to a chat in Chat Messaging',
		parameters: () => ({ resource: 'label', operation: 'add', chat_id: chatLocator(), labels: fromAi(fieldOf('label:add', 'labels')) }),
	},
	close: {
		name: 'Close a chat in Chat Messaging',
		parameters: () => ({ resource: 'chat', operation: 'close', chat_id: chatLocator() }),
	},
} as const;

function toolNode(key: keyof typeof TOOLS, index: number): Node {
	return {
		id: `tool-${key}`,
		name: TOOLS[key].name,
		type: TOOL_NODE_TYPE,
		typeVersion: TOOL_TYPE_VERSION,
		position: [200 + index * 160, 300],
		parameters: TOOLS[key].parameters(),
		credentials: { [CREDENTIAL_TYPE]: { ...CHAT_CREDENTIAL } },
	};
}

const toolConnections = (keys: Array<keyof typeof TOOLS>, target: string) =>
	Object.fromEntries(keys.map((key) => [TOOLS[key].name, { ai_tool: [[{ node: target, type: 'ai_tool', index: 0 }]] }]));

/** Webhook (prompt in the body) → AI Agent ← the stub model: how every agent workflow here starts. */
function agentHead(webhookId: string, path: string, responseMode: 'lastNode' | 'onReceived') {
	return [
		{
			id: 'webhook',
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId,
			parameters: { httpMethod: 'POST', path, responseMode, options: {} },
		},
		{
			id: 'agent',
			name: 'AI Agent',
			type: '@n8n/n8n-nodes-langchain.agent',
			typeVersion: 3.1,
			position: [300, 0],
			parameters: { promptType: 'define', text: '={{ $json.body.prompt }}', options: {} },
		},
		{
			id: 'model',
			name: 'OpenAI Chat Model',
			type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
			typeVersion: 1.3,
			position: [0, 300],
			parameters: { model: { __rl: true, mode: 'id', value: 'stub-model' }, responsesApiEnabled: false, options: {} },
			credentials: { openAiApi: { ...OPENAI_CREDENTIAL } },
		},
	];
}

const AGENT_HEAD_CONNECTIONS = {
	Webhook: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
	'OpenAI Chat Model': { ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]] },
};

/** Webhook (prompt in the body) → AI Agent with the stub model and every tool; answers with the agent's output. */
function agentWorkflow(id: string, path: string, webhookId: string) {
	const tools: Array<keyof typeof TOOLS> = ['send', 'getChats', 'addLabels', 'close'];
	return {
		id,
		name: `E2E agent ${path}`,
		active: false,
		settings: { executionOrder: 'v1' },
		pinData: {},
		nodes: [...agentHead(webhookId, path, 'lastNode'), ...tools.map(toolNode)],
		connections: {
			...AGENT_HEAD_CONNECTIONS,
			...toolConnections(tools, 'AI Agent'),
		},
	};
}

/**
 * Webhook (answers at once) → AI Agent with the stub model, whose only tool is Close gated by this
 * node's human-in-the-loop variant: the agent's call to Close sends a review message and waits.
 */
function hitlWorkflow(webhookId: string) {
	const close = toolNode('close', 0);
	const review = 'Ask a person first';
	return {
		id: HITL_WORKFLOW.id,
		name: 'E2E agent with human review',
		active: false,
		settings: { executionOrder: 'v1' },
		pinData: {},
		nodes: [
			...agentHead(webhookId, HITL_WORKFLOW.path, 'onReceived'),
			{
				id: 'review',
				name: review,
				type: HITL_NODE_TYPE,
				typeVersion: TOOL_TYPE_VERSION,
				position: [300, 300],
				parameters: {
					sendTo: 'phone',
					phone: HITL_APPROVER_PHONE,
					approvalOptions: { values: { approvalType: 'double' } },
					options: {},
				},
				credentials: { [CREDENTIAL_TYPE]: { ...CHAT_CREDENTIAL } },
			},
			{ ...close, position: [300, 500] as [number, number] },
		],
		connections: {
			...AGENT_HEAD_CONNECTIONS,
			[close.name]: { ai_tool: [[{ node: review, type: 'ai_tool', index: 0 }]] },
			[review]: { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
		},
	};
}

const WEBHOOK_IDS = {
	send: 'c6a1e5a0-3b7e-4c55-9f41-0d2f0e6b1a01',
	label: 'c6a1e5a0-3b7e-4c55-9f41-0d2f0e6b1a02',
	close: 'c6a1e5a0-3b7e-4c55-9f41-0d2f0e6b1a03',
	mcp: 'c6a1e5a0-3b7e-4c55-9f41-0d2f0e6b1a04',
	hitl: 'c6a1e5a0-3b7e-4c55-9f41-0d2f0e6b1a05',
};

/** The workflow of n8n's own defaults after this package's trigger (simple-memory.ts). */
export const SIMPLE_MEMORY_WORKFLOW = { id: 'e2eAgentSimplMem', webhookId: 'c6a1e5a0-3b7e-4c55-9f41-0d2f0e6b1a07' } as const;

/**
 * Chat Messaging Trigger → AI Agent (the stub model) with n8n's Simple Memory, both left at their defaults: the
 * agent's prompt is the item's chatInput and the memory's session the item's sessionId → Send into the chat. On
 * the sandbox's second workspace, so the responder's trigger never starts on its chats.
 */
function simpleMemoryWorkflow() {
	return {
		id: SIMPLE_MEMORY_WORKFLOW.id,
		name: 'E2E AI Agent and Simple Memory at their defaults after the Chat Messaging Trigger',
		active: false,
		settings: { executionOrder: 'v1' },
		pinData: {},
		nodes: [
			{
				id: 'trigger',
				name: 'Chat Messaging Trigger',
				type: `${PACKAGE_NAME}.chatMessagingTrigger`,
				typeVersion: 1,
				position: [0, 0],
				webhookId: SIMPLE_MEMORY_WORKFLOW.webhookId,
				parameters: { events: ['message:received:new'] },
				credentials: { [CREDENTIAL_TYPE]: { ...SECOND_WORKSPACE_CREDENTIAL } },
			},
			{ id: 'agent', name: 'AI Agent', type: '@n8n/n8n-nodes-langchain.agent', typeVersion: 3.1, position: [300, 0], parameters: {} },
			{ ...agentHead('', '', 'onReceived')[2], position: [200, 300] as [number, number] },
			{
				id: 'memory',
				name: 'Simple Memory',
				type: '@n8n/n8n-nodes-langchain.memoryBufferWindow',
				typeVersion: 1.3,
				position: [400, 300],
				parameters: {},
			},
			{
				id: 'send',
				name: 'Send the Reply',
				type: `${PACKAGE_NAME}.chatMessaging`,
				typeVersion: 2.2,
				position: [600, 0],
				parameters: {
					resource: 'message',
					operation: 'send',
					sendTo: 'chat',
					chat_id: { __rl: true, mode: 'id', value: "={{ $('Chat Messaging Trigger').item.json.chat_id }}" },
					text: '={{ $json.output }}',
					options: {},
				},
				credentials: { [CREDENTIAL_TYPE]: { ...SECOND_WORKSPACE_CREDENTIAL } },
			},
		],
		connections: {
			'Chat Messaging Trigger': { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
			'AI Agent': { main: [[{ node: 'Send the Reply', type: 'main', index: 0 }]] },
			'OpenAI Chat Model': { ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]] },
			'Simple Memory': { ai_memory: [[{ node: 'AI Agent', type: 'ai_memory', index: 0 }]] },
		},
	};
}

/** MCP Server Trigger with Send and Get many chats attached. */
function mcpWorkflow() {
	const tools: Array<keyof typeof TOOLS> = ['send', 'getChats'];
	return {
		id: MCP_WORKFLOW.id,
		name: 'E2E MCP Server Trigger',
		active: false,
		settings: { executionOrder: 'v1' },
		pinData: {},
		nodes: [
			{
				id: 'mcp',
				name: 'MCP Server Trigger',
				type: '@n8n/n8n-nodes-langchain.mcpTrigger',
				typeVersion: 2,
				position: [300, 0],
				webhookId: WEBHOOK_IDS.mcp,
				parameters: { path: MCP_WORKFLOW.path, authentication: 'none' },
			},
			...tools.map(toolNode),
		],
		connections: toolConnections(tools, 'MCP Server Trigger'),
	};
}

export function agentWorkflows() {
	return [
		agentWorkflow(AGENT_WORKFLOWS.send.id, AGENT_WORKFLOWS.send.path, WEBHOOK_IDS.send),
		agentWorkflow(AGENT_WORKFLOWS.label.id, AGENT_WORKFLOWS.label.path, WEBHOOK_IDS.label),
		agentWorkflow(AGENT_WORKFLOWS.close.id, AGENT_WORKFLOWS.close.path, WEBHOOK_IDS.close),
		mcpWorkflow(),
		hitlWorkflow(WEBHOOK_IDS.hitl),
		burstWorkflow({ chat: CHAT_CREDENTIAL, openAi: OPENAI_CREDENTIAL }),
		simpleMemoryWorkflow(),
	];
}
