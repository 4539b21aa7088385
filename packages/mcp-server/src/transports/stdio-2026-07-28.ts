/** stdio at 2026-07-28: the v2 SDK's serveStdio over the stream stdio.ts handed on, strict to this revision. */
import type { Readable, Writable } from 'node:stream';

import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';

import { createServer2026, type Server2026Options } from '../revisions/2026-07-28';

export function serveStdio2026(options: Server2026Options, input: Readable, output: Writable): Promise<void> {
	serveStdio(() => createServer2026(options), { legacy: 'reject', transport: new StdioServerTransport(input, output) });
	return Promise.resolve();
}
