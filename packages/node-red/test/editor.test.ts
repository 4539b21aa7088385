/**
 * The generated editor file (packages/node-red/dist/index.html) as the Node-RED editor would run it:
 * its scripts are executed with a recording `RED`, then the node definitions' validators and labels
 * are exercised. (Rendering the dialog in a real browser is the browser test's job.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';

import { builtPackage } from '../../../test/support/packages';
import {
	DEFAULT_OUTPUT,
	FIELD_KINDS,
	LIST_DEFAULTS,
	OPERATIONS,
	OUTPUT_WHEN_UNSET,
	fieldHint,
	findOperation,
	operationId,
	recordShape,
} from '@chat-messaging/core';

type Definition = Record<string, any>;
const html = readFileSync(join(builtPackage('node-red').dir, 'dist', 'index.html'), 'utf8');
const definitions: Record<string, Definition> = {};
const sandboxWindow: Record<string, unknown> = {};
/** Config nodes as the editor would hold them, for the event node's validator (RED.nodes.node). */
const editorNodes: Record<string, Record<string, unknown>> = {};
for (const [, script] of html.matchAll(/<script type="text\/javascript">([\s\S]*?)<\/script>/g)) {
	runInNewContext(script!, {
		window: sandboxWindow,
		RED: {
			nodes: {
				registerType: (type: string, definition: Definition) => (definitions[type] = definition),
				node: (id: string) => editorNodes[id] ?? null,
			},
			events: { on: () => undefined },
			utils: { validatePropertyExpression: () => true },
		},
	});
}
const action = definitions['chat-messaging']!;
const validateFields = (operation: string, fields: Record<string, { value: string; type: string }>) => {
	const [resource, op] = operation.split(':');
	return action.defaults.fields.validate.call({ resource, operation: op }, fields);
};

test('the three node types are registered with their categories, credentials and I/O', () => {
	expect(Object.keys(definitions).sort()).toEqual(['chat-messaging', 'chat-messaging-config', 'chat-messaging-event']);
	expect(definitions['chat-messaging-config']!.category).toBe('config');
	expect(definitions['chat-messaging-config']!.credentials).toEqual({ token: { type: 'password', required: true } });
	expect(action).toMatchObject({ category: 'chat messaging', inputs: 1, outputs: 1, icon: 'chat-messaging.svg' });
	expect(definitions['chat-messaging-event']).toMatchObject({ inputs: 0, outputs: 1 });
	// The config node's defaults never hold the token (it would be exported with the flow).
	expect(Object.keys(definitions['chat-messaging-config']!.defaults)).toEqual(['name', 'baseUrl', 'publicUrl', 'timeZone']);
});

test('static values are checked against the field rules; msg/flow/global/env/JSONata sources are never blocked', () => {
	expect(validateFields('message:sendToPhone', { phone: { value: '+4915112345678', type: 'str' } })).toBe(true);
	const bad = validateFields('message:sendToPhone', { phone: { value: '+49 151 123', type: 'str' } });
	expect(bad).toEqual([`Phone Number: ${FIELD_KINDS.phone.message}`]);
	expect(FIELD_KINDS.phone.message).toMatch(/^Invalid phone number format: international format/);
	for (const type of ['msg', 'flow', 'global', 'env', 'jsonata']) {
		expect(validateFields('message:sendToPhone', { phone: { value: 'anything at all', type } })).toBe(true);
	}
	expect(validateFields('chat:get', { chat_id: { value: '12', type: 'num' } })).toBe(true);
	expect(validateFields('chat:get', { chat_id: { value: 'twelve', type: 'str' } })).toEqual(['Chat ID: must be a whole number']);
	expect(validateFields('message:getAll', { chat_id: { value: '1', type: 'num' }, page: { value: '0', type: 'num' } })).toEqual([
		'Page: at least 1',
	]);
	expect(validateFields('webhook:create', { url: { value: 'ftp://x', type: 'str' } })).toEqual([`URL: ${FIELD_KINDS.receiverUrl.message}`]);
	expect(validateFields('webhook:create', { url: { value: 'http://hooks.example.com/in', type: 'str' } })).toEqual([
		`URL: ${FIELD_KINDS.receiverUrl.message}`,
	]);
	expect(validateFields('webhook:create', { url: { value: 'http://127.0.0.1:1880/in', type: 'str' } })).toBe(true);
	expect(validateFields('message:sendToJid', { jid: { value: 'no-server', type: 'str' } })).toEqual([
		'JID: must look like <id>@<server>, e.g. 14155550123@c.us',
	]);
	// Empty fields may come from msg.payload at run time: not an error in the editor.
	expect(validateFields('message:sendToPhone', { phone: { value: '', type: 'str' } })).toBe(true);
});

test('operation, limit, waitTimeout and events validators', () => {
	expect(action.defaults.operation.validate.call({ resource: 'chat' }, 'close')).toBe(true);
	expect(action.defaults.operation.validate.call({ resource: 'chat' }, 'explode')).toBe('Choose an operation');
	expect(action.defaults.limit.validate(0)).toMatch(/Limit/);
	expect(action.defaults.limit.validate(25)).toBe(true);
	expect(action.defaults.waitTimeout.validate(-1)).toMatch(/Wait timeout/);
	const events = definitions['chat-messaging-event']!.defaults.events;
	expect(events.validate([])).toMatch(/at least one/);
	expect(events.validate(['chat:created'])).toBe(true);
});

test('Output: new nodes start at the core default; offered exactly for the operations that return records; Selected Fields needs a name', () => {
	expect(action.defaults.output.value).toBe(DEFAULT_OUTPUT);
	const catalogue = sandboxWindow.CHAT_MESSAGING_CATALOGUE as any;
	// A node saved before the choice existed runs (and shows) Raw: the action node's migrations fill it in.
	expect(catalogue.migrations['chat-messaging']).toContainEqual(expect.objectContaining({ property: 'output', value: OUTPUT_WHEN_UNSET }));
	const offered = catalogue.resources.flatMap((resource: any) =>
		resource.operations.filter((op: any) => op.simplified).map((op: any) => op.id),
	);
	expect(offered.sort()).toEqual(
		OPERATIONS.filter((op) => recordShape(op))
			.map(operationId)
			.sort(),
	);
	expect(offered).toEqual(expect.arrayContaining(['chat:getAll', 'chat:get', 'message:getAll']));
	expect(offered).not.toContain('webhook:delete');
	const fieldsCheck = action.defaults.outputFields.validate;
	expect(fieldsCheck.call({ resource: 'chat', operation: 'get', output: 'selected' }, ' ')).toBe(
		'Fields: is empty: name the fields to output, separated by commas',
	);
	expect(fieldsCheck.call({ resource: 'chat', operation: 'get', output: 'selected' }, 'name')).toBe(true);
	expect(fieldsCheck.call({ resource: 'chat', operation: 'get', output: 'simplified' }, '')).toBe(true);
	expect(fieldsCheck.call({ resource: 'label', operation: 'get', output: 'selected' }, '')).toBe(true);
});

test('every validator declares (value, options): only then does Node-RED take its text as the reason it is invalid', () => {
	for (const [type, definition] of Object.entries(definitions)) {
		for (const [property, settings] of Object.entries(definition.defaults as Record<string, Definition>)) {
			if (settings.validate) expect(`${type}.${property}: ${settings.validate.length}`).toBe(`${type}.${property}: 2`);
		}
	}
});

test('the config node is invalid without a token once the editor knows its credentials, and the event node without a public URL', () => {
	const baseUrl = definitions['chat-messaging-config']!.defaults.baseUrl;
	const url = 'https://api.example.com';
	expect(baseUrl.validate.call({}, url)).toBe(true); // credentials not loaded: not judged
	expect(baseUrl.validate.call({ credentials: { has_token: true } }, url)).toBe(true);
	expect(baseUrl.validate.call({ credentials: { token: 'typed' } }, url)).toBe(true);
	expect(baseUrl.validate.call({ credentials: { has_token: false } }, url)).toEqual(['API token: missing']);
	expect(baseUrl.validate.call({ credentials: { has_token: false, token: '' } }, 'ftp://x')).toEqual([
		'Service URL: must be an http(s) URL',
		'API token: missing',
	]);

	const config = definitions['chat-messaging-event']!.defaults.config;
	editorNodes.withUrl = { id: 'withUrl', type: 'chat-messaging-config', publicUrl: 'https://red.example.com', valid: true };
	editorNodes.noUrl = { id: 'noUrl', type: 'chat-messaging-config', publicUrl: '', valid: true };
	editorNodes.noToken = { id: 'noToken', type: 'chat-messaging-config', publicUrl: 'https://red.example.com', valid: false };
	expect(config.validate.call({}, 'withUrl')).toBe(true);
	expect(config.validate.call({}, 'noUrl')).toMatch(/^Service: set the Public URL/);
	// Polling needs no public URL; a node saved before Mode existed (no mode) is webhook mode.
	expect(config.validate.call({ mode: 'polling' }, 'noUrl')).toBe(true);
	expect(config.validate.call({ mode: 'webhook' }, 'noUrl')).toMatch(/^Service: set the Public URL/);
	expect(config.validate.call({ mode: 'polling' }, 'noToken')).toMatch(/^Service: the configuration is incomplete/);
	expect(config.validate.call({}, 'noToken')).toMatch(/^Service: the configuration is incomplete/);
	expect(config.validate.call({}, '_ADD_')).toMatch(/^Service: choose/);
	// The action node needs no public URL: its config property keeps Node-RED's own config check.
	expect(action.defaults.config.validate).toBeUndefined();
});

test('dialog layout: the fields an operation needs first, the optional ones in a folded section; chat ids have a search button', () => {
	/** Field names of one operation's block: [before the optional section, inside it]. */
	const layout = (id: string): [string[], string[]] => {
		const [resource, operation] = id.split(':');
		const start = html.indexOf(`<div class="cm-op" id="cm-op-${resource}-${operation}"`);
		const block = html.slice(start, html.indexOf('<div class="cm-op"', start + 10));
		const names = (text: string) => [...text.matchAll(/cm-field-row" data-field="([^"]+)"/g)].map((match) => match[1]!);
		const split = block.indexOf('<div class="cm-optional">');
		return split < 0 ? [names(block), []] : [names(block.slice(0, split)), names(block.slice(split))];
	};
	expect(layout('message:sendToPhone')).toEqual([
		['phone', 'text', 'file_uid'], // text or file_uid (or an attachment) is needed
		['chat_name', 'label', 'chatapp_account_id'],
	]);
	const [required, filters] = layout('chat:getAll');
	expect(required).toEqual([]);
	expect(filters).toEqual(expect.arrayContaining(['label', 'name', 'read', 'closed', 'page']));
	expect(html).toMatch(/<div class="cm-optional-body" style="display:none">/);
	expect(layout('chat:close')).toEqual([['chat_id'], []]);
	expect(html).toMatch(
		/id="node-input-cm-chat-close-chat_id"[^>]*>\s*<button type="button" class="red-ui-button cm-pick" data-picker="chat"/,
	);
});

test('Send: a Send To select and each field tagged with the choices that show it; fields are validated for the chosen one', () => {
	const start = html.indexOf('<div class="cm-op" id="cm-op-message-send"');
	const block = html.slice(start, html.indexOf('<div class="cm-op"', start + 10));
	expect(block).toContain('<select id="node-input-sendTo"');
	const tagged = Object.fromEntries(
		[...block.matchAll(/data-field="([^"]+)" data-send-to="([^"]+)"/g)].map((match) => [`${match[1]}|${match[2]}`, true]),
	);
	expect(Object.keys(tagged)).toEqual(
		expect.arrayContaining([
			'phone|phone',
			'chat_id|chat',
			'chat_name|chatName',
			'jid|jid',
			'text|phone chat chatName jid',
			'chat_name|phone',
		]),
	);
	// The phone rule applies to Send To = Phone Number only.
	const badPhone = { phone: { value: 'not a phone', type: 'str' } };
	expect(action.defaults.fields.validate.call({ resource: 'message', operation: 'send', sendTo: 'phone' }, badPhone)).toEqual([
		expect.stringMatching(/^Phone Number:/),
	]);
	expect(action.defaults.fields.validate.call({ resource: 'message', operation: 'send', sendTo: 'chat' }, badPhone)).toBe(true);
	expect(action.defaults.sendTo.value).toBe('phone');
});

test('distinct icons: the action node and the event node', () => {
	expect(action.icon).toBe('chat-messaging.svg');
	expect(definitions['chat-messaging-event']!.icon).toBe('chat-messaging-event.svg');
});

test('labels name the operation unless the node has a name', () => {
	expect(action.label.call({ resource: 'chat', operation: 'close' })).toBe('Close a chat');
	expect(action.label.call({ resource: 'chat', operation: 'close', name: 'Done' })).toBe('Done');
	expect(definitions['chat-messaging-event']!.label.call({ events: ['chat:created'] })).toBe('chat:created');
});

test('lists start with the shared LIST_DEFAULTS, as in n8n (up to 50 items, not every page)', () => {
	expect(action.defaults.returnAll.value).toBe(LIST_DEFAULTS.returnAll);
	expect(action.defaults.limit.value).toBe(LIST_DEFAULTS.limit);
	expect(LIST_DEFAULTS.returnAll).toBe(false);
});

test("the editor checks fixed values with the core's table of field kinds: its patterns, its words", () => {
	const { kinds } = sandboxWindow.CHAT_MESSAGING_CATALOGUE as {
		kinds: Record<string, { pattern?: string; flags?: string; message: string }>;
	};
	for (const kind of ['phone', 'phoneFilter', 'jid', 'wid', 'email', 'integer', 'url'] as const) {
		expect(kinds[kind]).toMatchObject({ pattern: FIELD_KINDS[kind].pattern!.source, flags: FIELD_KINDS[kind].pattern!.flags });
		expect(kinds[kind]!.message).toBe(FIELD_KINDS[kind].message);
	}
	expect(validateFields('chat:getAll', { phone: { value: '+49 151', type: 'str' } })).toEqual([
		`Phone: ${FIELD_KINDS.phoneFilter.message}`,
	]);
	expect(validateFields('invitation:create', { email: { value: 'not-an-email', type: 'str' } })).toEqual([
		'Email: must be an email address',
	]);
});

describe('texts and help in locales/en-US, as Node-RED loads them beside the node file', () => {
	const locale = join(builtPackage('node-red').dir, 'dist', 'locales', 'en-US');
	const messages = JSON.parse(readFileSync(join(locale, 'index.json'), 'utf8')) as Record<string, unknown>;
	const help = readFileSync(join(locale, 'index.html'), 'utf8');
	const lookup = (key: string): unknown => key.split('.').reduce<any>((node, part) => node?.[part], messages);

	test('every text the templates point at (data-i18n) is in the message catalogue', () => {
		const keys = [...html.matchAll(/data-i18n="(?:\[\w+\])?([^"]+)"/g)].map((match) => match[1]!);
		expect(keys.length).toBeGreaterThan(100);
		expect(keys.filter((key) => typeof lookup(key) !== 'string')).toEqual([]);
		expect(lookup('chat-messaging.fields.message.sendToPhone.phone.label')).toBe('Phone Number');
		expect(lookup('chat-messaging.fields.chat.close.chat_id.help')).toMatch(/Never read from msg\.payload/);
		// Format rules come from the core's table of field kinds; a date alone is read in the configuration node's zone.
		expect(lookup('chat-messaging.fields.message.sendToPhone.phone.help')).toContain(`Format: ${FIELD_KINDS.phone.hint}.`);
		const createdAfter = findOperation('chat:getAll').fields.find((field) => field.kind === 'dateTime')!;
		expect(lookup(`chat-messaging.fields.chat.getAll.${createdAfter.name}.help`)).toContain(
			`Format: ${fieldHint(createdAfter, "the configuration node's time zone")}.`,
		);
	});

	test('the action help lists the operations and holds one block per operation, which the editor shows for the selected node', () => {
		const blocks = [...help.matchAll(/<div class="cm-help-op" data-operation="([^"]+)">/g)].map((match) => match[1]);
		// Send (with Send To) first among the message operations, then every catalogue operation, Get Conversation after the messages'.
		const composites = ['message:send', 'message:getConversation'];
		expect(blocks.filter((id) => !composites.includes(id!))).toEqual(OPERATIONS.map((op) => `${op.resource}:${op.operation}`));
		expect(blocks.indexOf('message:getConversation')).toBe(blocks.findLastIndex((id) => id!.startsWith('message:')));
		expect(blocks.indexOf('message:send')).toBe(blocks.findIndex((id) => id!.startsWith('message:')));
		expect(html).toContain('.red-ui-help .cm-help-op { display: none; }');
	});

	test('the help of each node type, with every operation, is in the help file and no longer in the editor HTML', () => {
		for (const type of ['chat-messaging', 'chat-messaging-config', 'chat-messaging-event']) {
			expect(help).toContain(`data-help-name="${type}"`);
			expect(html).not.toContain(`data-help-name="${type}"`);
		}
		for (const op of OPERATIONS) expect(help).toContain(`<code>${op.method} ${op.path}</code>`);
	});
});
