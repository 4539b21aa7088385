/**
 * The action node in real n8n executions (`n8n execute`, before n8n is started as a server): the operations users
 * saved with version 1 (list every chat, send, labels), version 2's addressing and filters (its requests read from
 * the recording proxy in front of the sandbox), a workflow saved with version 1 before version 2 existed, bad input
 * refused before any request, and both "On Error: Continue" settings.
 */
import { assert } from './checks';
import { CHAT_COUNT, describeCli, equalSets, nodeItems, nodeOutputs, required, type Case } from './run-context';
import { ACTION_NODE_NAME, WORKFLOW_IDS } from './workflows';

export const actionCases: Case[] = [
	{
		name: `(a) Chat: Get Many with Return All gives every chat (${CHAT_COUNT} > 120, 3 pages)`,
		run: async (e) => {
			const { cli, run } = await e.execute(WORKFLOW_IDS.listChats);
			assert(cli.code === 0, `n8n execute failed: ${describeCli(cli)}`);
			const items = nodeItems(run, ACTION_NODE_NAME);
			const sandboxIds = (await e.sandboxChats()).map((chat) => String(chat.id));
			const ids = items.map((item) => String(item.json.id));
			assert(items.length === sandboxIds.length, `n8n returned ${items.length} items, the sandbox holds ${sandboxIds.length} chats`);
			assert(equalSets(ids, sandboxIds), 'the items are not the sandbox chats, each once');
			return `${items.length} items, one per chat; n8n execute ${cli.ms} ms`;
		},
	},
	{
		name: '(b) Message: Send to Phone reaches the sandbox, once',
		run: async (e) => {
			const { cli, run } = await e.execute(WORKFLOW_IDS.sendMessage);
			assert(cli.code === 0, `n8n execute failed: ${describeCli(cli)}`);
			const items = nodeItems(run, ACTION_NODE_NAME);
			assert(items.length === 1, `expected 1 output item, got ${items.length}`);
			const uid = items[0].json.message_uid;
			assert(typeof uid === 'string' && uid, `the output has no message_uid: ${JSON.stringify(items[0].json)}`);
			const message = await e.sandbox<{ text: string; chat_id: number; from_me: boolean }>('GET', `/messages/${encodeURIComponent(uid)}`);
			assert(message.text === e.sendText, `the sandbox holds text ${JSON.stringify(message.text)}`);
			assert(message.from_me === true, 'the message is not from the workspace');
			const chat = (await e.sandboxChats()).find((c) => c.id === message.chat_id);
			assert(
				chat && chat.phone && chat.phone.replace(/^\+/, '') === e.sendPhone.replace(/^\+/, ''),
				`the message went to chat ${JSON.stringify(chat)}`,
			);
			const history = await e.sandbox<{ messages: Array<{ text: string }> }>('GET', `/chats/${message.chat_id}/messages`);
			const copies = history.messages.filter((m) => m.text === e.sendText).length;
			assert(copies === 1, `the chat holds ${copies} copies of the message`);
			return `uid ${uid}; n8n execute ${cli.ms} ms`;
		},
	},
	{
		name: '(c) Chat Label: Add keeps existing labels, Replace All sets exactly the new set',
		run: async (e) => {
			const chatForLabels = required(e.labelChat, 'a direct chat');
			const labelsOf = async () => (await e.sandbox<{ labels: string[] }>('GET', `/chats/${chatForLabels.id}/labels`)).labels;
			const before = await labelsOf();
			const added = await e.execute(WORKFLOW_IDS.addLabels);
			assert(added.cli.code === 0, `add: n8n execute failed: ${describeCli(added.cli)}`);
			nodeItems(added.run, ACTION_NODE_NAME);
			const afterAdd = await labelsOf();
			const expectedAfterAdd = [...new Set([...before, ...e.labelsToAdd])];
			assert(equalSets(afterAdd, expectedAfterAdd), `after add: ${JSON.stringify(afterAdd)}, expected ${JSON.stringify(expectedAfterAdd)}`);
			const replaced = await e.execute(WORKFLOW_IDS.replaceLabels);
			assert(replaced.cli.code === 0, `replace: n8n execute failed: ${describeCli(replaced.cli)}`);
			nodeItems(replaced.run, ACTION_NODE_NAME);
			const afterReplace = await labelsOf();
			assert(
				equalSets(afterReplace, e.labelsReplacement),
				`after replace: ${JSON.stringify(afterReplace)}, expected ${JSON.stringify(e.labelsReplacement)}`,
			);
			return `${JSON.stringify(before)} → ${JSON.stringify(afterAdd)} → ${JSON.stringify(afterReplace)}`;
		},
	},
	{
		name: '(v2) a chat picked from the list (resource locator, mode list) is read by its id',
		run: async (e) => {
			const chat = required(e.labelChat, 'a direct chat');
			e.recorded().length = 0;
			const { cli, run } = await e.execute(WORKFLOW_IDS.v2ChatFromList);
			assert(cli.code === 0, `n8n execute failed: ${describeCli(cli)}`);
			const items = nodeItems(run, ACTION_NODE_NAME);
			assert(
				items.length === 1 && items[0].json.id === chat.id,
				`expected chat ${chat.id}, got ${JSON.stringify(items[0]?.json).slice(0, 200)}`,
			);
			assert(equalSets(e.recorded(), [`GET /chats/${chat.id}`]), `requests: ${JSON.stringify(e.recorded())}`);
			return `version ${e.actionDefaultVersion}; requests ${JSON.stringify(e.recorded())}`;
		},
	},
	{
		name: '(v2) Send To = Chat Name (resource and operation left at their defaults) sends into that chat, once',
		run: async (e) => {
			const chat = required(e.labelChat, 'a direct chat');
			e.recorded().length = 0;
			const { cli, run } = await e.execute(WORKFLOW_IDS.v2SendToChatName);
			assert(cli.code === 0, `n8n execute failed: ${describeCli(cli)}`);
			const items = nodeItems(run, ACTION_NODE_NAME);
			const uid = items[0]?.json.message_uid;
			assert(typeof uid === 'string' && uid, `no message_uid: ${JSON.stringify(items[0]?.json)}`);
			assert(equalSets(e.recorded(), ['POST /messages/to_chat_name']), `requests: ${JSON.stringify(e.recorded())}`);
			const message = await e.sandbox<{ text: string; chat_id: number }>('GET', `/messages/${encodeURIComponent(uid)}`);
			assert(message.chat_id === chat.id && message.text === e.v2Text, `the message went to ${JSON.stringify(message)}`);
			const history = await e.sandbox<{ messages: Array<{ text: string }> }>('GET', `/chats/${chat.id}/messages`);
			assert(history.messages.filter((m) => m.text === e.v2Text).length === 1, 'the message is not in the chat exactly once');
			return `uid ${uid}`;
		},
	},
	{
		name: '(v2) tri-state filters on Any send no filter; Direct Chats Only sends group=false',
		run: async (e) => {
			e.recorded().length = 0;
			const { cli, run } = await e.execute(WORKFLOW_IDS.v2AnyFilter);
			assert(cli.code === 0, `n8n execute failed: ${describeCli(cli)}`);
			const items = nodeItems(run, ACTION_NODE_NAME);
			assert(items.length === 5 && items.every((item) => item.json.is_group === false), `items: ${items.length}`);
			const lists = e.recorded().filter((line) => line.startsWith('GET /chats?'));
			assert(lists.length >= 1, `no chat list request: ${JSON.stringify(e.recorded())}`);
			for (const line of lists) {
				const query = new URL(line.slice(4), 'http://x').searchParams;
				assert(!query.has('closed') && !query.has('read'), `a filter left on Any was sent: ${line}`);
				assert(query.get('group') === 'false', `group=false missing: ${line}`);
			}
			return JSON.stringify(lists);
		},
	},
	{
		name: '(v1) a workflow saved with version 1 before version 2 imports and runs as saved',
		run: async (e) => {
			const { cli, run } = await e.execute(WORKFLOW_IDS.savedV1);
			assert(cli.code === 0, `n8n execute failed: ${describeCli(cli)}`);
			const open = nodeItems(run, 'Open direct chats');
			assert(open.length === 5 && open.every((item) => item.json.closed === false && item.json.is_group === false), 'Open direct chats');
			const greetings = nodeItems(run, 'Send a greeting');
			assert(
				greetings.every((item) => typeof item.json.message_uid === 'string'),
				'Send a greeting gave no message_uid',
			);
			nodeItems(run, 'Label the chat');
			const workspace = nodeItems(run, 'Workspace');
			assert(typeof workspace[0]?.json.workspace_id === 'string', 'Workspace gave no workspace_id');
			const chat = await e.sandbox<{ closed: boolean; labels: string[] }>('GET', '/chats/1000001');
			assert(
				chat.closed === true && ['vip', 'follow-up'].every((label) => chat.labels.includes(label)),
				`chat 1000001: ${JSON.stringify(chat)}`,
			);
			return `${greetings.length} greetings sent, chat 1000001 labelled and closed`;
		},
	},
	{
		name: 'bad input: a phone with spaces fails the execution with an error naming the field',
		run: async (e) => {
			const quotaBefore = await e.sandbox<{ quota: { used: number } }>('GET', '/_sandbox/queue');
			const { cli, run } = await e.execute(WORKFLOW_IDS.invalidPhone);
			assert(cli.code !== 0, `n8n execute exited ${cli.code} for an invalid phone`);
			const error = run?.data.resultData.error;
			const text = `${error?.message ?? ''} ${error?.description ?? ''} ${cli.stdout} ${cli.stderr}`;
			assert(/phone/i.test(text), `the error does not name the field "phone": ${describeCli(cli)}`);
			// Refused by the node itself: a service answer would be a NodeApiError carrying its HTTP status.
			assert(
				error?.name === 'NodeOperationError' && !error.httpCode,
				`not refused before the request: ${JSON.stringify(error).slice(0, 400)}`,
			);
			const quotaAfter = await e.sandbox<{ quota: { used: number } }>('GET', '/_sandbox/queue');
			assert(quotaAfter.quota.used === quotaBefore.quota.used, 'a message was charged');
			return `error: ${(error?.message ?? '').slice(0, 120)}`;
		},
	},
	{
		name: 'On Error "Continue (using error output)": the invalid item leaves on the error output, the others are sent',
		run: async (e) => {
			const { cli, run } = await e.execute(WORKFLOW_IDS.errorOutput);
			assert(cli.code === 0, `n8n execute failed: ${describeCli(cli)}`);
			const [success, failed = []] = nodeOutputs(run, ACTION_NODE_NAME);
			assert(
				success.length === 2 && success.every((item) => typeof item.json.message_uid === 'string'),
				`success output: ${JSON.stringify(success).slice(0, 300)}`,
			);
			assert(failed.length === 1, `error output holds ${failed.length} items: ${JSON.stringify(failed).slice(0, 300)}`);
			assert(
				/phone/i.test(String(failed[0].json.error)),
				`the error item does not name the phone: ${JSON.stringify(failed[0].json).slice(0, 300)}`,
			);
			assert(
				(failed[0].json.details as { field?: string } | undefined)?.field === 'phone',
				`details: ${JSON.stringify(failed[0].json).slice(0, 300)}`,
			);
			const uids = success.map((item) => String(item.json.message_uid));
			assert(new Set(uids).size === 2, `message uids ${JSON.stringify(uids)}`);
			for (const uid of uids) {
				const message = await e.sandbox<{ text: string }>('GET', `/messages/${encodeURIComponent(uid)}`);
				assert(message.text === 'error output check', `message ${uid} holds ${JSON.stringify(message.text)}`);
			}
			return `2 sent, 1 on the error output: ${String(failed[0].json.error).slice(0, 80)}`;
		},
	},
	{
		name: 'On Error "Continue (regular output)": all three items leave on the one output, the invalid one as an error item',
		run: async (e) => {
			const { cli, run } = await e.execute(WORKFLOW_IDS.errorRegular);
			assert(cli.code === 0, `n8n execute failed: ${describeCli(cli)}`);
			const outputs = nodeOutputs(run, ACTION_NODE_NAME);
			const items = outputs[0];
			assert(outputs.length === 1 || (outputs[1] ?? []).length === 0, 'a second output was filled');
			assert(items.length === 3, `${items.length} items on the output`);
			assert(
				typeof items[1].json.error === 'string' && items[1].json.field === 'phone',
				`item 2: ${JSON.stringify(items[1].json).slice(0, 300)}`,
			);
			return 'items 1 and 3 sent, item 2 an error item naming phone';
		},
	},
];
