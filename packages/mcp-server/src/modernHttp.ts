/**
 * The 2026-07-28 leg of the Streamable HTTP endpoint: the v2 SDK's handler in front of the 2025-11-25 wiring.
 * A POST the SDK classifies as modern (its `_meta` names the revision, or server/discover) is served here; everything
 * else goes on to the sessions and stateless answers of 2025-11-25. The access checks ran before either leg.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { createMcpHandler, isLegacyRequest, type Server } from '@modelcontextprotocol/server';

import { sendResponse, webRequest } from './web';

/** Builds a request's server: `closed` aborts when the client closes the response stream. */
export type ModernServerFactory = (closed: AbortSignal | undefined, request: Request | undefined) => Server;

/** Serves a POST of the modern revision and says true; says false (and leaves the response alone) for any other. */
export function modernLeg(
	newServer: ModernServerFactory,
	maxBodyBytes: number,
	onerror: (error: Error) => void,
): (req: IncomingMessage, res: ServerResponse, body: unknown) => Promise<boolean> {
	const handler = createMcpHandler((context) => newServer(context.requestInfo?.signal, context.requestInfo), {
		legacy: 'reject',
		maxRequestBodySize: maxBodyBytes,
		onerror,
	});
	return async (req, res, body) => {
		const request = webRequest(req, res, body);
		if (await isLegacyRequest(request, body, { maxRequestBodySize: maxBodyBytes })) return false;
		await sendResponse(await handler.fetch(request, { parsedBody: body }), res);
		return true;
	};
}
