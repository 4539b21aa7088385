/**
 * packages/core/src/runtime/events/replies.ts against the sandbox over real HTTP: after a send, the customer's next inbound message
 * in that chat is the reply (not a message in another chat, not one before the send, not our own);
 * the wait ends on the reply or times out; a webhook delivery of either shape is recognised.
 */
import { Executor } from '../src';
import { findReply, replyInDelivery, replyWatchFor, replyWatchOf, waitForReply } from '../src/runtime/events/replies';
import { startSandbox } from '@chat-messaging/sandbox';
import { realTiming } from '../../../test/support/fetch-transport';
import { sandboxClient } from '../../../test/support/harness';
import { sandboxExecutor } from '../../../test/support/sandbox-executor';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

let sandbox: Sandbox;
let executor: Executor;
const TOKEN = 'replies-api-token';

const control = (path: string, body: unknown = {}): Promise<Record<string, unknown>> =>
	sandboxClient(sandbox.url, TOKEN).control(path, body);
const incoming = (body: Record<string, unknown>) => control('/_sandbox/incoming', body);
const uidOf = (answer: Record<string, unknown>) => String((answer.message as Record<string, unknown>).uid);

let chats: Array<Record<string, unknown>>;

beforeAll(async () => {
	sandbox = await startSandbox({ tokens: [TOKEN], chats: 5, seed: 3, paceMs: 10, deliveredAfterMs: 0, readAfterMs: 0 });
	executor = sandboxExecutor(sandbox.url, TOKEN);
	chats = (await executor.run('chat:getAll', { group: false })) as Array<Record<string, unknown>>;
});

afterAll(async () => {
	await sandbox.stop();
});

describe('findReply', () => {
	it("finds the customer's first inbound message after the send in that chat only", async () => {
		const [chat, other] = chats;
		await incoming({ chat_id: chat.id, text: 'before our message' });
		const sent = await executor.sendMessage('message:sendToChat', { chat_id: chat.id, text: 'Shall we deliver tomorrow?' });
		const watch = await replyWatchFor(executor, sent);
		expect(watch).toEqual({ chat_id: chat.id, message_uid: sent.message_uid });
		expect(await findReply(executor, watch)).toBeUndefined();

		await incoming({ chat_id: other.id, text: 'another chat' });
		await executor.sendMessage('message:sendToChat', { chat_id: chat.id, text: 'our own follow-up' });
		expect(await findReply(executor, watch)).toBeUndefined();

		const yes = await incoming({ chat_id: chat.id, text: 'Yes please' });
		await incoming({ chat_id: chat.id, text: 'and a second answer' });
		const reply = await findReply(executor, watch);
		expect(reply).toMatchObject({ event_type: 'message:received:new', chat_id: chat.id, chat_name: chat.name, text: 'Yes please' });
		expect(reply?.message_uid).toBe(uidOf(yes));
	});

	it('reads the chat from the message record when the send answer has only the uid (the spec shape)', async () => {
		const sent = await executor.sendMessage('message:sendToChat', { chat_id: chats[1].id, text: 'uid only' });
		expect(await replyWatchFor(executor, { message_uid: sent.message_uid })).toEqual({
			chat_id: chats[1].id,
			message_uid: sent.message_uid,
		});
		expect(() => replyWatchOf({ chat_id: 1 })).toThrow(/message_uid/);
	});
});

describe('waitForReply', () => {
	it('returns the reply as soon as it comes', async () => {
		const chat = chats[2];
		const sent = await executor.sendMessage('message:sendToChat', { chat_id: chat.id, text: 'Reply with OK' });
		const watch = await replyWatchFor(executor, sent);
		const waiting = waitForReply(executor, watch, { timeoutMs: 20_000, intervalMs: 100, timing: realTiming });
		await realTiming.sleep(300);
		const ok = await incoming({ chat_id: chat.id, text: 'OK' });
		const outcome = await waiting;
		expect('reply' in outcome && outcome.reply.message_uid).toBe(uidOf(ok));
	});

	it('times out when no reply comes, as an outcome and not an error', async () => {
		const sent = await executor.sendMessage('message:sendToChat', { chat_id: chats[3].id, text: 'Anyone there?' });
		const watch = await replyWatchFor(executor, sent);
		const outcome = await waitForReply(executor, watch, { timeoutMs: 400, intervalMs: 100, timing: realTiming });
		expect(outcome).toMatchObject({ timedOut: true });
	});

	it('rejects a time-out that is not positive, naming it', async () => {
		await expect(waitForReply(executor, { chat_id: 1, message_uid: 'x' }, { timeoutMs: 0, timing: realTiming })).rejects.toThrow(/timeout/);
	});
});

describe('replyInDelivery', () => {
	const watch = { chat_id: 1000001, message_uid: 'SENT-1' };
	it('recognises a message:received:new of the chat in both payload shapes', () => {
		const spec = { event_type: 'message:received:new', data: { chat_id: 1000001, chat_name: 'Anna', text: 'yes', message_uid: 'IN-1' } };
		const live = {
			event_type: 'message:received:new',
			chat: { chat_id: 1000001, full_name: 'Anna' },
			message: { text: 'yes', message_uid: 'IN-2', direction: 'inbound' },
		};
		expect(replyInDelivery(spec, watch)?.message_uid).toBe('IN-1');
		expect(replyInDelivery(live, watch)?.text).toBe('yes');
	});

	it('ignores other chats, other events, our own message and malformed bodies', () => {
		expect(replyInDelivery({ event_type: 'message:received:new', data: { chat_id: 2, text: 'x' } }, watch)).toBeUndefined();
		expect(replyInDelivery({ event_type: 'message:sent:new', data: { chat_id: 1000001, text: 'x' } }, watch)).toBeUndefined();
		expect(
			replyInDelivery({ event_type: 'message:received:new', data: { chat_id: 1000001, message_uid: 'SENT-1' } }, watch),
		).toBeUndefined();
		expect(replyInDelivery('nonsense', watch)).toBeUndefined();
	});
});
