/**
 * A stand-in for an OpenAI-compatible chat model on loopback (plain HTTP, no network), for n8n's
 * OpenAI Chat Model under the AI Agent. It plays a script per conversation: each turn it reads the
 * tools the agent offers (name, description, JSON schema) and the tool results so far, and answers
 * with one tool call whose arguments are built from the chosen tool's schema, or with a final answer.
 * A tool the script cannot find, or a schema property it has no value for, is answered with an HTTP
 * error, so the agent's execution fails loudly instead of improvising.
 *
 * It also answers OpenAI's transcription call (a voice note to text) with the transcript the test gives.
 *
 * Every request is recorded: the test asserts what the model received.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface OfferedTool {
	name: string;
	description: string;
	parameters: { type?: string; properties?: Record<string, { type?: string; description?: string }>; required?: string[] };
}

interface ChatMessage {
	role: string;
	content?: unknown;
	tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
	tool_call_id?: string;
}

export interface CompletionRequest {
	model?: string;
	messages: ChatMessage[];
	tools?: Array<{ type: string; function: OfferedTool }>;
	stream?: boolean;
}

/** What a script sees on each turn. */
export interface Turn {
	/** The user's prompt (the last user message). */
	prompt: string;
	tools: OfferedTool[];
	/** The tool results so far, oldest first, as the agent passed them back (text). */
	toolResults: string[];
}

/** One step: call a tool (chosen from the offered ones, arguments per schema property), or answer. */
export type Step =
	{ tool: (tools: OfferedTool[]) => OfferedTool | undefined; toolLabel: string; values: Record<string, unknown> } | { answer: string };

/** A script: the step for this turn, given the turn (typically indexed by how many tool results came back). */
export type Script = (turn: Turn) => Step;

/** A transcription request as the stub received it (OpenAI's `POST /v1/audio/transcriptions`, multipart). */
export interface TranscriptionRequest {
	/** The multipart body as received: the file's bytes and the form's fields. */
	body: Buffer;
	contentType: string;
}

export interface OpenAiStub {
	/** Base URL for n8n's OpenAI credential (`…/v1`). */
	url: string;
	requests: CompletionRequest[];
	transcriptions: TranscriptionRequest[];
	/** Script failures (a missing tool or value): the test reports them. */
	failures: string[];
	stop(): Promise<void>;
}

const text = (content: unknown): string =>
	typeof content === 'string'
		? content
		: Array.isArray(content)
			? content.map((part) => (typeof part === 'object' && part && 'text' in part ? String((part as { text: unknown }).text) : '')).join('')
			: '';

/** Arguments for every property of the tool's schema, from the step's values; a property without a value is a failure. */
function argumentsFor(tool: OfferedTool, values: Record<string, unknown>): Record<string, unknown> {
	const args: Record<string, unknown> = {};
	for (const name of Object.keys(tool.parameters.properties ?? {})) {
		if (!(name in values)) throw new Error(`tool "${tool.name}" asks for "${name}", which the script has no value for`);
		args[name] = values[name];
	}
	for (const name of Object.keys(values))
		if (!(name in (tool.parameters.properties ?? {}))) throw new Error(`tool "${tool.name}" has no parameter "${name}" in its schema`);
	return args;
}

let callCounter = 0;

function completion(request: CompletionRequest, step: Step) {
	const model = request.model ?? 'stub-model';
	if ('answer' in step) return { model, message: { role: 'assistant', content: step.answer }, finish: 'stop' as const };
	const tool = step.tool((request.tools ?? []).map((entry) => entry.function));
	if (!tool)
		throw new Error(
			`no offered tool matches "${step.toolLabel}"; offered: ${(request.tools ?? []).map((entry) => `${entry.function.name}: ${entry.function.description.slice(0, 80)}`).join(' | ')}`,
		);
	const call = {
		id: `call_${++callCounter}`,
		type: 'function',
		function: { name: tool.name, arguments: JSON.stringify(argumentsFor(tool, step.values)) },
	};
	return { model, message: { role: 'assistant', content: null, tool_calls: [call] }, finish: 'tool_calls' as const };
}

function respond(response: ServerResponse, request: CompletionRequest, step: Step): void {
	const { model, message, finish } = completion(request, step);
	const id = `chatcmpl-${++callCounter}`;
	const created = Math.floor(Date.now() / 1000);
	const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };
	if (!request.stream) {
		response.writeHead(200, { 'content-type': 'application/json' });
		response.end(
			JSON.stringify({ id, object: 'chat.completion', created, model, choices: [{ index: 0, message, finish_reason: finish }], usage }),
		);
		return;
	}
	// Streaming: the same answer as server-sent chunks.
	response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
	const chunk = (delta: unknown, finishReason: string | null, extra: Record<string, unknown> = {}) =>
		response.write(
			`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`,
		);
	const delta =
		'tool_calls' in message && message.tool_calls
			? { role: 'assistant', content: null, tool_calls: message.tool_calls.map((call, index) => ({ index, ...call })) }
			: { role: 'assistant', content: message.content };
	chunk(delta, null);
	chunk({}, finish, { usage });
	response.end('data: [DONE]\n\n');
}

function readBytes(request: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => resolve(Buffer.concat(chunks)));
		request.on('error', reject);
	});
}

/**
 * Starts the stub on 127.0.0.1; `scriptFor(prompt)` picks the script of a conversation by its prompt, and
 * `transcribe(body)` answers a transcription request (the multipart body) with its text, or refuses it (undefined).
 */
export async function startOpenAiStub(
	scriptFor: (prompt: string) => Script | undefined,
	transcribe: (body: Buffer) => string | undefined = () => undefined,
): Promise<OpenAiStub> {
	const requests: CompletionRequest[] = [];
	const transcriptions: TranscriptionRequest[] = [];
	const failures: string[] = [];
	const server: Server = createServer((req, res) => {
		void (async () => {
			try {
				if (req.method === 'POST' && req.url?.endsWith('/audio/transcriptions')) {
					const body = await readBytes(req);
					transcriptions.push({ body, contentType: String(req.headers['content-type'] ?? '') });
					const text = transcribe(body);
					if (text === undefined) throw new Error('no transcript for this audio');
					res.writeHead(200, { 'content-type': 'application/json' });
					res.end(JSON.stringify({ text }));
					return;
				}
				if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
					res.writeHead(404, { 'content-type': 'application/json' });
					res.end(
						JSON.stringify({
							error: {
								message: `the stub serves POST /v1/chat/completions and /v1/audio/transcriptions only, not ${req.method} ${req.url}`,
							},
						}),
					);
					return;
				}
				const body = JSON.parse((await readBytes(req)).toString('utf8')) as CompletionRequest;
				requests.push(body);
				// The last user message: earlier ones are the conversation a memory gave the agent.
				const prompt = text(body.messages.filter((message) => message.role === 'user').at(-1)?.content);
				const script = scriptFor(prompt);
				if (!script) throw new Error(`no script for the prompt "${prompt.slice(0, 80)}"`);
				const toolResults = body.messages.filter((message) => message.role === 'tool').map((message) => text(message.content));
				respond(res, body, script({ prompt, tools: (body.tools ?? []).map((entry) => entry.function), toolResults }));
			} catch (error) {
				const message = error instanceof Error ? error.message : String(error);
				failures.push(message);
				// 400 is not retried by the OpenAI client: the agent fails at once with this message.
				res.writeHead(400, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ error: { message: `stub: ${message}`, type: 'invalid_request_error' } }));
			}
		})();
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const address = server.address();
	if (!address || typeof address !== 'object') throw new Error('the stub has no port');
	return {
		url: `http://127.0.0.1:${address.port}/v1`,
		requests,
		transcriptions,
		failures,
		stop: () => new Promise((resolve) => server.close(() => resolve())),
	};
}
