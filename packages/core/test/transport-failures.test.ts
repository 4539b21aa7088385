/**
 * One rule decides whether a request that got no answer may have reached the service (and so whether a send may
 * be retried): toTransportFailure. The one fetch transport (the client's, which the MCP server bundles and the tests
 * import) goes through it; these cases drive real sockets on loopback.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TransportFailure, toTransportFailure, type Transport } from '../src';
import { fetchTransport as testTransport } from '../../../test/support/fetch-transport';
import { fetchTransport } from '@chat-messaging/client';

let silent: Server;
let silentUrl = '';
let refusedUrl = '';

beforeAll(async () => {
	// Accepts the request and never answers: the request was written, so it may have been acted on.
	silent = createServer(() => undefined);
	await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
	silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/chats`;
	// A port that was free a moment ago: nothing listens, the connection is refused before anything is written.
	const probe = createServer();
	await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
	refusedUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/chats`;
	await new Promise<void>((resolve) => probe.close(() => resolve()));
});

afterAll(async () => {
	silent.closeAllConnections();
	await new Promise<void>((resolve) => silent.close(() => resolve()));
});

const failureOf = async (transport: Transport, url: string, timeoutMs = 2000): Promise<TransportFailure> => {
	const error = await transport({ method: 'POST', url, headers: {}, body: '{}', timeoutMs }).then(
		() => undefined,
		(caught: unknown) => caught,
	);
	expect(error).toBeInstanceOf(TransportFailure);
	return error as TransportFailure;
};

describe("the client's fetch transport", () => {
	const transport = fetchTransport;
	it('is the one the tests use', () => {
		expect(testTransport).toBe(fetchTransport);
	});

	it('a refused connection: never sent, safe to retry', async () => {
		const failure = await failureOf(transport, refusedUrl);
		expect([failure.code, failure.requestSent]).toEqual(['ECONNREFUSED', false]);
	});

	it('no answer in time: the request was written, it may have been acted on', async () => {
		const failure = await failureOf(transport, silentUrl, 200);
		expect([failure.code, failure.requestSent]).toEqual(['ETIMEDOUT', true]);
	});
});

describe('toTransportFailure', () => {
	it.each([
		['ECONNREFUSED', false],
		['ENOTFOUND', false],
		['EAI_AGAIN', false],
		['ECONNRESET', true],
		['EPIPE', true],
	])('%s: requestSent %s, whether the code comes as code (axios) or as cause.code (fetch)', (code, sent) => {
		expect(toTransportFailure(Object.assign(new Error(code), { code })).requestSent).toBe(sent);
		expect(toTransportFailure(new TypeError('fetch failed', { cause: { code } })).requestSent).toBe(sent);
	});
});
