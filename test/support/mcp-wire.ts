/**
 * What the MCP server's tests and its e2e stage share: one request of the 2026-07-28 wire as a client declaring the
 * tasks extension sends it (how a task is driven, since neither the v2 client 2.4.0, which refuses a
 * CreateTaskResult, nor the Inspector CLI, which has no tasks/get or tasks/cancel, can drive one), and what the
 * service sees after a cancel.
 */
export const REVISION_2026 = '2026-07-28';
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** A JSON-RPC error the server answered, with its code. */
export class WireError extends Error {
	constructor(
		readonly code: number,
		message: string,
	) {
		super(message);
	}
}

/** One request on the 2026-07-28 wire, its envelope and headers as the revision wants them; its result, or throws its error. */
export async function rpc2026(
	url: string,
	method: string,
	params: Record<string, unknown>,
	headers: Record<string, string> = {},
): Promise<any> {
	const response = await fetch(url, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			accept: 'application/json, text/event-stream',
			'mcp-protocol-version': REVISION_2026,
			'mcp-method': method,
			// The header names what the body names: a tool, or a task.
			'mcp-name': String(params.name ?? params.taskId),
			...headers,
		},
		body: JSON.stringify({
			jsonrpc: '2.0',
			id: Math.floor(Math.random() * 1e9),
			method,
			params: {
				...params,
				_meta: {
					'io.modelcontextprotocol/protocolVersion': REVISION_2026,
					'io.modelcontextprotocol/clientInfo': { name: 'chat-messaging-tests', version: '1.0.0' },
					'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } },
				},
			},
		}),
	});
	const text = await response.text();
	const json = response.headers.get('content-type')?.includes('text/event-stream')
		? JSON.parse(
				text
					.split('\n')
					.filter((line) => line.startsWith('data: '))
					.pop()!
					.slice(6),
			)
		: JSON.parse(text);
	if (json.error) throw new WireError(json.error.code, `${method}: ${json.error.code} ${json.error.message}`);
	return json.result;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The requests the service sees from one second after a cancel (the send or look already on its way resolved) to four
 * seconds after: a wait that went on looking every second would show three or more.
 */
export async function requestsAfterCancel(service: { url: string; token: string }): Promise<number> {
	const apiCalls = async () => {
		const response = await fetch(`${service.url}/_sandbox/traffic`, { headers: { authorization: `Bearer ${service.token}` } });
		return ((await response.json()) as { data: { api_calls: number } }).data.api_calls;
	};
	await pause(1000);
	const settled = await apiCalls();
	await pause(3000);
	return (await apiCalls()) - settled;
}
