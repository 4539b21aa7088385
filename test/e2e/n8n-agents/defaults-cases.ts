/**
 * n8n's own defaults after this package's nodes, in a real n8n:
 * - an AI Agent and a Simple Memory, both left at their defaults, answer after the Chat Messaging Trigger: the agent
 *   reads the item's chatInput, the memory keys the conversation by its sessionId (one chat's turns remembered, not
 *   another's);
 * - a voice note in a burst reaches the agent as text: the example's own path (Get Burst to Answer downloads the
 *   burst's files, n8n's OpenAI node transcribes the audio, here on the loopback stub).
 */
import { randomBytes } from 'node:crypto';

import { waitFor } from '../../support/harness';
import { assert } from '../n8n/checks';
import { burstScenario, content, type BurstScenario, type SandboxMessage } from './burst-responder';
import type { OpenAiStub } from './openai-stub';

type Sandbox = <T>(method: string, path: string, body?: unknown) => Promise<T>;

export interface DefaultsDeps {
	/** The responder's workspace. */
	sandbox: Sandbox;
	/** The Simple Memory workflow's workspace. */
	secondWorkspace: Sandbox;
	/** Uploads a file to the responder's workspace (multipart), its uid. */
	upload: (filename: string, type: string, bytes: Buffer) => Promise<string>;
	stub: OpenAiStub;
}

/** The prompts of the Simple Memory workflow start so; the stub answers each with "Reply to <prompt>". */
export const SIMPLE_MARK = 'SIMPLE';
export const simpleMemoryAnswer = (prompt: string): string => `Reply to ${prompt}`;

/** The voice note the customer sends, and what the stub hears in it. */
export const VOICE = {
	bytes: Buffer.concat([Buffer.from('OggS'), randomBytes(2048)]),
	transcript: 'Please leave the parcel with my neighbour',
	scenario: burstScenario('VOICE'),
};

const lastUserText = (request: OpenAiStub['requests'][number]): string =>
	content(request.messages.filter((message) => message.role === 'user').at(-1)?.content);

async function repliesIn(sandbox: Sandbox, chatId: number, text: string): Promise<SandboxMessage[]> {
	const { messages } = await sandbox<{ messages: SandboxMessage[] }>('GET', `/chats/${chatId}/messages`);
	return messages.filter((message) => message.from_me && message.text === text);
}

async function replied(deps: DefaultsDeps, sandbox: Sandbox, chatId: number, text: string): Promise<void> {
	await waitFor(`the reply "${text}" in chat ${chatId}`, async () => (await repliesIn(sandbox, chatId, text)).length > 0 || undefined, {
		timeoutMs: 60_000,
		intervalMs: 500,
	}).catch((error: Error) => {
		throw new Error(`${error.message}; stub failures: ${deps.stub.failures.join(' | ') || 'none'}`);
	});
}

/** A customer's message in a chat (a new one for a phone), and the model's request that answered it. */
async function turn(deps: DefaultsDeps, to: { phone: string } | { chat_id: number }, text: string) {
	const { chat_id: chatId } = await deps.secondWorkspace<{ chat_id: number }>('POST', '/_sandbox/incoming', { ...to, text });
	await replied(deps, deps.secondWorkspace, chatId, simpleMemoryAnswer(text));
	const requests = deps.stub.requests.filter((request) => lastUserText(request) === text);
	assert(requests.length === 1, `"${text}" gave ${requests.length} model calls, not 1`);
	return { chatId, lines: requests[0].messages.map((message) => `${message.role}: ${content(message.content)}`) };
}

/** Two turns in one chat, one in another, in the Simple Memory workflow's own workspace. */
export async function agentAndSimpleMemoryAtDefaults(deps: DefaultsDeps): Promise<string> {
	const tag = randomBytes(3).toString('hex');
	const phone = `+491517${String(Date.now()).slice(-5)}91`;
	const first = await turn(deps, { phone }, `${SIMPLE_MARK} first ${tag}: do you ship to Austria?`);
	const second = await turn(deps, { chat_id: first.chatId }, `${SIMPLE_MARK} second ${tag}: and how fast?`);
	const other = await turn(deps, { phone: `+491517${String(Date.now()).slice(-5)}92` }, `${SIMPLE_MARK} other ${tag}: hello`);
	const remembered = second.lines.join('\n');
	assert(
		remembered.includes(`user: ${SIMPLE_MARK} first ${tag}`) && remembered.includes(`assistant: Reply to ${SIMPLE_MARK} first ${tag}`),
		`the second turn's request does not hold the first turn (Simple Memory by sessionId):\n${remembered}`,
	);
	assert(
		!other.lines.some((line) => line.includes(`first ${tag}`)),
		`another chat's request holds this chat's turns:\n${other.lines.join('\n')}`,
	);
	return `the second turn's request: ${JSON.stringify(second.lines)}; another chat's: ${JSON.stringify(other.lines)}`;
}

/** A burst of a text and a voice note: one transcription of the note's bytes, one model call reading the transcript, one reply. */
export async function voiceNoteReachesTheAgent(deps: DefaultsDeps, scenario: BurstScenario = VOICE.scenario): Promise<string> {
	const before = { requests: deps.stub.requests.length, transcriptions: deps.stub.transcriptions.length };
	const fileUid = await deps.upload('voice-note.ogg', 'audio/ogg', VOICE.bytes);
	const { chat_id: chatId } = await deps.sandbox<{ chat_id: number }>('POST', '/_sandbox/incoming', {
		phone: scenario.phone,
		text: scenario.burst[0],
	});
	await deps.sandbox('POST', '/_sandbox/incoming', { chat_id: chatId, text: 'voice message', file_uid: fileUid });
	await replied(deps, deps.sandbox, chatId, scenario.reply);
	const transcriptions = deps.stub.transcriptions.slice(before.transcriptions);
	assert(transcriptions.length === 1, `the burst gave ${transcriptions.length} transcription calls, not 1`);
	assert(transcriptions[0].body.includes(VOICE.bytes), "the transcription call does not carry the voice note's bytes");
	assert(transcriptions[0].body.includes('whisper-1'), "the transcription call names no transcription model (OpenAI's audio operation)");
	const calls = deps.stub.requests.slice(before.requests).filter((request) => lastUserText(request).startsWith(scenario.mark));
	assert(calls.length === 1, `the burst gave ${calls.length} model calls, not 1`);
	const prompt = lastUserText(calls[0]);
	assert(prompt.includes(VOICE.transcript), `the agent's prompt lacks the transcript: ${JSON.stringify(prompt)}`);
	assert((await repliesIn(deps.sandbox, chatId, scenario.reply)).length === 1, 'the burst gave more than one reply');
	return `1 transcription of the ${VOICE.bytes.length}-byte note, 1 model call, 1 reply; the prompt: ${JSON.stringify(prompt)}`;
}
