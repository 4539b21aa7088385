/**
 * The 2026-07-28 leg of the Streamable HTTP endpoint: the v2 SDK's handler in front of the 2025-11-25 wiring.
 * A POST the SDK classifies as 2026-07-28 (its `_meta` names the revision, or server/discover) is served here;
 * everything else goes on to the sessions and stateless answers of 2025-11-25. The access checks ran before either.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { createMcpHandler, isLegacyRequest, type Server } from '@modelcontextprotocol/server';

import { taskOwnerOf } from '../calls/taskOwner';
import { createServer2026, type Server2026Options } from '../revisions/2026-07-28';
import { sendResponse, webRequest } from './fetchBridge';

/**
 * Serves a POST of 2026-07-28 and says true; says false (and leaves the response alone) for any other.
 * Each request's server is made of the options given with it (its caller's executor and tools, the process's
 * links and tasks); its tasks are its caller's, and the request's signal (aborted when the client closes the
 * response stream) cancels its call.
 */
export function http2026(
	maxBodyBytes: number,
	onerror: (error: Error) => void,
): (req: IncomingMessage, res: ServerResponse, body: unknown, options: Server2026Options) => Promise<boolean> {
	// Each request's caller (its executor, tools and whose its tasks are), found by the request the handler is given.
	const callers = new WeakMap<Request, Server2026Options>();
	const newServer = (request: Request | undefined): Server => {
		const options = request ? callers.get(request) : undefined;
		if (!options) throw new Error('A 2026-07-28 request reached the handler without its caller');
		return createServer2026({
			...options,
			...(request ? { closed: request.signal } : {}),
			taskOwner: options.taskOwner ?? taskOwnerOf(request?.headers.get('authorization')),
		});
	};
	const handler = createMcpHandler((context) => newServer(context.requestInfo), {
		legacy: 'reject',
		maxRequestBodySize: maxBodyBytes,
		onerror,
	});
	return async (req, res, body, options) => {
		const request = webRequest(req, res, body);
		if (await isLegacyRequest(request, body, { maxRequestBodySize: maxBodyBytes })) return false;
		callers.set(request, options);
		await sendResponse(await handler.fetch(request, { parsedBody: body }), res);
		return true;
	};
}
