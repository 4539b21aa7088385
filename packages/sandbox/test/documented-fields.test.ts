/**
 * The sandbox does not teach habits the service may break: every response field it emits is either
 * documented (the spec, or the service notes where the spec says "not shown") or listed as
 * sandbox-only in sandbox/README.md. The emitted fields are read from real responses, so a new
 * undocumented field fails here until it is listed.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { call, data, FAST, startReceiver, startSandbox, waitFor, type Receiver, type Sandbox } from './helpers';

/** Documented fields per record kind: the spec's tables, then the service notes' "not shown" fills. */
const DOCUMENTED: Record<string, string[]> = {
	chat: [
		'id',
		'name',
		'phone',
		'jid',
		'is_group',
		'closed',
		'read',
		'labels',
		'ai_autoresponse_enabled',
		'responsible_email',
		'responsible_name',
		'chatapp_account_id',
		'chat_url',
		'created_timestamp',
		'last_message_uid',
		'last_message_timestamp',
		'unattended',
		'photo',
		'group_members',
		'is_allowed_to_message',
	],
	'chat.group_members[]': ['name', 'phone', 'role', 'chat_id'],
	'chat list': ['has_more_pages', 'chats'],
	message: [
		'uid',
		'chat_id',
		'timestamp',
		'sender_phone',
		'sender_name',
		'recipient_phone',
		'recipient_name',
		'from_me',
		'status',
		'origin',
		'has_attachment',
		'message_type',
		'text',
		'attachment_url',
		'attachment_filename',
		'reply_to',
		'reactions',
	],
	'message list': ['has_more_pages', 'messages'],
	'send answer': ['message_uid'],
	'status history[]': ['status', 'timestamp'],
	reactions: ['reactions', 'users', 'total'],
	'reactions.users[]': ['name', 'phone', 'reaction', 'current'],
	labels: ['labels'],
	note: ['text'],
	file: ['uid', 'filename', 'size', 'mimetype', 'uploaded_by_email', 'uploaded_at', 'temporary_download_url'],
	'file list': ['has_more_pages', 'files'],
	'account list': ['chatapp_accounts'],
	account: ['id', 'phone', 'connected_on', 'status', 'owner_name', 'owner_email', 'account_name'],
	workspace: ['workspace_id', 'display_name', 'plan', 'messaging_quota', 'api_calls_quota', 'seats', 'non_recurring_quota'],
	'workspace.messaging_quota': ['total', 'used', 'period_start', 'period_end'],
	'workspace.non_recurring_quota': ['remaining_balance', 'last_updated_at'],
	'teammate list': ['teammates'],
	teammate: ['user_id', 'display_name', 'email', 'status', 'created_at', 'role', 'chatapp_accounts'],
	invitation: [],
	webhook: ['id', 'event_type', 'url', 'enabled', 'errors_counter'],
	'webhook list': ['webhooks'],
	'delete answer': [],
	'event (spec shape)': ['event_type', 'data'],
	'event (spec shape).data': ['chat_id', 'chat_name', 'text', 'message_uid', 'unattended_customer'],
};

/** `kind: field, field` lines of the README's sandbox-only section. */
function sandboxOnlyList(): Record<string, string[]> {
	const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
	const section = readme.split('## Sandbox-only fields')[1]?.split('\n## ')[0];
	if (!section) throw new Error('sandbox/README.md has no "## Sandbox-only fields" section');
	const out: Record<string, string[]> = {};
	for (const [, kind, fields] of section.matchAll(/^- \*\*(.+?)\*\*: (.+)$/gm)) {
		out[kind] = [...fields.matchAll(/`([^`]+)`/g)].map((match) => match[1]);
	}
	return out;
}

let sbx: Sandbox;
let hooks: Receiver;
const emitted = new Map<string, Set<string>>();
const record = (kind: string, value: unknown) => {
	if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${kind}: not an object: ${JSON.stringify(value)}`);
	const keys = emitted.get(kind) ?? new Set<string>();
	for (const key of Object.keys(value)) keys.add(key);
	emitted.set(kind, keys);
};
const recordEach = (kind: string, values: unknown[]) => values.forEach((value) => record(kind, value));

beforeAll(async () => {
	sbx = await startSandbox({ ...FAST, chats: 40, accounts: 2, tokens: ['fields'] });
	hooks = await startReceiver();
	await call(sbx, 'POST', '/webhooks', { event_type: 'message:received:new', url: hooks.url, enabled: true });
	await call(sbx, 'POST', '/webhooks', { event_type: 'chat:created', url: hooks.url, enabled: true });

	const list = await data(sbx, '/chats');
	record('chat list', list);
	recordEach('chat', list.chats);
	for (const chat of list.chats) if (chat.group_members) recordEach('chat.group_members[]', chat.group_members);
	const direct = list.chats.find((chat: any) => !chat.is_group && chat.is_allowed_to_message !== false);
	record('chat', await data(sbx, `/chats/${direct.id}`));
	record('chat', (await call(sbx, 'PATCH', `/chats/${direct.id}`, { read: true })).body.data);

	const sent = (await call(sbx, 'POST', '/messages', { phone: '+4915100000042', text: 'fields' })).body.data;
	record('send answer', sent);
	record('send answer', (await call(sbx, 'POST', `/chats/${direct.id}/messages`, { text: 'in chat' })).body.data);
	record('message', await data(sbx, `/messages/${sent.message_uid}`));
	recordEach('status history[]', await data(sbx, `/messages/${sent.message_uid}/status_history`));
	const history = await data(sbx, `/chats/${direct.id}/messages`);
	record('message list', history);
	recordEach('message', history.messages);
	await call(sbx, 'PUT', `/messages/${history.messages[0].uid}/reactions`, { reaction: '👍' });
	const reactions = await data(sbx, `/messages/${history.messages[0].uid}/reactions`);
	record('reactions', reactions);
	recordEach('reactions.users[]', reactions.users);

	record('labels', await data(sbx, `/chats/${direct.id}/labels`));
	record('labels', (await call(sbx, 'PUT', `/chats/${direct.id}/labels`, { labels: ['x'] })).body.data);
	record('labels', (await call(sbx, 'POST', `/chats/${direct.id}/labels`, { labels: ['y'] })).body.data);
	record('note', (await call(sbx, 'POST', `/chats/${direct.id}/notes`, { text: 'n' })).body.data);

	const form = new FormData();
	form.append('file', new Blob([Buffer.from('abc')], { type: 'text/plain' }), 'a.txt');
	const uploaded = (await (
		await fetch(`${sbx.url}/files_upload`, { method: 'POST', headers: { authorization: 'Bearer fields' }, body: form })
	).json()) as any;
	record('file', uploaded.data);
	record('file', (await call(sbx, 'POST', '/files', { download_url: 'https://cdn.example.com/b.pdf' })).body.data);
	record('file', await data(sbx, `/files/${uploaded.data.uid}`));
	const files = await data(sbx, '/files');
	record('file list', files);
	recordEach('file', files.files);
	record('delete answer', (await call(sbx, 'DELETE', `/files/${uploaded.data.uid}`)).body.data);

	const accounts = await data(sbx, '/chatapp_accounts');
	record('account list', accounts);
	recordEach('account', accounts.chatapp_accounts);
	const workspace = await data(sbx, '/workspace');
	record('workspace', workspace);
	record('workspace.messaging_quota', workspace.messaging_quota);
	record('workspace.non_recurring_quota', workspace.non_recurring_quota);
	const teammates = await data(sbx, '/workspace/teammates');
	record('teammate list', teammates);
	recordEach('teammate', teammates.teammates);
	const invitation = (await call(sbx, 'POST', '/workspace/invitations', { email: 'fields@example.com' })).body.data;
	record('invitation', invitation);
	record('delete answer', (await call(sbx, 'DELETE', `/workspace/invitations/${invitation.user_id}`)).body.data);

	const webhook = (await call(sbx, 'POST', '/webhooks', { event_type: 'message:sent:new', url: 'https://hooks.example.com/x' })).body.data;
	record('webhook', webhook);
	record('webhook', await data(sbx, `/webhooks/${webhook.id}`));
	record('webhook', (await call(sbx, 'PUT', `/webhooks/${webhook.id}`, { enabled: false })).body.data);
	const webhooks = await data(sbx, '/webhooks');
	record('webhook list', webhooks);
	recordEach('webhook', webhooks.webhooks);
	record('delete answer', (await call(sbx, 'DELETE', `/webhooks/${webhook.id}`)).body.data);

	await call(sbx, 'POST', '/_sandbox/incoming', { phone: '+4915100000043', text: 'hello' });
	const events = await waitFor('hooks.received.length >= 2 && hooks.received', () => hooks.received.length >= 2 && hooks.received);
	for (const event of events) {
		record('event (spec shape)', event.body);
		record('event (spec shape).data', event.body.data);
	}
});
afterAll(async () => {
	await sbx.stop();
	await hooks.stop();
});

test('every field the sandbox emits is documented or listed as sandbox-only in sandbox/README.md', () => {
	const listed = sandboxOnlyList();
	const unlisted: string[] = [];
	for (const [kind, keys] of emitted) {
		const known = new Set([...(DOCUMENTED[kind] ?? []), ...(listed[kind] ?? [])]);
		for (const key of keys) if (!known.has(key)) unlisted.push(`${kind}: ${key}`);
	}
	expect(unlisted).toEqual([]);
});

test('the sandbox-only list names only fields the sandbox emits and the spec does not document', () => {
	const stale: string[] = [];
	for (const [kind, fields] of Object.entries(sandboxOnlyList())) {
		for (const field of fields) {
			if (!emitted.get(kind)?.has(field)) stale.push(`${kind}: ${field} (not emitted)`);
			if (DOCUMENTED[kind]?.includes(field)) stale.push(`${kind}: ${field} (documented)`);
		}
	}
	expect(stale).toEqual([]);
});

test('every record kind was seen', () => {
	expect([...emitted.keys()].sort()).toEqual(Object.keys(DOCUMENTED).sort());
});
