/** Every error shape becomes one ChatMessagingError carrying status, error_code, message and items. */
import { ChatMessagingError, Executor, redactError } from '../src';
import { fail, ok, scripted, virtualTiming } from '../../../test/support/scripted-transport';

const ERROR_CODES: Array<[code: string, status: number, message: string]> = [
	['missing_credentials', 401, 'Missing credentials'],
	['invalid_token', 401, 'Invalid token'],
	['member_not_found', 404, 'Member not found'],
	['permission_denied', 403, 'Access denied'],
	['plan_feature_unavailable', 403, 'Feature not available on your plan'],
	['quota_exceeded', 402, 'Message quota exceeded'],
	['rate_limit_exceeded', 429, 'Too many requests'],
	['validation_error', 400, 'Invalid phone number format'],
	['not_supported', 400, 'Not supported'],
	['internal_error', 500, 'Internal error'],
];

/** No retries here: these tests are about the error's shape. */
const noRetry = { maxAttempts: 1 };

async function errorFor(response: ReturnType<typeof fail>, operation = 'message:sendToPhone'): Promise<ChatMessagingError> {
	const { transport } = scripted(response);
	const executor = new Executor({
		baseUrl: 'https://api.example.com',
		transport,
		timing: virtualTiming(),
		retry: noRetry,
		token: 'tok-SECRET-123',
	});
	const error = await executor.run(operation, { phone: '+4915112345678', text: 'hi' }).catch((e: unknown) => e);
	expect(error).toBeInstanceOf(ChatMessagingError);
	return error as ChatMessagingError;
}

describe('error mapping', () => {
	it.each(ERROR_CODES)('%s (HTTP %d)', async (code, status, message) => {
		const error = await errorFor(fail(status, { status: 'error', message, error_code: code }));
		expect(error.kind).toBe('service');
		expect(error.httpStatus).toBe(status);
		expect(error.errorCode).toBe(code);
		// A send answered 5xx may still have gone out, and says so.
		expect(error.message).toBe(status >= 500 ? `${message}. It may have taken effect: check before repeating it` : message);
		expect(error.operation).toBe('message:sendToPhone');
		expect(JSON.stringify(error.toJSON())).not.toContain('tok-SECRET-123');
	});

	it('keeps validation items and names their fields in the message', async () => {
		const errors = [
			{ fields: ['phone'], msg: 'Invalid phone number format' },
			{ fields: ['labels', 1], msg: 'must be a string' },
		];
		const error = await errorFor(fail(400, { status: 'error', message: 'Validation failed', error_code: 'validation_error', errors }));
		expect(error.errors).toEqual(errors);
		expect(error.message).toBe('Validation failed (phone: Invalid phone number format; labels.1: must be a string)');
	});

	it('treats a 200 with status "error" as an error', async () => {
		const error = await errorFor({
			status: 200,
			headers: {},
			body: { status: 'error', message: 'No connected chat-app account', error_code: 'not_supported' },
		});
		expect(error).toMatchObject({ httpStatus: 200, errorCode: 'not_supported', message: 'No connected chat-app account' });
	});

	it.each([
		[404, '<html><body><h1>Not Found</h1></body></html>', /Not found \(HTTP 404, response was not JSON\)/],
		[502, '<html>Bad Gateway</html>', /Bad gateway \(HTTP 502/],
		[401, '', /Unauthorized: the API token is missing or invalid/],
		[418, 'teapot', /HTTP 418/],
	])('maps a non-JSON %d page', async (status, body, message) => {
		const error = await errorFor(fail(status, body), 'workspace:get');
		expect(error.kind).toBe('service');
		expect(error.httpStatus).toBe(status);
		expect(error.errorCode).toBeUndefined();
		expect(error.message).toMatch(message);
		if (body) expect(error.responseText).toBe(body);
	});

	it('falls back to the status text when a JSON error has no message', async () => {
		const error = await errorFor(fail(403, { status: 'error', error_code: 'permission_denied' }));
		expect(error.message).toBe('Access denied');
	});

	it('reports an unreachable service as a network error with its code', async () => {
		const { transport } = scripted(() => {
			throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
		});
		const executor = new Executor({ baseUrl: 'http://127.0.0.1:9', transport, timing: virtualTiming(), retry: noRetry });
		await expect(executor.run('workspace:get')).rejects.toMatchObject({
			kind: 'network',
			networkCode: 'ECONNREFUSED',
			message: expect.stringMatching(/reachable/),
		});
	});

	it('returns null data for an empty 2xx body', async () => {
		const { transport } = scripted({ status: 204, headers: {}, body: '' });
		const executor = new Executor({ baseUrl: 'https://x.io', transport, timing: virtualTiming() });
		await expect(executor.run('webhook:delete', { id: 1 })).resolves.toBeNull();
	});

	it('passes data through for a success', async () => {
		const { transport } = scripted(ok({ message_uid: 'm1' }));
		const executor = new Executor({ baseUrl: 'https://x.io', transport, timing: virtualTiming() });
		await expect(executor.run('message:sendToPhone', { phone: '+4915112345678', text: 'hi' })).resolves.toEqual({ message_uid: 'm1' });
	});
});

describe('an error keeps its details when it is redacted or told another way', () => {
	const original = new ChatMessagingError('Internal server error, token sk_live_secret_123', {
		kind: 'service',
		httpStatus: 502,
		errorCode: 'upstream',
		errors: [{ fields: ['text'], msg: 'sk_live_secret_123 echoed' }],
		field: 'text',
		operation: 'message:sendToPhone',
		networkCode: 'ECONNRESET',
		responseText: '<html>sk_live_secret_123</html>',
		mayHaveTakenEffect: true,
		serviceBody: false,
	});

	it('redactError: every detail travels, the secret is gone from each text', () => {
		const clean = redactError(original, ['sk_live_secret_123']) as ChatMessagingError;
		expect(clean.details).toEqual({
			...original.details,
			errors: [{ fields: ['text'], msg: '<redacted> echoed' }],
			responseText: '<html><redacted></html>',
		});
		expect(clean.message).toBe('Internal server error, token <redacted>');
	});

	it('with(): a new message and the changed details; the rest as they were', () => {
		const told = original.with('Told again', { operation: 'webhook:create' });
		expect(told.message).toBe('Told again');
		expect(told.details).toEqual({ ...original.details, operation: 'webhook:create' });
	});
});
