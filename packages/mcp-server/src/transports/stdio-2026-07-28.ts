/** stdio at 2026-07-28: the v2 SDK's serveStdio over the stream stdio.ts handed on, strict to this revision. */
import type { Readable, Writable } from 'node:stream';

import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';

import type { ServerParts } from '../revisions/common';
import { server2026 } from '../revisions/2026-07-28';

export function serveStdio2026(parts: ServerParts, input: Readable, output: Writable): Promise<void> {
	serveStdio(() => server2026(parts), { legacy: 'reject', transport: new StdioServerTransport(input, output) });
	return Promise.resolve();
}
