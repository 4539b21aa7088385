/**
 * The credential and the workflows the end-to-end run imports into n8n, written as n8n stores them
 * (what `n8n import:workflow` / `import:credentials` read).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const PACKAGE_NAME = '@chat-messaging/n8n-nodes-chat-messaging';
export const ACTION_NODE_TYPE = `${PACKAGE_NAME}.chatMessaging`;
export const TRIGGER_NODE_TYPE = `${PACKAGE_NAME}.chatMessagingTrigger`;
export const CREDENTIAL_TYPE = 'chatMessagingApi';

export const CREDENTIAL_ID = 'e2eChatMsgCred01';
const CREDENTIAL_NAME = 'Chat Messaging sandbox';

/** n8n IDs are 16 alphanumerics; these are fixed so the run can address them. */
export const WORKFLOW_IDS = {
	listChats: 'e2eListAllChats1',
	sendMessage: 'e2eSendMessage01',
	addLabels: 'e2eAddLabels0001',
	replaceLabels: 'e2eReplaceLabel1',
	invalidPhone: 'e2eInvalidPhone1',
	trigger: 'e2eTriggerInbox1',
	errorOutput: 'e2eErrorOutput01',
	errorRegular: 'e2eErrorRegular1',
	smoke: 'e2eSmokeManual01',
	v2ChatFromList: 'e2eV2ChatFromLst',
	v2SendToChatName: 'e2eV2SendChatNam',
	v2AnyFilter: 'e2eV2AnyFilter01',
	savedV1: 'e2eSavedV1Flow01',
} as const;

/** A second credential whose base URL is a recording proxy in front of the sandbox: its requests can be asserted on. */
export const RECORDED_CREDENTIAL = { id: 'e2eChatMsgRecord', name: 'Chat Messaging sandbox (recorded)' } as const;

/** Plain credential data; `n8n import:credentials` encrypts it. Holds the token: write it, import it, delete it. */
export function credentialExport(baseUrl: string, apiToken: string, recordedBaseUrl?: string) {
	return [
		{ id: CREDENTIAL_ID, name: CREDENTIAL_NAME, type: CREDENTIAL_TYPE, data: { baseUrl, apiToken } },
		...(recordedBaseUrl ? [{ ...RECORDED_CREDENTIAL, type: CREDENTIAL_TYPE, data: { baseUrl: recordedBaseUrl, apiToken } }] : []),
	];
}

export interface WorkflowNode {
	id: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	webhookId?: string;
	/** The node's "On Error" setting. */
	onError?: 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';
}

function workflow(id: string, name: string, nodes: WorkflowNode[]) {
	const connections: Record<string, { main: Array<Array<{ node: string; type: 'main'; index: number }>> }> = {};
	for (let i = 0; i + 1 < nodes.length; i++) connections[nodes[i].name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
	return { id, name, active: false, nodes, connections, settings: { executionOrder: 'v1' }, pinData: {} };
}

const manualTrigger: WorkflowNode = {
	id: 'manual-trigger',
	name: 'When clicking Execute',
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

export const ACTION_NODE_NAME = 'Chat Messaging';

function action(parameters: Record<string, unknown>, typeVersion: number): WorkflowNode {
	return {
		id: 'chat-messaging-action',
		name: ACTION_NODE_NAME,
		type: ACTION_NODE_TYPE,
		typeVersion,
		position: [220, 0],
		parameters,
		credentials: { [CREDENTIAL_TYPE]: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
	};
}

export const TRIGGER_NODE_NAME = 'Chat Messaging Trigger';
/** The trigger's webhook ID: its production URL is /webhook/<this>/chat-messaging. */
export const TRIGGER_WEBHOOK_ID = '5f0c6a52-1d0e-4e59-9b1e-3c2f7d4a8e61';

/** Three items with a `phone` each (Set, then Split Out): the middle one is invalid. */
function phoneItems(phones: string[]): WorkflowNode[] {
	return [
		{
			id: 'phones-set',
			name: 'Phones',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: [220, 0],
			parameters: { mode: 'raw', jsonOutput: JSON.stringify({ phones }), options: {} },
		},
		{
			id: 'phones-split',
			name: 'One per item',
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			position: [440, 0],
			parameters: { fieldToSplitOut: 'phones', options: { destinationFieldName: 'phone' } },
		},
	];
}

export interface WorkflowInputs {
	actionTypeVersion: number;
	triggerTypeVersion: number;
	chatId: number;
	phone: string;
	text: string;
	labelsToAdd: string;
	labelsReplacement: string;
	/** Valid, invalid, valid: for the error-output workflows. */
	errorPhones: string[];
}

export function workflows(inputs: WorkflowInputs) {
	const act = (parameters: Record<string, unknown>) => action(parameters, inputs.actionTypeVersion);
	return [
		workflow(WORKFLOW_IDS.listChats, 'E2E list all chats', [
			manualTrigger,
			act({ resource: 'chat', operation: 'getAll', returnAll: true }),
		]),
		workflow(WORKFLOW_IDS.sendMessage, 'E2E send to phone', [
			manualTrigger,
			act({ resource: 'message', operation: 'sendToPhone', phone: inputs.phone, text: inputs.text, additionalFields: {} }),
		]),
		workflow(WORKFLOW_IDS.addLabels, 'E2E add labels', [
			manualTrigger,
			act({ resource: 'label', operation: 'add', chat_id: inputs.chatId, labels: inputs.labelsToAdd }),
		]),
		workflow(WORKFLOW_IDS.replaceLabels, 'E2E replace labels', [
			manualTrigger,
			act({ resource: 'label', operation: 'replace', chat_id: inputs.chatId, labels: inputs.labelsReplacement }),
		]),
		// Spaces are not allowed in a phone: the node must refuse before any request.
		workflow(WORKFLOW_IDS.invalidPhone, 'E2E invalid phone', [
			manualTrigger,
			act({ resource: 'message', operation: 'sendToPhone', phone: '+49 151 1234567', text: 'never sent', additionalFields: {} }),
		]),
		...(['continueErrorOutput', 'continueRegularOutput'] as const).map((onError) =>
			workflow(
				onError === 'continueErrorOutput' ? WORKFLOW_IDS.errorOutput : WORKFLOW_IDS.errorRegular,
				`E2E send with On Error: ${onError}`,
				[
					manualTrigger,
					...phoneItems(inputs.errorPhones),
					{
						...act({
							resource: 'message',
							operation: 'sendToPhone',
							phone: '={{ $json.phone }}',
							text: 'error output check',
							additionalFields: {},
						}),
						position: [660, 0],
						onError,
					},
				],
			),
		),
		workflow(WORKFLOW_IDS.trigger, 'E2E trigger on inbound messages', [
			{
				id: 'chat-messaging-trigger',
				name: TRIGGER_NODE_NAME,
				type: TRIGGER_NODE_TYPE,
				typeVersion: inputs.triggerTypeVersion,
				position: [0, 0],
				parameters: { events: ['message:received:new'] },
				credentials: { [CREDENTIAL_TYPE]: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
				webhookId: TRIGGER_WEBHOOK_ID,
			},
		]),
	];
}

export interface V2Inputs {
	/** The version new nodes get (2). */
	typeVersion: number;
	chat: { id: number; name: string };
	text: string;
}

/**
 * Version 2 workflows, as the editor saves them: a chat picked from the list is a resource locator
 * value, Send To picks the send, a tri-state filter left on Any is saved as "any". They use the
 * recorded credential, so the requests n8n made can be checked.
 */
export function v2Workflows(inputs: V2Inputs) {
	const act = (parameters: Record<string, unknown>): WorkflowNode => ({
		...action(parameters, inputs.typeVersion),
		credentials: { [CREDENTIAL_TYPE]: { ...RECORDED_CREDENTIAL } },
	});
	const picked = { __rl: true, mode: 'list', value: String(inputs.chat.id), cachedResultName: inputs.chat.name };
	return [
		workflow(WORKFLOW_IDS.v2ChatFromList, 'E2E v2 chat from the list', [
			manualTrigger,
			act({ resource: 'chat', operation: 'get', chat_id: picked }),
		]),
		workflow(WORKFLOW_IDS.v2SendToChatName, 'E2E v2 Send To Chat Name', [
			manualTrigger,
			act({ sendTo: 'chatName', chat_name: inputs.chat.name, text: inputs.text, options: {} }),
		]),
		workflow(WORKFLOW_IDS.v2AnyFilter, 'E2E v2 tri-state Any', [
			manualTrigger,
			act({ resource: 'chat', operation: 'getAll', limit: 5, filters: { closed: 'any', read: 'any', group: 'false' } }),
		]),
	];
}

/**
 * packages/n8n/test/fixtures/workflow-v1.json, saved with version 1 before version 2 existed, imported as it
 * is except its trigger, which becomes a manual trigger so `n8n execute` can run the chain.
 */
export function savedV1Workflow() {
	const saved = JSON.parse(
		readFileSync(join(__dirname, '..', '..', '..', 'packages', 'n8n', 'test', 'fixtures', 'workflow-v1.json'), 'utf8'),
	) as {
		nodes: WorkflowNode[];
		connections: Record<string, unknown>;
	};
	const trigger = saved.nodes.find((node) => node.type === TRIGGER_NODE_TYPE);
	if (!trigger) throw new Error('workflow-v1.json has no trigger');
	const nodes = saved.nodes.map((node) =>
		node === trigger
			? { ...manualTrigger, name: trigger.name, position: trigger.position }
			: { ...node, credentials: { [CREDENTIAL_TYPE]: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } } },
	);
	return {
		id: WORKFLOW_IDS.savedV1,
		name: 'E2E saved with version 1',
		active: false,
		nodes,
		connections: saved.connections,
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

/** A workflow of n8n's own nodes only: proves the harness (CLI, import, execute) before ours are involved. */
export function smokeWorkflow() {
	return workflow(WORKFLOW_IDS.smoke, 'E2E smoke', [
		manualTrigger,
		{
			id: 'smoke-set',
			name: 'Set',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: [220, 0],
			parameters: { assignments: { assignments: [{ id: 'smoke', name: 'smoke', value: 'ok', type: 'string' }] } },
		},
	]);
}

/** The example workflows users import (packages/n8n/examples/*.json), by file name without `.json`. */
export const EXAMPLES_DIR = join(__dirname, '..', '..', '..', 'packages', 'n8n', 'examples');

export interface ExampleWorkflow {
	id: string;
	name: string;
	nodes: WorkflowNode[];
	[key: string]: unknown;
}

/** Every example, its credential references pointed at the given credential (as a user picks theirs after importing). */
export function exampleWorkflows(credential: { id: string; name: string } = { id: CREDENTIAL_ID, name: CREDENTIAL_NAME }) {
	const examples: Record<string, ExampleWorkflow> = {};
	for (const file of readdirSync(EXAMPLES_DIR).filter((name) => name.endsWith('.json'))) {
		const example = JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) as ExampleWorkflow;
		for (const node of example.nodes) if (node.credentials?.[CREDENTIAL_TYPE]) node.credentials[CREDENTIAL_TYPE] = { ...credential };
		examples[file.replace(/\.json$/, '')] = example;
	}
	return examples;
}
