/**
 * The event filters read once (readEventFilter, by the catalogue's names, the webhook trigger's first
 * Ignore Group Messages included) and evaluated once (eventPassesFilter). Every event here carries its chat,
 * as polled events do, so no request is needed: the executor points at a closed port and is never reached.
 */
import { ChatMessagingError, eventPassesFilter, EVENT_FILTER_OPTIONS, Executor, readEventFilter, type ChatEvent } from '../src';

const executor = new Executor({
	baseUrl: 'http://127.0.0.1:9',
	token: 'unused',
	transport: () => Promise.reject(new Error('no request was expected')),
	timing: { sleep: () => Promise.resolve(), now: () => 0, random: () => 0 },
});

const event = (chat: Record<string, unknown>, type = 'message:received:new'): ChatEvent => ({
	event_type: type,
	chat_id: 5,
	chat_name: 'x',
	text: 'hi',
	message_uid: 'M1',
	unattended: null,
	raw: { chat: { id: 5, labels: [], chatapp_account_id: 'a@c.us', ...chat }, message: { origin: 'Web' } },
});

test('reads every filter the catalogue defines; what is not set passes everything', () => {
	expect(EVENT_FILTER_OPTIONS.map((option) => option.name).sort()).toEqual(['accountIds', 'chatType', 'ignoreOwnMessages', 'labels']);
	expect(readEventFilter({})).toEqual({ labels: [], accountIds: [], ignoreApiSent: false });
	expect(readEventFilter({ labels: 'vip, ,Support', accountIds: 'a@c.us', chatType: 'group', ignoreOwnMessages: true })).toEqual({
		labels: ['vip', 'Support'],
		accountIds: ['a@c.us'],
		group: true,
		ignoreApiSent: true,
	});
	expect(readEventFilter({ chatType: 'direct' }).group).toBe(false);
	// The webhook trigger's version 1 saved Ignore Group Messages: the same as Direct Chats Only.
	expect(readEventFilter({ ignoreGroupMessages: true }).group).toBe(false);
	expect(readEventFilter({ ignoreGroupMessages: false }).group).toBeUndefined();
});

test('a Chat Type it does not offer is refused, naming the option', () => {
	expect(() => readEventFilter({ chatType: 'channels' })).toThrow(ChatMessagingError);
	expect(() => readEventFilter({ chatType: 'channels' })).toThrow(/^Chat Type: must be one of any, direct, group, got "channels"/);
});

test('Chat Type keeps direct chats only, or group chats only', async () => {
	const direct = event({ is_group: false });
	const group = event({ is_group: true });
	const only = (chatType: string) => readEventFilter({ chatType });
	expect(await eventPassesFilter(executor, direct, only('direct'))).toBe(true);
	expect(await eventPassesFilter(executor, group, only('direct'))).toBe(false);
	expect(await eventPassesFilter(executor, direct, only('group'))).toBe(false);
	expect(await eventPassesFilter(executor, group, only('group'))).toBe(true);
	expect(await eventPassesFilter(executor, group, only('any'))).toBe(true);
});

test('labels match any of them, case-insensitively; accounts exactly', async () => {
	const vip = event({ is_group: false, labels: ['VIP'] });
	expect(await eventPassesFilter(executor, vip, readEventFilter({ labels: 'other, vip' }))).toBe(true);
	expect(await eventPassesFilter(executor, vip, readEventFilter({ labels: 'other' }))).toBe(false);
	expect(await eventPassesFilter(executor, vip, readEventFilter({ accountIds: 'a@c.us' }))).toBe(true);
	expect(await eventPassesFilter(executor, vip, readEventFilter({ accountIds: 'b@c.us' }))).toBe(false);
});
