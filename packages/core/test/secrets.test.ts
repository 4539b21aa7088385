/**
 * The token never appears in an error, even when a server echoes it or a user pastes it into the
 * wrong field: every error leaving the executor is redacted first.
 */
import { ChatMessagingError, Executor, TransportFailure } from '../src';
import { fail, scripted, virtualTiming, type Step } from '../../../test/support/scripted-transport';

const TOKEN = 'tok-SECRET-7f3a9c21d4';

/** Everything an error shows, as one string. */
const shown = (error: unknown) => {
	const chat = error as ChatMessagingError;
	return [chat.message, chat.stack, chat.responseText, JSON.stringify(chat.errors), JSON.stringify(chat.toJSON?.())].join('\n');
};

async function errorOf(step: Step, options: { token?: string; secrets?: string[]; baseUrl?: string } = { token: TOKEN }, input = {}) {
	const script = scripted(step);
	const executor = new Executor({
		baseUrl: options.baseUrl ?? 'https://api.example.com',
		transport: script.transport,
		timing: virtualTiming(),
		rateLimit: false,
		retry: { maxAttempts: 1 },
		...options,
	});
	return executor.run('chat:getAll', input).then(
		() => {
			throw new Error('expected a failure');
		},
		(error: unknown) => error,
	);
}

describe('the token never appears in an error', () => {
	it.each([
		['the executor adds the header (Node-RED)', { token: TOKEN }],
		['the transport adds it (n8n passes it as a secret)', { secrets: [TOKEN] }],
	])('when the server echoes it in a JSON error body, %s', async (_, options) => {
		const error = await errorOf(
			fail(400, {
				status: 'error',
				message: `Malformed header Authorization: Bearer ${TOKEN}`,
				error_code: 'validation_error',
				errors: [{ fields: ['headers', `Bearer ${TOKEN}`], msg: `${TOKEN} is not a valid token` }],
			}),
			options,
		);
		expect(error).toBeInstanceOf(ChatMessagingError);
		expect(shown(error)).not.toContain(TOKEN);
		expect((error as Error).message).toBe(
			'Malformed header Authorization: Bearer <redacted> (headers.Bearer <redacted>: <redacted> is not a valid token)',
		);
	});

	it('when the server echoes it in an HTML error page', async () => {
		const error = await errorOf(fail(502, `<html><pre>GET /chats\nAuthorization: Bearer ${TOKEN}</pre></html>`));
		expect((error as ChatMessagingError).responseText).toContain('Bearer <redacted>');
		expect(shown(error)).not.toContain(TOKEN);
	});

	it('when a network error quotes a URL holding it', async () => {
		const error = await errorOf(
			new TransportFailure(`connect ECONNREFUSED https://api.example.com/chats?key=${TOKEN}`, 'ECONNREFUSED', false),
			{
				token: TOKEN,
				baseUrl: `https://api.example.com/?key=${TOKEN}`,
			},
		);
		expect(shown(error)).not.toContain(TOKEN);
	});

	it('when it is pasted into the base URL field', () => {
		const build = () => new Executor({ baseUrl: TOKEN, token: TOKEN, transport: scripted().transport, timing: virtualTiming() });
		expect(build).toThrow(/^Base URL: must be an http\(s\) URL/);
		try {
			build();
		} catch (error) {
			expect(shown(error)).not.toContain(TOKEN);
		}
	});

	it('when it is pasted into another field', async () => {
		const error = await errorOf(fail(500, {}), { token: TOKEN }, { phone: TOKEN });
		expect((error as ChatMessagingError).field).toBe('phone');
		expect(shown(error)).not.toContain(TOKEN);
	});
});
