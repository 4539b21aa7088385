/**
 * Stand-ins for the contexts n8n hands a node (execute, hook and webhook functions), close enough
 * to n8n's behaviour for the parts the nodes use:
 * - parameters fall back to the node description's defaults for the parameters shown with the
 *   current resource/operation, as n8n resolves them;
 * - `httpRequestWithAuthentication` applies the credential's `authenticate` headers and sends a REAL
 *   request with axios (n8n's HTTP client), with n8n's handling of body, status and errors
 *   (returnFullResponse, ignoreHttpStatusErrors, failures wrapped in NodeApiError);
 * - binary data is held base64-encoded in the item, as n8n's in-memory binary mode does.
 * Every request is recorded (method and URL, never headers) so tests can prove none was sent.
 */
import axios, { type AxiosRequestConfig } from 'axios';
import {
	NodeApiError,
	NodeOperationError,
	type IBinaryData,
	type IDataObject,
	type IHttpRequestOptions,
	type INode,
	type INodeExecutionData,
	type INodeProperties,
	type JsonObject,
} from 'n8n-workflow';

import { ChatMessagingApi } from '../../credentials/ChatMessagingApi.credentials';

export interface Credentials {
	baseUrl: string;
	apiToken: string;
}

export interface RecordedRequest {
	method: string;
	url: string;
	/** Whether an Authorization header went out (its value is never recorded). */
	authorized?: boolean;
	/** Order of events: the request started at step `started` and its answer arrived at step `ended`. */
	started?: number;
	ended?: number;
	status?: number;
	error?: string;
}

type Parameters = Record<string, unknown>;

/** Whether a property is shown for these parameter values (n8n's `displayOptions.show`/`hide`). */
function isShown(property: INodeProperties, values: Parameters): boolean {
	const show = property.displayOptions?.show ?? {};
	for (const [name, allowed] of Object.entries(show)) {
		if (!(allowed as unknown[]).includes(values[name])) return false;
	}
	const hide = property.displayOptions?.hide ?? {};
	for (const [name, hidden] of Object.entries(hide)) {
		if ((hidden as unknown[]).includes(values[name])) return false;
	}
	return true;
}

/** The parameters of one item as n8n resolves them: the given values over the shown defaults. */
export function resolveParameters(properties: INodeProperties[], given: Parameters): Parameters {
	const values: Parameters = { ...given };
	// Defaults of options that drive display (resource, operation, attachment, ...) first.
	for (let pass = 0; pass < 3; pass++) {
		for (const property of properties) {
			if (values[property.name] === undefined && isShown(property, values)) values[property.name] = property.default;
		}
	}
	return values;
}

/** `={{...}}` expressions of the credential: only `$credentials.<name>` references are needed here. */
function resolveCredentialExpression(value: string, credentials: Credentials): string {
	if (!value.startsWith('=')) return value;
	return value
		.slice(1)
		.replace(/\{\{\s*\$credentials\.(\w+)\s*\}\}/g, (_, name: string) =>
			String((credentials as unknown as Record<string, unknown>)[name] ?? ''),
		);
}

/** A counter ordering request starts and ends, to see requests overlap without timing them. */
const clock = { step: 0 };

/** n8n's httpRequest (no credential), over real HTTP with axios, as n8n sends it. */
export function plainHttp(requests: RecordedRequest[], node: INode) {
	return async (options: IHttpRequestOptions): Promise<unknown> => {
		const config: AxiosRequestConfig = {
			method: options.method,
			url: options.url,
			headers: { 'User-Agent': 'n8n', ...(options.headers as Record<string, string>) },
			timeout: options.timeout,
			maxBodyLength: Infinity,
			maxContentLength: Infinity,
			responseType: options.encoding === 'arraybuffer' ? 'arraybuffer' : undefined,
		};
		const body = options.body as unknown;
		// As n8n: a string or a non-empty object/buffer is sent as it is; GET never carries a body.
		if (
			options.method !== 'GET' &&
			(typeof body === 'string' || (body && typeof body === 'object' && (!ArrayBuffer.isView(body) || body.byteLength > 0)))
		) {
			config.data = body;
		}
		if (options.ignoreHttpStatusErrors) config.validateStatus = () => true;
		const record: RecordedRequest = {
			method: String(options.method),
			url: String(options.url),
			authorized: Object.keys(config.headers ?? {}).some((name) => name.toLowerCase() === 'authorization'),
		};
		requests.push(record);
		// Tests talk to loopback only: an address elsewhere is recorded (so a test sees it was tried), never sent.
		if (!/^(127\.|localhost$|\[::1\]$)/.test(new URL(String(options.url)).hostname)) {
			record.error = 'not a loopback address';
			throw new NodeApiError(node, { message: `test guard: ${record.method} ${record.url} is not a loopback address` } as JsonObject);
		}
		record.started = ++clock.step;
		try {
			const response = await axios.request(config);
			record.ended = ++clock.step;
			record.status = response.status;
			if (!options.returnFullResponse) return response.data;
			return { body: response.data, headers: response.headers, statusCode: response.status, statusMessage: response.statusText };
		} catch (error) {
			record.error = (error as { code?: string }).code ?? String(error);
			throw new NodeApiError(node, error as JsonObject);
		}
	};
}

/** n8n's httpRequestWithAuthentication for a generic credential: the credential's headers, then httpRequest. */
export function authenticatedHttp(credentials: Credentials, requests: RecordedRequest[], node: INode) {
	const authenticate = new ChatMessagingApi().authenticate;
	const send = plainHttp(requests, node);
	return async (credentialType: string, options: IHttpRequestOptions): Promise<unknown> => {
		if (credentialType !== 'chatMessagingApi') throw new Error(`unexpected credential type ${credentialType}`);
		const headers: Record<string, string> = { ...(options.headers as Record<string, string>) };
		for (const [name, value] of Object.entries(authenticate.properties.headers ?? {})) {
			headers[name] = resolveCredentialExpression(String(value), credentials);
		}
		return await send({ ...options, headers });
	};
}

export function makeNode(type: string, parameters: Parameters = {}): INode {
	return {
		id: `node-${type}`,
		name: type,
		type: `CUSTOM.${type}`,
		typeVersion: 1,
		position: [0, 0],
		parameters: parameters as INode['parameters'],
	};
}

export interface ExecuteOptions {
	properties: INodeProperties[];
	credentials: Credentials;
	/** Parameters of every item, or per item. */
	parameters: Parameters | ((itemIndex: number) => Parameters);
	items?: INodeExecutionData[];
	continueOnFail?: boolean;
	/** The workflow's time zone (this.getTimezone()). */
	timeZone?: string;
	/** The node's "On Error" setting. */
	onError?: INode['onError'];
	/** The node's version as saved (1 unless given). */
	typeVersion?: number;
	/** Run as an AI agent's tool: n8n gives the tool variant the node type's name with `Tool` appended. */
	tool?: boolean;
}

export function createExecuteContext(options: ExecuteOptions) {
	const requests: RecordedRequest[] = [];
	const items: INodeExecutionData[] = options.items ?? [{ json: {} }];
	const node = {
		...makeNode(options.tool ? 'chatMessagingTool' : 'chatMessaging'),
		onError: options.onError,
		typeVersion: options.typeVersion ?? 1,
	};
	// Resolved once per item, as n8n holds a node's parameters: resolving against every property on each
	// getNodeParameter call made this stand-in, not the node, the cost `npm run bench` measured.
	const resolved = new Map<number, Parameters>();
	const paramsOf = (itemIndex: number) => {
		let values = resolved.get(itemIndex);
		if (!values) {
			values = resolveParameters(
				options.properties,
				typeof options.parameters === 'function' ? options.parameters(itemIndex) : options.parameters,
			);
			resolved.set(itemIndex, values);
		}
		return values;
	};
	const http = authenticatedHttp(options.credentials, requests, node);
	const unauthenticated = plainHttp(requests, node);
	const context = {
		getInputData: () => items,
		getNode: () => node,
		// n8n's default GENERIC_TIMEZONE when neither the workflow nor the instance sets one.
		getTimezone: () => options.timeZone ?? 'America/New_York',
		continueOnFail: () => options.continueOnFail === true,
		getCredentials: async (type: string) => {
			if (type !== 'chatMessagingApi') throw new Error(`unexpected credential type ${type}`);
			return { ...options.credentials };
		},
		getNodeParameter(name: string, itemIndex: number, fallback?: unknown) {
			const value = paramsOf(itemIndex)[name];
			if (value !== undefined) return value;
			if (fallback !== undefined) return fallback;
			throw new Error(`Could not get parameter "${name}"`);
		},
		helpers: {
			httpRequestWithAuthentication(this: unknown, type: string, request: IHttpRequestOptions) {
				return http(type, request);
			},
			httpRequest: (request: IHttpRequestOptions) => unauthenticated(request),
			// As n8n's in-memory binary mode: the bytes base64-encoded in the item.
			async prepareBinaryData(data: Buffer, fileName?: string, mimeType?: string): Promise<IBinaryData> {
				return {
					data: data.toString('base64'),
					fileName,
					mimeType: mimeType ?? 'application/octet-stream',
					fileExtension: fileName?.includes('.') ? fileName.split('.').pop() : undefined,
					fileSize: String(data.length),
				};
			},
			assertBinaryData(itemIndex: number, propertyName: string): IBinaryData {
				const binary = items[itemIndex]?.binary?.[propertyName];
				if (!binary)
					throw new NodeOperationError(
						node,
						`This operation expects the node's input data to contain a binary file '${propertyName}', but none was found [item ${itemIndex}]`,
					);
				return binary;
			},
			async getBinaryDataBuffer(itemIndex: number, propertyName: string): Promise<Buffer> {
				const binary = items[itemIndex]?.binary?.[propertyName];
				if (!binary) throw new Error(`no binary ${propertyName}`);
				return Buffer.from(binary.data, 'base64');
			},
		},
		logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
	};
	return { context, requests };
}

export function binaryItem(json: IDataObject, propertyName: string, bytes: Buffer, fileName: string, mimeType: string): INodeExecutionData {
	return {
		json,
		binary: {
			[propertyName]: { data: bytes.toString('base64'), fileName, mimeType, fileExtension: fileName.split('.').pop() },
		},
	};
}
