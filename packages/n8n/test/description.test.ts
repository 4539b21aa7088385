/**
 * What n8n reads from the package: the nodes' descriptions (generated from the catalogue) and the
 * credential, whose connection test is run for real against a sandbox.
 */
import axios from 'axios';
import type { INodeProperties, INodePropertyCollection, INodePropertyOptions } from 'n8n-workflow';

import { EVENT_TYPES } from '@chat-messaging/core';
import { ChatMessagingApi } from '../credentials/ChatMessagingApi.credentials';
import { ChatMessaging } from '../nodes/ChatMessaging/ChatMessaging.node';
import { v1Resources } from '../nodes/ChatMessaging/v1/properties';
import { ChatMessagingTrigger } from '../nodes/ChatMessagingTrigger/ChatMessagingTrigger.node';
import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';

const action = new ChatMessaging().getNodeType(1).description;
/** What version 1 offers: its fixed operations, as their descriptors read now. */
const RESOURCES = v1Resources();
const OPERATIONS = RESOURCES.flatMap((resource) => resource.operations);
const triggerDescription = new ChatMessagingTrigger().description;
const credential = new ChatMessagingApi();

/** The properties n8n shows for one operation. */
function shownFor(resource: string, operation: string, extra: Record<string, unknown> = {}): INodeProperties[] {
	const values: Record<string, unknown> = { resource, operation, ...extra };
	return action.properties.filter((property) =>
		Object.entries(property.displayOptions?.show ?? {}).every(
			([name, allowed]) => values[name] === undefined || (allowed as unknown[]).includes(values[name]),
		),
	);
}

const named = (properties: INodeProperties[], name: string) => properties.filter((property) => property.name === name);

describe('action node description', () => {
	it('has the contract names and is usable as an AI tool', () => {
		expect(action).toMatchObject({
			name: 'chatMessaging',
			displayName: 'Chat Messaging',
			usableAsTool: true,
			icon: { light: 'file:../../icons/chat-messaging.svg', dark: 'file:../../icons/chat-messaging.dark.svg' },
		});
		expect(action.credentials).toEqual([{ name: 'chatMessagingApi', required: true }]);
	});

	it('offers every resource and, per resource, each of its operations with its action text, listed alphabetically', () => {
		const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
		const resource = named(action.properties, 'resource')[0];
		expect((resource.options as INodePropertyOptions[]).map((option) => option.value)).toEqual(
			[...RESOURCES].sort(byName).map((r) => r.key),
		);
		// The catalogue's first resource and operations open the node, wherever they are listed.
		expect(resource.default).toBe(RESOURCES[0].key);
		for (const descriptor of RESOURCES) {
			const operation = action.properties.find((p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(descriptor.key));
			const options = operation?.options as INodePropertyOptions[];
			expect(options.map((option) => [option.value, option.action])).toEqual(
				[...descriptor.operations].sort(byName).map((op) => [op.operation, op.action]),
			);
			expect(operation?.default).toBe(descriptor.operations[0].operation);
		}
		const labels = action.properties.find((p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes('label'));
		expect((labels?.options as INodePropertyOptions[]).map((option) => option.name)).toEqual([
			'Add (Keep Existing)',
			'Get',
			'Remove',
			'Remove All',
			'Replace All',
		]);
	});

	it('shows required fields as parameters and optional ones inside the named collection', () => {
		for (const op of OPERATIONS) {
			const shown = shownFor(op.resource, op.operation);
			for (const field of op.fields) {
				if (field.kind === 'binary' || field.name === 'page') continue;
				const top = named(shown, field.name);
				if (field.required) {
					expect(top).toHaveLength(1);
					expect(top[0].required).toBe(true);
				}
			}
		}
		const chatUpdate = named(shownFor('chat', 'update'), 'updateFields')[0];
		expect((chatUpdate.options as INodeProperties[]).map((option) => option.name).sort()).toEqual([
			'ai_autoresponse_enabled',
			'closed',
			'name',
			'read',
			'responsible',
		]);
		expect(named(shownFor('webhook', 'update'), 'updateFields')).toHaveLength(1);
		const filters = named(shownFor('chat', 'getAll'), 'filters')[0];
		expect((filters.options as INodeProperties[]).map((option) => option.name)).toEqual(
			expect.arrayContaining(['label', 'group', 'created_after', 'phone']),
		);
		expect((filters.options as INodeProperties[]).map((option) => option.name)).not.toContain('page');
		expect(named(shownFor('message', 'sendToPhone'), 'additionalFields')).toHaveLength(1);
		expect(named(shownFor('chat', 'getAll'), 'filters')[0].type).toBe('collection');
		expect(
			(named(shownFor('invitation', 'create'), 'additionalFields')[0].options as INodeProperties[]).find((o) => o.name === 'role')?.type,
		).toBe('options');
	});

	it('maps field kinds onto n8n parameter types', () => {
		const filters = named(shownFor('chat', 'getAll'), 'filters')[0].options as INodeProperties[];
		const type = (name: string) => filters.find((option) => option.name === name)?.type;
		expect([type('group'), type('created_after'), type('label')]).toEqual(['boolean', 'dateTime', 'string']);
		expect(named(shownFor('webhook', 'create'), 'event_type')[0].type).toBe('options');
		expect(named(shownFor('webhook', 'create'), 'enabled')[0]).toMatchObject({ type: 'boolean', default: true });
		expect(named(shownFor('chat', 'get'), 'chat_id')[0]).toMatchObject({ type: 'string', required: true });
	});

	it('offers Return All and Limit (default 50) on list operations only', () => {
		for (const op of OPERATIONS) {
			const isList = op.pagination !== undefined || op.operation === 'getAll';
			expect(named(shownFor(op.resource, op.operation), 'returnAll')).toHaveLength(isList ? 1 : 0);
			if (isList) expect(named(shownFor(op.resource, op.operation, { returnAll: false }), 'limit')[0].default).toBe(50);
		}
	});

	it('offers attachments and wait-for-status on every send operation', () => {
		const sends = OPERATIONS.filter((op) => op.sendsMessage);
		expect(sends.length).toBeGreaterThan(0);
		for (const op of sends) {
			const shown = shownFor(op.resource, op.operation, { attachment: 'binary', waitForStatus: 'read' });
			expect((named(shown, 'attachment')[0].options as INodePropertyOptions[]).map((o) => o.value)).toEqual(['none', 'binary', 'url']);
			expect(named(shown, 'binaryPropertyName')[0].default).toBe('data');
			expect((named(shown, 'waitForStatus')[0].options as INodePropertyOptions[]).map((o) => o.value)).toEqual([
				'none',
				'sent',
				'delivered',
				'read',
			]);
			expect(named(shown, 'waitTimeout')[0].default).toBe(60);
			expect(named(shownFor(op.resource, op.operation, { attachment: 'url' }), 'attachmentUrl')).toHaveLength(1);
			expect(named(shown, 'text')).toHaveLength(1);
		}
		expect(
			OPERATIONS.filter((op) => !op.sendsMessage).every((op) => named(shownFor(op.resource, op.operation), 'attachment').length === 0),
		).toBe(true);
	});

	it('has no collection without options and no duplicate parameter for one operation', () => {
		for (const op of OPERATIONS) {
			const shown = shownFor(op.resource, op.operation, { attachment: 'none', waitForStatus: 'none', returnAll: false });
			const names = shown.map((property) => property.name);
			expect(new Set(names).size).toBe(names.length);
			for (const property of shown.filter((p) => p.type === 'collection')) {
				expect((property.options as Array<INodeProperties | INodePropertyCollection>).length).toBeGreaterThan(0);
			}
		}
	});
});

describe('trigger node description', () => {
	it('has the contract names, the three events and one POST webhook', () => {
		expect(triggerDescription).toMatchObject({ name: 'chatMessagingTrigger', displayName: 'Chat Messaging Trigger', inputs: [] });
		const events = named(triggerDescription.properties, 'events')[0];
		expect(events.type).toBe('multiOptions');
		expect((events.options as INodePropertyOptions[]).map((option) => option.value)).toEqual(EVENT_TYPES.map((event) => event.value));
		expect(triggerDescription.webhooks).toEqual([
			{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'chat-messaging' },
		]);
	});
});

describe('credential', () => {
	let sandbox: RunningSandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ tokens: ['credential-test-token'], seed: 5, chats: 2 });
	});
	afterAll(async () => {
		await sandbox?.stop();
	});

	/** Evaluates the test request as n8n would for these credential values. */
	async function runCredentialTest(baseUrl: string, apiToken: string): Promise<{ status?: number; code?: string; message?: string }> {
		const expression = String(credential.test.request.baseURL);
		const body = /^=\{\{(.*)\}\}$/s.exec(expression)?.[1] ?? '';
		const resolvedBase = new Function('$credentials', `return (${body});`)({ baseUrl, apiToken }) as string;
		const header = String(credential.authenticate.properties.headers?.Authorization)
			.replace(/^=/, '')
			.replace('{{$credentials.apiToken}}', apiToken);
		// axios, as n8n's credential test sends the request with it (a failure carries the network code).
		const response = await axios
			.get(`${resolvedBase}${String(credential.test.request.url)}`, { headers: { Authorization: header }, validateStatus: () => true })
			.catch((error: { code?: string }) => error);
		if (!('status' in response)) return { code: response.code };
		const rule = (credential.test.rules ?? []).find((r) => r.type === 'responseCode' && r.properties.value === response.status);
		return { status: response.status, message: rule?.properties.message };
	}

	it('has the contract fields: baseUrl and a password apiToken sent as a bearer header', () => {
		expect(credential.name).toBe('chatMessagingApi');
		expect(credential.displayName).toBe('Chat Messaging API');
		expect(credential.properties.map((p) => [p.name, p.required, p.typeOptions?.password ?? false])).toEqual([
			['baseUrl', true, false],
			['apiToken', true, true],
		]);
		expect(credential.authenticate).toEqual({
			type: 'generic',
			properties: { headers: { Authorization: '=Bearer {{$credentials.apiToken}}' } },
		});
	});

	it('the connection test passes with a good token, even with a trailing slash in the base URL', async () => {
		expect(await runCredentialTest(`${sandbox.url}//`, 'credential-test-token')).toEqual({ status: 200, message: undefined });
	});

	it('tells a rejected token from an unreachable service', async () => {
		const rejected = await runCredentialTest(sandbox.url, 'not-the-token');
		expect(rejected.status).toBe(401);
		expect(rejected.message).toMatch(/rejected the API token/);
		const unreachable = await runCredentialTest('http://127.0.0.1:9', 'credential-test-token');
		expect(unreachable).toEqual({ code: 'ECONNREFUSED' });
	});
});
