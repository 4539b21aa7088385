/**
 * stdio for both revisions. The client's first message says which it speaks (revisions/revisionOf.ts): `initialize`
 * (2025-11-25) pins the connection to the 2025-11-25 server (elicitation within a call, tasks), while
 * server/discover or a request whose `_meta` names its revision pins it to the 2026-07-28 server
 * (stdio-2026-07-28.ts, loaded then). The first line is read here and handed on with the rest of stdin, so neither
 * server misses a byte.
 */
import { PassThrough, type Readable, type Writable } from 'node:stream';

import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

import type { Executor } from '@chat-messaging/core';
import { STDIO_OWNER } from '../calls/taskOwner';
import { FileLinks } from '../resources/fileLinks';
import { server2025 } from '../revisions/2025-11-25';
import { callerParts, packageVersion, sharedParts, type ServeOptions } from '../revisions/common';
import { revisionOf } from '../revisions/revisionOf';
import { log, shownBaseUrl } from '../log';

/** The first line of the stream and a stream that gives it again, followed by everything after it. */
function firstLine(input: Readable): Promise<{ line: string; replay: Readable }> {
	return new Promise((resolve) => {
		const chunks: Buffer[] = [];
		const done = () => {
			input.off('data', onData);
			input.off('end', done);
			input.pause();
			const buffered = Buffer.concat(chunks);
			const replay = new PassThrough();
			replay.write(buffered);
			input.pipe(replay);
			input.resume();
			const end = buffered.indexOf(0x0a);
			resolve({ line: buffered.subarray(0, end < 0 ? buffered.length : end).toString('utf8'), replay });
		};
		const onData = (chunk: Buffer) => {
			chunks.push(chunk);
			if (chunk.includes(0x0a)) done();
		};
		input.on('data', onData);
		input.once('end', done);
	});
}

export async function serveEitherRevision(
	serve2025: () => Server,
	serve2026: (input: Readable, output: Writable) => Promise<void>,
	input: Readable = process.stdin,
	output: Writable = process.stdout,
): Promise<void> {
	const { line, replay } = await firstLine(input);
	let message: unknown;
	try {
		message = JSON.parse(line);
	} catch {
		message = undefined;
	}
	if (revisionOf(message) === '2026-07-28') return serve2026(replay, output);
	await serve2025().connect(new StdioServerTransport(replay, output));
}

/**
 * stdio, either revision: the client's first message chooses (serveEitherRevision above). One caller, the client at the
 * other end of the pipe, in the process's workspace with its tools; one task store for the connection.
 */
export async function serveStdio(executor: Executor, serve: ServeOptions = {}): Promise<void> {
	const shared = sharedParts({ version: packageVersion(), ...serve, links: serve.links ?? new FileLinks({ timing: executor.timing }) });
	const parts = callerParts(shared, { executor, tools: shared.tools, owner: STDIO_OWNER });
	log(`serving ${shownBaseUrl(executor.baseUrl)} over stdio`);
	await serveEitherRevision(
		() => server2025(parts),
		async (input, output) => (await import('./stdio-2026-07-28')).serveStdio2026(parts, input, output),
	);
}
