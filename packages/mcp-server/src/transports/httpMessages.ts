/** What the HTTP endpoint reads and refuses on its own, before either revision's server sees a request. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
	res
		.writeHead(status, { 'Content-Type': 'application/json', ...headers })
		.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** The largest JSON-RPC body read (the MCP SDK's own bound): an upload's bytes travel base64 in it. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
export const TOO_LARGE = Symbol('too large');
export const NOT_JSON = Symbol('not JSON');

export async function readBody(req: IncomingMessage): Promise<unknown> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of req as AsyncIterable<Buffer>) {
		size += chunk.length;
		if (size > MAX_BODY_BYTES) return TOO_LARGE;
		chunks.push(chunk);
	}
	try {
		return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
	} catch {
		return NOT_JSON;
	}
}
