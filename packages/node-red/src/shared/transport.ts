/**
 * Adapts one axios instance to the catalogue's Transport contract and supplies real timers.
 * Node-RED allows timers and keep-alive sockets, so one instance per config node reuses its
 * connections for every node that points at that config.
 */
import http from 'node:http';
import https from 'node:https';
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import { toTransportFailure, type Timing, type Transport, type TransportResponse } from '@chat-messaging/core';

export interface HttpClient {
	transport: Transport;
	/** Closes idle keep-alive sockets (config node closed). */
	destroy(): void;
}

/** Parses JSON bodies (by content type) and hands everything else back as text. */
function decodeBody(response: AxiosResponse<ArrayBuffer | Buffer | string>): unknown {
	const raw = response.data;
	const text = typeof raw === 'string' ? raw : Buffer.from(raw as ArrayBuffer).toString('utf8');
	const contentType = String(response.headers['content-type'] ?? '');
	if (!/json/i.test(contentType) || text === '') return text;
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}

function plainHeaders(response: AxiosResponse): TransportResponse['headers'] {
	const headers = response.headers as { toJSON?: () => Record<string, unknown> } & Record<string, unknown>;
	const record = typeof headers.toJSON === 'function' ? headers.toJSON() : headers;
	const out: TransportResponse['headers'] = {};
	for (const [name, value] of Object.entries(record)) {
		if (typeof value === 'string' || Array.isArray(value)) out[name.toLowerCase()] = value as string | string[];
		else if (value !== undefined && value !== null) out[name.toLowerCase()] = String(value);
	}
	return out;
}

export function createHttpClient(): HttpClient {
	const httpAgent = new http.Agent({ keepAlive: true });
	const httpsAgent = new https.Agent({ keepAlive: true });
	const client: AxiosInstance = axios.create({
		httpAgent,
		httpsAgent,
		// Every status is an answer for the executor to judge (it maps errors and decides retries).
		validateStatus: () => true,
		responseType: 'arraybuffer',
		// The executor already serialised the body (JSON text or multipart bytes): send it untouched.
		transformRequest: [(data: unknown) => data],
		transformResponse: [(data: unknown) => data],
		// Documents may be up to 100 MB.
		maxBodyLength: Infinity,
		maxContentLength: Infinity,
		// A redirect of a POST would be replayed by axios; let the executor see it instead.
		maxRedirects: 0,
	});

	const transport: Transport = async (request) => {
		let response: AxiosResponse<ArrayBuffer>;
		try {
			response = await client.request<ArrayBuffer>({
				method: request.method,
				url: request.url,
				headers: request.headers,
				data:
					request.body instanceof Uint8Array
						? Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength)
						: request.body,
				timeout: request.timeoutMs,
			});
		} catch (error) {
			// Only the code and message travel on: axios errors also hold the request config (and its headers).
			throw toTransportFailure(error);
		}
		const bytes = request.responseType === 'bytes' && response.status >= 200 && response.status < 300;
		return { status: response.status, headers: plainHeaders(response), body: bytes ? Buffer.from(response.data) : decodeBody(response) };
	};

	return {
		transport,
		destroy() {
			httpAgent.destroy();
			httpsAgent.destroy();
		},
	};
}

export const realTiming: Timing = {
	sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
	now: () => Date.now(),
	random: () => Math.random(),
};
