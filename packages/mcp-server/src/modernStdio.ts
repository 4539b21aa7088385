/** stdio at 2026-07-28: the v2 SDK's serveStdio over the stream stdio.ts handed on, strict to the modern revision. */
import type { Readable, Writable } from 'node:stream';

import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';

import { createModernServer, type ModernServerOptions } from './modern';

export async function serveModernStdio(options: ModernServerOptions, input: Readable, output: Writable): Promise<void> {
	serveStdio(() => createModernServer(options), { legacy: 'reject', transport: new StdioServerTransport(input, output) });
}
