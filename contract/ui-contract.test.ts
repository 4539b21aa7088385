/**
 * The UI contract (contract/*.json) against the nodes as built from the catalogue: `npm test` fails on
 * whatever would break saved n8n workflows or Node-RED flows, naming it; additions pass.
 */

import { RESOURCES, type FieldDescriptor, type OperationDescriptor, type ResourceDescriptor } from '@chat-messaging/core';
import { overridesFor } from './catalogue-overrides';
import { compareContracts, currentContract, descriptionsByVersion, readContract, type UiContract } from './contract';
import { ChatMessaging } from '../packages/n8n/nodes/ChatMessaging/ChatMessaging.node';

const saved = readContract();
/** The contract the catalogue as it stands gives: what a changed descriptor is compared with. */
const fromCatalogue = currentContract(overridesFor(RESOURCES));
const copy = (contract: UiContract): UiContract => JSON.parse(JSON.stringify(contract)) as UiContract;

/** The catalogue with one operation changed, as a developer might edit its descriptor. */
function withOperation(
	resource: string,
	operation: string,
	change: (op: OperationDescriptor) => OperationDescriptor,
): readonly ResourceDescriptor[] {
	return RESOURCES.map((r) =>
		r.key !== resource ? r : { ...r, operations: r.operations.map((op) => (op.operation === operation ? change(op) : op)) },
	);
}

const extraField = (extra: Partial<FieldDescriptor>): FieldDescriptor => ({
	name: 'include_archived',
	displayName: 'Include Archived',
	kind: 'boolean',
	in: 'query',
	description: 'Whether archived records are included',
	...extra,
});

test('the nodes keep the committed contract', () => {
	expect(compareContracts(saved, currentContract()).breaking).toEqual([]);
});

test('a renamed operation value fails, naming what it breaks on each platform (and nothing else)', () => {
	const renamed = withOperation('chat', 'close', (op) => ({ ...op, operation: 'closeChat' }));
	const diff = compareContracts(fromCatalogue, currentContract(overridesFor(renamed)));
	// Output is shown for the chat operations that return a chat, by name: its conditions name 'close' too.
	const withOutput = RESOURCES.find((resource) => resource.key === 'chat')!
		.operations.filter((op) => op.returns)
		.map((op) => `'${op.operation}'`)
		.join(' or ');
	expect(diff.breaking).toEqual([
		"chatMessaging v1: workflows saved with operation 'close' of resource 'chat' would fail to load (the option is gone)",
		...['v2', 'v2.1'].flatMap((version) => [
			`chatMessaging ${version}: workflows saved with operation 'close' of resource 'chat' would fail to load (the option is gone)`,
			...['@version {"_cnd":{"lt":2.1}}', '@version {"_cnd":{"gte":2.1}}', "output 'selected'"].map(
				(condition, index) =>
					`chatMessaging ${version}: parameter '${index < 2 ? 'output' : 'outputFields'}' (shown for resource 'chat', operation ${withOutput}, ${condition}) is gone: workflows saved with it would lose its value`,
			),
		]),
		"chat-messaging: flows saved with operation 'close' of resource 'chat' would fail (unknown operation)",
	]);
	expect(diff.additions).toEqual(
		expect.arrayContaining([
			"chatMessaging v2: option 'closeChat' of 'operation' (shown for resource 'chat')",
			"chatMessaging v2: parameter 'chat_id' (shown for resource 'chat', operation 'closeChat')",
			"chat-messaging: operation 'chat:closeChat'",
		]),
	);
	// Version 1's operations are fixed: a renamed one is gone from it, never added under its new name.
	expect(diff.additions.filter((addition) => addition.startsWith('chatMessaging v1:'))).toEqual([]);
});

test('an added optional field passes; an added required one fails on both platforms', () => {
	const optional = withOperation('chat', 'get', (op) => ({ ...op, fields: [...op.fields, extraField({})] }));
	const added = compareContracts(fromCatalogue, currentContract(overridesFor(optional)));
	expect(added.breaking).toEqual([]);
	expect(added.additions).toEqual([
		"chatMessaging v1: parameter 'filters' (shown for resource 'chat', operation 'get')",
		"chatMessaging v2: parameter 'filters' (shown for resource 'chat', operation 'get')",
		"chatMessaging v2.1: parameter 'filters' (shown for resource 'chat', operation 'get')",
		"chat-messaging: field 'include_archived' of operation 'chat:get'",
	]);

	const required = withOperation('chat', 'get', (op) => ({
		...op,
		fields: [...op.fields, extraField({ kind: 'string', required: true })],
	}));
	expect(compareContracts(fromCatalogue, currentContract(overridesFor(required))).breaking).toEqual([
		"chatMessaging v1: required parameter 'include_archived' (shown for resource 'chat', operation 'get') is new: workflows saved before it would fail to run without it",
		"chatMessaging v2: required parameter 'include_archived' (shown for resource 'chat', operation 'get') is new: workflows saved before it would fail to run without it",
		"chatMessaging v2.1: required parameter 'include_archived' (shown for resource 'chat', operation 'get') is new: workflows saved before it would fail to run without it",
		"chat-messaging: required field 'include_archived' of operation 'chat:get' is new: flows saved before it would fail",
	]);
});

test('removed names, option values and changed defaults fail, each with what it breaks', () => {
	const changed = copy(currentContract());
	const action = changed.n8n.nodes['@chat-messaging/n8n-nodes-chat-messaging.chatMessaging']!.versions['1']!;
	const limit = action.find((p) => p.name === 'limit' && p.show?.resource?.includes('chat'))!;
	limit.default = 100;
	const filters = action.find((p) => p.name === 'filters' && p.show?.operation?.includes('getAll') && p.show.resource?.includes('chat'))!;
	filters.members = filters.members!.filter((member) => member.name !== 'label');
	const role = action
		.find((p) => p.name === 'additionalFields' && p.show?.resource?.includes('invitation'))!
		.members!.find((m) => m.name === 'role')!;
	role.values = role.values!.filter((value) => value !== 'agent');
	changed.n8n.credentials.chatMessagingApi = changed.n8n.credentials.chatMessagingApi!.filter((p) => p.name !== 'baseUrl');
	delete changed.n8n.nodes['@chat-messaging/n8n-nodes-chat-messaging.chatMessagingTrigger'];
	const nodeRed = changed.nodeRed['chat-messaging']!;
	nodeRed.defaults.returnAll = true;
	delete nodeRed.operations!['chat:get']!.chat_id;
	nodeRed.choices!.waitFor = nodeRed.choices!.waitFor!.filter((value) => value !== 'read');
	delete changed.nodeRed['chat-messaging-event']!.defaults.downloadAttachments;

	expect(compareContracts(saved, changed).breaking).toEqual([
		"chatMessaging v1: default of 'limit' (shown for resource 'chat', operation 'getAll', returnAll false) changed from 50 to 100: workflows saved with the default (n8n does not store it) would run with the new one",
		"chatMessaging v1: parameter 'filters.label' (shown for resource 'chat', operation 'getAll') is gone: workflows saved with it would lose its value",
		"chatMessaging v1: workflows saved with additionalFields.role 'agent' of resource 'invitation', operation 'create' would fail to load (the option is gone)",
		"n8n node type '@chat-messaging/n8n-nodes-chat-messaging.chatMessagingTrigger' is gone: workflows with it would fail to load",
		"credential chatMessagingApi: parameter 'baseUrl' is gone: workflows saved with it would lose its value",
		"chat-messaging: default of 'returnAll' changed from false to true: flows written without it (imported JSON) would run differently",
		"chat-messaging: flows saved with waitFor 'read' would fail (the option is gone)",
		"chat-messaging: field 'chat_id' of operation 'chat:get' is gone: flows saved with it would lose its value",
		"chat-messaging-event: property 'downloadAttachments' is gone: flows saved with it would lose its value",
	]);
});

test('every version of the versioned action node is part of the contract', () => {
	const versions = descriptionsByVersion(new ChatMessaging());
	expect(versions.map(([version]) => version)).toEqual([1, 2, 2.1, 2.2]);
	expect(versions[0]![1].properties.some((p) => p.name === 'sendTo')).toBe(false);
	expect(versions[1]![1].properties.some((p) => p.name === 'sendTo')).toBe(true);
	expect(saved.n8n.nodes['@chat-messaging/n8n-nodes-chat-messaging.chatMessaging']!.versions['2']).toBeDefined();
});

test("a parameter kept for a version by an '@version' condition it meets is the same parameter; one the version does not meet is gone", () => {
	const trigger = '@chat-messaging/n8n-nodes-chat-messaging.chatMessagingTrigger';
	// Version 1 as it was before its Options collection was kept for it by a condition.
	const unconditioned = copy(saved);
	const first = unconditioned.n8n.nodes[trigger]!.versions['1']!;
	unconditioned.n8n.nodes[trigger]!.versions['1'] = first
		.filter((parameter) => parameter.name !== 'options' || JSON.stringify(parameter.show) === '{"@version":[1]}')
		.map((parameter) => (parameter.name === 'options' ? { ...parameter, show: undefined } : parameter));
	const kept = copy(unconditioned);
	for (const parameter of kept.n8n.nodes[trigger]!.versions['1']!) if (parameter.name === 'options') parameter.show = { '@version': [1] };
	expect(compareContracts(unconditioned, kept).breaking).toEqual([]);
	const moved = copy(unconditioned);
	moved.n8n.nodes[trigger]!.versions['1'] = moved.n8n.nodes[trigger]!.versions['1']!.filter(
		(parameter) => parameter.name !== 'options' || parameter.show === undefined,
	).map((parameter) => (parameter.name === 'options' ? { ...parameter, show: { '@version': [{ _cnd: { gte: 1.1 } }] } } : parameter));
	expect(compareContracts(unconditioned, moved).breaking).toEqual([
		"chatMessagingTrigger v1: parameter 'options' is gone: workflows saved with it would lose its value",
	]);
});

test("the action node's operation default only starts new nodes (a flow cannot run without one); any other default is held", () => {
	const changed = copy(saved);
	changed.nodeRed['chat-messaging']!.defaults.operation = 'getAll';
	changed.nodeRed['chat-messaging']!.defaults.limit = 100;
	const diff = compareContracts(saved, changed);
	expect(diff.breaking).toEqual([
		"chat-messaging: default of 'limit' changed from 50 to 100: flows written without it (imported JSON) would run differently",
	]);
	expect(diff.additions).toEqual(['chat-messaging: new nodes start with operation "getAll" (a flow cannot run without it)']);
});
