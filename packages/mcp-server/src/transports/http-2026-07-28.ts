/**
 * The 2026-07-28 leg of the Streamable HTTP endpoint: the v2 SDK's handler in front of the 2025-11-25 wiring.
 * A POST the SDK classifies as 2026-07-28 (its `_meta` names the revision, or server/discover) is served here;
 * everything else goes on to the sessions and stateless answers of 2025-11-25. The access checks ran before either.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';

import { callerParts, type Caller, type SharedParts } from '../revisions/common';
import { server2026 } from '../revisions/2026-07-28';
import { sendResponse, webRequest } from './fetchBridge';

/**
 * Serves a POST of 2026-07-28 for its caller and says true; says false (and leaves the response alone) for any other.
 * Each request's server is made of its caller's parts, and the request's signal (aborted when the client closes the
 * response stream) cancels its call.
 */
export function http2026(
	shared: SharedParts,
	maxBodyBytes: number,
	onerror: (error: Error) => void,
): (req: IncomingMessage, res: ServerResponse, body: unknown, caller: Caller) => Promise<boolean> {
	// The SDK hands the factory the web request it serves: its caller is the one the endpoint found for it.
	const callers = new WeakMap<Request, Caller>();
	const handler = createMcpHandler(
		({ requestInfo }) => {
			const caller = requestInfo && callers.get(requestInfo);
			// Never a server without its caller (it would run with no one's access).
			if (!requestInfo || !caller) throw new Error('A 2026-07-28 request reached the server without its caller');
			return server2026(callerParts(shared, caller), requestInfo.signal);
		},
		{ legacy: 'reject', maxRequestBodySize: maxBodyBytes, onerror },
	);
	return async (req, res, body, caller) => {
		const request = webRequest(req, res, body);
		if (await isLegacyRequest(request, body, { maxRequestBodySize: maxBodyBytes })) return false;
		callers.set(request, caller);
		await sendResponse(await handler.fetch(request, { parsedBody: body }), res);
		return true;
	};
}
