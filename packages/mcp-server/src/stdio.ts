/**
 * stdio for both revisions. The client's first message says which it speaks: `initialize` (2025-11-25) pins the
 * connection to the 2025-11-25 server (elicitation within a call, tasks), while server/discover or a request whose
 * `_meta` names its revision pins it to the 2026-07-28 server the v2 SDK's serveStdio serves. The first line is read
 * here and handed on with the rest of stdin, so neither server misses a byte.
 */
import { PassThrough, type Readable, type Writable } from 'node:stream';

import { StdioServerTransport as LegacyStdioTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Server as LegacyServer } from '@modelcontextprotocol/sdk/server/index.js';
import { PROTOCOL_VERSION_META_KEY, type Server as ModernServer } from '@modelcontextprotocol/server';
import { serveStdio as serveModernStdio, StdioServerTransport as ModernStdioTransport } from '@modelcontextprotocol/server/stdio';

import { isRecord } from '@chat-messaging/core';

/** Whether a client's first message opens a 2026-07-28 connection. */
export function opensModern(message: unknown): boolean {
	if (!isRecord(message)) return false;
	if (message.method === 'server/discover') return true;
	const meta = isRecord(message.params) ? message.params._meta : undefined;
	return isRecord(meta) && typeof meta[PROTOCOL_VERSION_META_KEY] === 'string';
}

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

export async function serveBothEras(
	legacy: () => LegacyServer,
	modern: () => ModernServer,
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
	if (opensModern(message)) {
		serveModernStdio(() => modern(), { legacy: 'reject', transport: new ModernStdioTransport(replay, output) });
		return;
	}
	await legacy().connect(new LegacyStdioTransport(replay, output));
}
