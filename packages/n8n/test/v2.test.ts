/**
 * Version 2 of the action node against a sandbox over real HTTP: its parameters (pickers, Send To,
 * tri-state filters), the editor's lists (listSearch with n8n's paginationToken, loadOptions) and
 * runs of the parameters those lists fill in. Version 1 keeps its own tests (action.test.ts).
 */
import type { IDataObject, ILoadOptionsFunctions, INodeProperties, INodePropertyOptions, INodeType } from 'n8n-workflow';

import { ChatMessaging } from '../nodes/ChatMessaging/ChatMessaging.node';
import { FIELD_KINDS } from '@chat-messaging/core';
import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';
import { binaryItem, createExecuteContext, type Credentials } from './support/n8n-context';
import { actionError, runAction, sandboxCall } from './support/run-action';

const TOKEN = 'n8n-v2-test-token-5b1e0d';
const versioned = new ChatMessaging();
const v2: INodeType = versioned.getNodeType(2);
const properties = v2.description.properties;

let sandbox: RunningSandbox;
let credentials: Credentials;
const control = (method: string, path: string, body?: unknown) => sandboxCall(sandbox.url, TOKEN, method, path, body);

beforeAll(async () => {
	sandbox = await startSandbox({ tokens: [TOKEN], seed: 9, chats: 75, paceMs: 20, deliveredAfterMs: 100, readAfterMs: 200 });
	credentials = { baseUrl: sandbox.url, apiToken: TOKEN };
});
afterAll(async () => {
	await sandbox?.stop();
});

describe('Webhook Create / Update with the public service', () => {
	// The service is public; the addresses are data the node must refuse, never targets.
	const publicService = { baseUrl: 'https://api.chat-messaging.example', apiToken: 'never-sent-token-0c1d' };
	it.each([
		['create', { event_type: 'chat:created', url: 'http://hooks.example.com/in' }, /is not HTTPS/],
		['create', { event_type: 'chat:created', url: 'https://10.0.0.3/in' }, /is on this machine or a private network/],
		['update', { id: { __rl: true, mode: 'id', value: '5' }, updateFields: { url: 'https://localhost/in' } }, /on this machine/],
	])('%s refuses an address the service cannot post to, naming URL, before any request', async (operation, parameters, problem) => {
		for (const nodeType of [v2, versioned.getNodeType(1)]) {
			const input = nodeType === v2 ? parameters : { ...parameters, id: '5' };
			const { error, requests } = await actionError(publicService, { resource: 'webhook', operation, ...input }, { nodeType });
			expect(error.message).toMatch(/^URL: must be a public HTTPS address/);
			expect(error.message).toMatch(problem);
			expect(requests).toHaveLength(0);
		}
	});
});

/** The editor's context for listSearch / loadOptions: the node's credential, real HTTP. */
function loadContext() {
	const { context, requests } = createExecuteContext({ properties, credentials, parameters: {} });
	return { context: context as unknown as ILoadOptionsFunctions, requests };
}

const run = (parameters: Record<string, unknown>, options: Parameters<typeof runAction>[2] = {}) =>
	runAction(credentials, parameters, { ...options, nodeType: v2 });

/** The parameters shown for these values (n8n's displayOptions.show). */
const shown = (values: Record<string, unknown>): INodeProperties[] =>
	properties.filter((property) =>
		Object.entries(property.displayOptions?.show ?? {}).every(
			([name, allowed]) => values[name] === undefined || (allowed as unknown[]).includes(values[name]),
		),
	);

async function directChat(): Promise<IDataObject> {
	const { json } = await run({ resource: 'chat', operation: 'getAll', limit: 5, filters: { group: 'false', closed: 'false' } });
	return json[0];
}

describe('version 2 parameters', () => {
	it('is the default version (2.2: its new defaults for new nodes); versions 1, 2 and 2.1 are still served', () => {
		expect(versioned.description.defaultVersion).toBe(2.2);
		expect(Object.keys(versioned.nodeVersions).map(Number)).toEqual([1, 2, 2.1, 2.2]);
		expect(versioned.getNodeType(1).description.properties.some((p) => p.name === 'sendTo')).toBe(false);
	});

	it('opens on Message → Send, Send first, with Send To and a readable subtitle', () => {
		expect(properties.find((p) => p.name === 'resource')?.default).toBe('message');
		const operation = properties.find((p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes('message'));
		expect((operation?.options as INodePropertyOptions[]).map((o) => o.name)).toEqual([
			'Get',
			'Get Burst to Answer',
			'Get Conversation',
			'Get Many',
			'Get Status History',
			'Send',
			// Added by Send and Wait for Reply: with five options n8n's lint wants them alphabetical; Send stays the default.
			'Send and Wait for Reply',
			'Send and Wait for Response',
			// One turn per burst with the webhook trigger (v2/actions/burst/burst.ts), with Get Burst to Answer.
			'Wait for Customer to Finish Typing',
		]);
		const sendTo = properties.find((p) => p.name === 'sendTo');
		expect((sendTo?.options as INodePropertyOptions[]).map((o) => o.name)).toEqual(['Phone Number', 'Chat', 'Chat Name', 'JID']);
		expect(v2.description.subtitle).toContain('Send to Chat Name');
		expect(v2.description.subtitle).not.toContain('sendToPhone');
	});

	it('Send To switches the addressing field; text is always there; options hold attachment and wait', () => {
		const names = (sendTo: string) => shown({ resource: 'message', operation: 'send', sendTo }).map((p) => `${p.name}:${p.type}`);
		expect(names('phone')).toEqual(expect.arrayContaining(['phone:string', 'text:string', 'options:collection']));
		expect(names('phone')).not.toContain('chat_id:resourceLocator');
		expect(names('chat')).toEqual(expect.arrayContaining(['chat_id:resourceLocator', 'text:string']));
		expect(names('chatName')).toEqual(expect.arrayContaining(['chat_name:string']));
		expect(names('jid')).toEqual(expect.arrayContaining(['jid:string']));
		const phoneOptions = shown({ resource: 'message', operation: 'send', sendTo: 'phone' }).find((p) => p.name === 'options');
		expect((phoneOptions?.options as INodeProperties[]).map((p) => p.name)).toEqual(
			expect.arrayContaining(['attachmentBinaryField', 'attachmentUrl', 'waitForStatus', 'waitTimeout', 'chatapp_account_id', 'chat_name']),
		);
		const phone = properties.find((p) => p.name === 'phone');
		expect(phone?.placeholder).toBe('+4915112345678');
		// Format rules are the core's table of field kinds, word for word; a date alone is read in the workflow's zone.
		expect(phone?.hint).toBe(FIELD_KINDS.phone.hint);
		expect(phone?.hint).toMatch(/\+14155550123/);
		const createdAfter = properties.find((p) => p.name === 'filters' && p.displayOptions?.show?.resource?.[0] === 'chat');
		const dateFilter = (createdAfter?.options as INodeProperties[]).find((p) => p.name === 'created_after');
		expect(dateFilter?.hint).toBe(FIELD_KINDS.dateTime.hint!.replace('{timeZone}', "the workflow's time zone"));
		expect(dateFilter?.hint).toMatch(/a date alone means midnight in the workflow's time zone/);
	});

	it('every id a user would copy is a resource locator with a searchable list', () => {
		const locators = properties.filter((p) => p.type === 'resourceLocator');
		const byName = new Map(locators.map((p) => [p.name, p]));
		for (const name of ['chat_id', 'id', 'uid', 'user_id', 'responsible']) expect(byName.has(name)).toBe(true);
		const chat = byName.get('chat_id');
		expect(chat?.modes?.map((mode) => mode.name)).toEqual(['list', 'id', 'url']);
		expect(chat?.modes?.[0]?.typeOptions).toMatchObject({ searchListMethod: 'searchChats', searchable: true });
		for (const locator of locators)
			expect(Object.keys(v2.methods?.listSearch ?? {})).toContain(locator.modes?.[0]?.typeOptions?.searchListMethod);
	});

	it('boolean filters are Any / <true> / <false>, Any by default; teammates, accounts and labels are loaded dropdowns', () => {
		const filters = properties.find((p) => p.name === 'filters' && p.displayOptions?.show?.resource?.includes('chat'));
		const members = new Map((filters?.options as INodeProperties[]).map((p) => [p.name, p]));
		const closed = members.get('closed');
		expect(closed).toMatchObject({ type: 'options', default: 'any' });
		expect((closed?.options as INodePropertyOptions[]).map((o) => [o.name, o.value])).toEqual([
			['Any', 'any'],
			['Closed', 'true'],
			['Open', 'false'],
		]);
		expect(members.get('responsible')).toMatchObject({ type: 'multiOptions', typeOptions: { loadOptionsMethod: 'getTeammates' } });
		expect(members.get('chatapp_account_id')).toMatchObject({ type: 'multiOptions', typeOptions: { loadOptionsMethod: 'getAccounts' } });
		expect(members.get('label')).toMatchObject({ type: 'multiOptions', typeOptions: { loadOptionsMethod: 'getLabels' } });
		for (const method of ['getTeammates', 'getAccounts', 'getLabels', 'getTeammatesOrNobody'])
			expect(Object.keys(v2.methods?.loadOptions ?? {})).toContain(method);
	});

	it('descriptions users read name no HTTP verb', () => {
		const texts = JSON.stringify(
			properties.map((p) => [p.description, (p.options ?? []).map((o) => ('description' in o ? o.description : ''))]),
		);
		expect(texts).not.toMatch(/\((PATCH|PUT|POST)\b|\b(PATCH|PUT)\b/);
	});
});

describe('the editor lists, against the sandbox', () => {
	it('searchChats pages lazily with paginationToken, and searches by name or phone', async () => {
		const { context, requests } = loadContext();
		const first = await v2.methods!.listSearch!.searchChats.call(context);
		expect(first.results).toHaveLength(50);
		expect(first.paginationToken).toBe('2');
		expect(requests).toHaveLength(1);
		const second = await v2.methods!.listSearch!.searchChats.call(context, undefined, first.paginationToken as string);
		expect(second.results).toHaveLength(25);
		expect(second.paginationToken).toBeUndefined();
		expect(new Set([...first.results, ...second.results].map((r) => r.value)).size).toBe(75);
		expect(first.results[0]?.url).toMatch(/\/chats\/\d+$/);

		const chat = await directChat();
		const byName = await v2.methods!.listSearch!.searchChats.call(context, String(chat.name).slice(0, 6).toLowerCase());
		expect(byName.results.map((r) => r.value)).toContain(String(chat.id));
		const byPhone = await v2.methods!.listSearch!.searchChats.call(context, String(chat.phone));
		expect(byPhone.results.map((r) => r.value)).toEqual([String(chat.id)]);
	});

	it('loads teammates, accounts and labels in use from the workspace', async () => {
		const { context } = loadContext();
		const mates = (await control('GET', '/workspace/teammates')) as IDataObject;
		const active = (mates.teammates as IDataObject[]).filter((m) => m.status === 'active').map((m) => m.email);
		const teammates = await v2.methods!.loadOptions!.getTeammates.call(context);
		expect(teammates.map((o) => o.value).sort()).toEqual([...active].sort());
		const nobody = await v2.methods!.loadOptions!.getTeammatesOrNobody.call(context);
		expect(nobody[0]).toMatchObject({ value: '' });
		const accounts = await v2.methods!.loadOptions!.getAccounts.call(context);
		expect(accounts.length).toBeGreaterThan(0);
		expect(accounts.every((o) => /@/.test(String(o.value)))).toBe(true);
		const labels = await v2.methods!.loadOptions!.getLabels.call(context);
		expect(labels.length).toBeGreaterThan(0);
	});

	it('a rejected token in a list is an error that does not show the token', async () => {
		const { context } = createExecuteContext({
			properties,
			credentials: { ...credentials, apiToken: 'wrong-token-123456' },
			parameters: {},
		});
		const error = await v2.methods!.listSearch!.searchChats.call(context as unknown as ILoadOptionsFunctions).catch((e: Error) => e);
		expect(error).toBeInstanceOf(Error);
		expect(String((error as Error).message)).not.toContain('wrong-token-123456');
	});
});

describe('version 2 runs', () => {
	it('a chat picked from the list, by ID or by URL is the same chat', async () => {
		const chat = await directChat();
		for (const locator of [
			{ __rl: true, mode: 'list', value: String(chat.id), cachedResultName: String(chat.name) },
			{ __rl: true, mode: 'id', value: ` ${String(chat.id)} ` },
			{ __rl: true, mode: 'url', value: String(chat.chat_url) },
		]) {
			const { json } = await run({ resource: 'chat', operation: 'get', chat_id: locator });
			expect(json[0]?.id).toBe(chat.id);
		}
		const error = await actionError(
			credentials,
			{ resource: 'chat', operation: 'get', chat_id: { __rl: true, mode: 'url', value: 'https://example.com/x' } },
			{ nodeType: v2 },
		);
		expect(error.error.message).toMatch(/^Chat ID: is not a chat URL/);
		expect(error.requests).toHaveLength(0);
	});

	it('Send To = Chat Name sends into that chat; Send To = Chat sends by the picked id', async () => {
		const chat = await directChat();
		const byName = await run({ resource: 'message', operation: 'send', sendTo: 'chatName', chat_name: chat.name, text: 'by name (v2)' });
		expect(byName.requests.map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual(['POST /messages/to_chat_name']);
		const sent = (await control('GET', `/messages/${String(byName.json[0]?.message_uid)}`)) as IDataObject;
		expect(sent).toMatchObject({ chat_id: chat.id, text: 'by name (v2)' });

		const byId = await run({
			resource: 'message',
			operation: 'send',
			sendTo: 'chat',
			chat_id: { __rl: true, mode: 'list', value: String(chat.id) },
			text: 'by id (v2)',
			options: { waitForStatus: 'sent', waitTimeout: 20 },
		});
		expect(byId.requests[0]).toMatchObject({ method: 'POST' });
		expect(new URL(byId.requests[0]!.url).pathname).toBe(`/chats/${String(chat.id)}/messages`);
		expect(byId.json[0]?.status).toMatch(/sent|delivered|read/);
	});

	it('Send takes an attachment from the Options (binary field), or refuses two attachments before any request', async () => {
		const chat = await directChat();
		const items = [binaryItem({}, 'doc', Buffer.from('hello v2'), 'hello.txt', 'text/plain')];
		const withFile = await run(
			{
				resource: 'message',
				operation: 'send',
				sendTo: 'phone',
				phone: chat.phone,
				text: 'see file',
				options: { attachmentBinaryField: 'doc' },
			},
			{ items },
		);
		expect(withFile.requests.map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual(['POST /files_upload', 'POST /messages']);
		const both = await actionError(
			credentials,
			{
				resource: 'message',
				operation: 'send',
				sendTo: 'phone',
				phone: chat.phone,
				text: 'x',
				options: { attachmentBinaryField: 'doc', attachmentUrl: 'https://example.com/a.pdf' },
			},
			{ items, nodeType: v2 },
		);
		expect(both.error.message).toMatch(/^Attachment From URL: /);
		expect(both.requests).toHaveLength(0);
	});

	it('a tri-state filter on Any sends no filter; Open sends closed=false', async () => {
		const any = await run({ resource: 'chat', operation: 'getAll', limit: 3, filters: { closed: 'any', read: 'any' } });
		const query = new URL(any.requests[0]!.url).searchParams;
		expect(query.has('closed')).toBe(false);
		expect(query.has('read')).toBe(false);
		const open = await run({ resource: 'chat', operation: 'getAll', limit: 3, filters: { closed: 'false' } });
		expect(new URL(open.requests[0]!.url).searchParams.get('closed')).toBe('false');
		expect(open.json.every((chat) => chat.closed === false)).toBe(true);
	});

	it('Assign takes the teammate from its locator; label filters from the dropdown go out as a list', async () => {
		const chat = await directChat();
		const mates = ((await control('GET', '/workspace/teammates')) as IDataObject).teammates as IDataObject[];
		const mate = mates.find((m) => m.status === 'active')!;
		await run({
			resource: 'chat',
			operation: 'assign',
			chat_id: { __rl: true, mode: 'list', value: String(chat.id) },
			responsible: { __rl: true, mode: 'list', value: mate.email },
		});
		const after = (await control('GET', `/chats/${String(chat.id)}`)) as IDataObject;
		expect(after.responsible_email).toBe(mate.email);
		const labelled = await run({ resource: 'chat', operation: 'getAll', limit: 2, filters: { label: ['vip', 'support'] } });
		expect(new URL(labelled.requests[0]!.url).searchParams.get('label')).toBe('vip,support');
	});
});
