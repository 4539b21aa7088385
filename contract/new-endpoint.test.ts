/**
 * Adding an endpoint is one descriptor: a fixture operation added to the catalogue in memory shows up
 * in the n8n parameters, in the Node-RED editor and in the UI contract (as an addition, which passes),
 * with no other edit.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { RESOURCES, type OperationDescriptor, type ResourceDescriptor } from '@chat-messaging/core';
import { chatId, field } from '@chat-messaging/core';
import { overridesFor } from './catalogue-overrides';
import { compareContracts, currentContract, loadEditor, readContract } from './contract';
import { buildProperties } from '../packages/n8n/nodes/ChatMessaging/v1/properties';
import { editorHtml, editorMessages } from '../packages/node-red/editor/html';
import { editorHelp } from '../packages/node-red/editor/help';

const pin: OperationDescriptor = {
	resource: 'chat',
	operation: 'pin',
	name: 'Pin',
	action: 'Pin a chat',
	description: 'Pin the chat to the top of the list',
	method: 'PUT',
	path: '/chats/{chat_id}/pin',
	effect: 'idempotent',
	fields: [chatId, field('body', 'until', 'Pinned Until', 'dateTime', 'When the pin ends; empty pins it for good')],
};
const withPin: readonly ResourceDescriptor[] = RESOURCES.map((r) => (r.key === 'chat' ? { ...r, operations: [...r.operations, pin] } : r));

test('the n8n action node offers it, with its fields', () => {
	const properties = buildProperties(withPin);
	const operation = properties.find((p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes('chat'));
	expect((operation?.options as INodePropertyOptions[]).find((o) => o.value === 'pin')).toMatchObject({
		name: 'Pin',
		action: 'Pin a chat',
	});
	const shown = properties.filter((p) => p.displayOptions?.show?.operation?.includes('pin'));
	expect(shown.map((p) => [p.name, p.required ?? false])).toEqual([
		['chat_id', true],
		['additionalFields', false],
	]);
	expect((shown[1]!.options as INodeProperties[]).map((o) => [o.name, o.type])).toEqual([['until', 'dateTime']]);
	expect(buildProperties().some((p) => p.displayOptions?.show?.operation?.includes('pin'))).toBe(false);
});

test('the Node-RED editor offers it, with its fields and their rules', () => {
	const html = editorHtml(withPin);
	const { catalogue, definitions } = loadEditor(html);
	const op = catalogue.resources.find((r) => r.key === 'chat')?.operations.find((o) => o.id === 'chat:pin');
	expect(op?.fields.map((f) => [f.name, f.kind, f.required])).toEqual([
		['chat_id', 'integer', true],
		['until', 'dateTime', false],
	]);
	expect(html).toContain('id="cm-op-chat-pin"');
	expect(html).toContain('id="node-input-cm-chat-pin-until"');
	expect(editorMessages(withPin)['chat-messaging'].fields.chat!.pin).toMatchObject({ until: { label: 'Pinned Until' } });
	expect(editorHelp(withPin)).toContain('<code>PUT /chats/{chat_id}/pin</code>');
	const validate = definitions['chat-messaging']!.defaults!.fields!.validate as (this: object, v: object) => unknown;
	expect(validate.call({ resource: 'chat', operation: 'pin' }, { chat_id: { value: 'x', type: 'str' } })).toEqual([
		'Chat ID: must be a whole number',
	]);
});

test('the UI contract records it as an addition, which passes', () => {
	const diff = compareContracts(readContract(), currentContract(overridesFor(withPin)));
	expect(diff.breaking).toEqual([]);
	expect(diff.additions).toEqual([
		"chatMessaging v1: option 'pin' of 'operation' (shown for resource 'chat')",
		"chatMessaging v1: parameter 'chat_id' (shown for resource 'chat', operation 'pin')",
		"chatMessaging v1: parameter 'additionalFields' (shown for resource 'chat', operation 'pin')",
		"chatMessaging v2: option 'pin' of 'operation' (shown for resource 'chat')",
		// The tool variant describes it to a model from the same descriptor.
		"chatMessaging v2: parameter 'toolDescription' (shown for @tool true, resource 'chat', operation 'pin')",
		"chatMessaging v2: parameter 'chat_id' (shown for resource 'chat', operation 'pin')",
		"chatMessaging v2: parameter 'additionalFields' (shown for resource 'chat', operation 'pin')",
		"chat-messaging: operation 'chat:pin'",
	]);
});
