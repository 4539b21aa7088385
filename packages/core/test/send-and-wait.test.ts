/**
 * Send and Wait (n8n's `sendAndWait`): a composite resumed by link. Its descriptor sits beside the
 * others but outside the catalogue every surface runs on its own; its one handler builds the text
 * with the links the platform hands it and sends through Send, against the sandbox over real HTTP.
 */
import {
	ALL_COMPOSITES,
	CATALOGUE,
	COMPOSITES,
	Executor,
	findComposite,
	operationId,
	SEND_AND_WAIT_COMPOSITE,
	SEND_TARGETS,
	TransportFailure,
	type ChatMessagingError,
	type TransportRequest,
} from '../src';
import { startSandbox } from '@chat-messaging/sandbox';
import { fetchTransport, realTiming } from '../../../test/support/fetch-transport';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

const URLS = {
	approve: 'http://127.0.0.1:5678/webhook-waiting/41/node-1?approved=true&signature=a',
	disapprove: 'http://127.0.0.1:5678/webhook-waiting/41/node-1?approved=false&signature=b',
	respond: 'http://127.0.0.1:5678/webhook-waiting/41/node-1?approved=true&signature=a',
};

describe('Send and Wait in the catalogue', () => {
	it('is a composite resumed by link: found by id, offered only where a platform pauses and serves links', () => {
		expect(findComposite('message:sendAndWait')).toBe(SEND_AND_WAIT_COMPOSITE);
		expect(SEND_AND_WAIT_COMPOSITE.resumedByLink).toBe(true);
		expect(ALL_COMPOSITES.map(operationId)).toContain('message:sendAndWait');
		expect(COMPOSITES.filter((composite) => composite.resumedByLink)).toEqual([]);
		expect(CATALOGUE.map(operationId)).not.toContain('message:sendAndWait');
	});

	it("offers every Send To choice, and n8n's parameter names and defaults", () => {
		expect(SEND_AND_WAIT_COMPOSITE.variants.options.map((variant) => variant.operation)).toEqual(
			SEND_TARGETS.map((target) => target.operation),
		);
		const defaults = Object.fromEntries(SEND_AND_WAIT_COMPOSITE.options.map((option) => [option.name, option.default]));
		expect(defaults).toMatchObject({
			responseType: 'approval',
			approvalType: 'single',
			approveLabel: 'Approve',
			disapproveLabel: 'Decline',
			messageButtonLabel: 'Respond',
			responseFormButtonLabel: 'Submit',
		});
		expect(SEND_AND_WAIT_COMPOSITE.fields.map(({ field }) => field.name)).toEqual(['phone', 'chat_id', 'chat_name', 'jid', 'message']);
	});
});

describe('Send and Wait runs through Executor.run against the sandbox', () => {
	let sandbox: Sandbox;
	const requests: TransportRequest[] = [];
	let chat: Record<string, any>;
	/** Drops the answer of the next send after the sandbox stored it, as a connection lost mid-answer does. */
	let loseNextSendAnswer = false;
	let executor: Executor;

	const storedTexts = async (chatId: number): Promise<string[]> => {
		const messages = (await executor.run('message:getAll', { chat_id: chatId })) as Array<{ text: string | null }>;
		return messages.map((message) => message.text ?? '');
	};

	beforeAll(async () => {
		sandbox = await startSandbox({ paceMs: 20, deliveredAfterMs: 40, readAfterMs: 80, seed: 7, tokens: ['send-and-wait-token'] });
		executor = new Executor({
			baseUrl: sandbox.url,
			timing: realTiming,
			token: sandbox.tokens[0],
			retry: { baseDelayMs: 10, sendSettleMs: 200 },
			transport: async (request) => {
				requests.push(request);
				const response = await fetchTransport(request);
				if (loseNextSendAnswer && request.method === 'POST') {
					loseNextSendAnswer = false;
					throw new TransportFailure('socket hang up', 'ECONNRESET', true);
				}
				return response;
			},
		});
		const chats = (await executor.run('chat:getAll', { group: false })) as Array<Record<string, any>>;
		chat = chats.find((candidate) => candidate.is_allowed_to_message !== false)!;
	});
	afterAll(() => sandbox.stop());
	beforeEach(() => (requests.length = 0));

	it('Approval (approve and disapprove) sends the message with one line per link, labels as given', async () => {
		const sent = (await executor.run('message:sendAndWait', {
			sendTo: 'chat',
			chat_id: chat.id,
			message: 'Refund 40 EUR to order 1182?',
			approvalType: 'double',
			approveLabel: 'Yes, refund',
			resumeUrls: URLS,
		})) as Record<string, any>;
		expect(sent.message_uid).toEqual(expect.any(String));
		const text = `Refund 40 EUR to order 1182?\n\nYes, refund: ${URLS.approve}\nDecline: ${URLS.disapprove}`;
		expect(await storedTexts(chat.id)).toContain(text);
	});

	it('Approval by default offers the approve link only; Free Text the form link, to a phone number', async () => {
		await executor.run('message:sendAndWait', { sendTo: 'chat', chat_id: chat.id, message: 'Ship it?', resumeUrls: URLS });
		expect(await storedTexts(chat.id)).toContain(`Ship it?\n\nApprove: ${URLS.approve}`);

		await executor.run('message:sendAndWait', {
			phone: String(chat.phone),
			message: 'Which day suits you?',
			responseType: 'freeText',
			resumeUrls: URLS,
		});
		expect(await storedTexts(chat.id)).toContain(`Which day suits you?\n\nRespond: ${URLS.respond}`);
	});

	it('a send whose answer was lost is looked up, not sent again', async () => {
		const message = `Approve the lost one ${Date.now()}?`;
		loseNextSendAnswer = true;
		const sent = (await executor.run('message:sendAndWait', { sendTo: 'chat', chat_id: chat.id, message, resumeUrls: URLS })) as Record<
			string,
			any
		>;
		expect(sent.message_uid).toEqual(expect.any(String));
		expect((await storedTexts(chat.id)).filter((text) => text.startsWith(message))).toHaveLength(1);
		expect(requests.filter((request) => request.method === 'POST')).toHaveLength(1);
	});

	it.each([
		[{ sendTo: 'chat', chat_id: 1, message: '  ' }, /^Message: is required/],
		[{ sendTo: 'chat', chat_id: 1, message: 'x', responseType: 'poll' }, /^Response Type: must be one of approval, freeText, got "poll"/],
		[{ sendTo: 'chat', chat_id: 1, message: 'x', approvalType: 'triple' }, /^Type of Approval: must be one of single, double/],
		[{ sendTo: 'chat', chat_id: 1, message: 'x', approveLabel: 'Yes\nreally' }, /^Approve Button Label: must be one line/],
		[{ sendTo: 'chat', chat_id: 'abc', message: 'x' }, /^Chat ID: /],
		[{ sendTo: 'pigeon', message: 'x' }, /^Send To: must be one of phone, chat, chatName, jid/],
	])('refuses %j before any request, naming the field', async (input, expected) => {
		const error = (await executor
			.run('message:sendAndWait', { ...input, resumeUrls: URLS })
			.catch((caught: unknown) => caught)) as ChatMessagingError;
		expect(error.message).toMatch(expected);
		expect(error.kind).toBe('input');
		expect(requests).toEqual([]);
	});

	it('fails before any request when the platform hands no resume URL for the answer asked', async () => {
		const error = (await executor
			.run('message:sendAndWait', {
				sendTo: 'chat',
				chat_id: 1,
				message: 'x',
				approvalType: 'double',
				resumeUrls: { approve: URLS.approve },
			})
			.catch((caught: unknown) => caught)) as Error;
		expect(error.message).toMatch(/resume URL for "disapprove"/);
		expect(requests).toEqual([]);
	});
});
