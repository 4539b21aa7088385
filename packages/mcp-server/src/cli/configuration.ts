/**
 * What every way of serving shares: the service's address and token from the environment, the one executor of the
 * process, the package's version and the log (stderr only: stdout belongs to the stdio protocol).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Executor, normalizeBaseUrl, pacingKey, redactText } from '@chat-messaging/core';
import type { FileLinks } from '../resources/fileLinks';
import { fetchTransport, realTiming } from '@chat-messaging/client';
import { ENV, UsageError } from './arguments';
import type { CatalogueTool } from '../tools';

/** The package's version, from its package.json: one folder up from dist/index.js, two from src/cli/ (run from source). */
export function packageVersion(): string {
	for (const folder of [join(__dirname, '..'), join(__dirname, '..', '..')]) {
		try {
			const pkg = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name?: string; version: string };
			if (pkg.name === '@chat-messaging/mcp-server') return pkg.version;
		} catch {
			// Not this folder: the next one.
		}
	}
	return '0.0.0';
}

export interface Configuration {
	baseUrl: string;
	/** Empty when OAuth alone is used (each grant has its own). */
	token: string;
}

/** The service's address and token from the environment; an error names the variable, never its value. */
export function configurationFromEnvironment(env: NodeJS.ProcessEnv = process.env, { tokenRequired = true } = {}): Configuration {
	const token = (env[ENV.token] ?? '').trim();
	const rawBaseUrl = (env[ENV.baseUrl] ?? '').trim();
	if (!rawBaseUrl) throw new UsageError(`${ENV.baseUrl} is not set: the service's base URL, e.g. https://api.example.com`);
	// With OAuth each grant brings its own workspace token; the process's own is only for the static secret.
	if (!token && tokenRequired) throw new UsageError(`${ENV.token} is not set: the bearer token of the service`);
	let baseUrl: string;
	try {
		baseUrl = normalizeBaseUrl(rawBaseUrl);
	} catch (error) {
		throw new UsageError(`${ENV.baseUrl}: ${redactText((error as Error).message, [token])}`);
	}
	return { baseUrl, token };
}

/** The executor every tool call runs on: one per process, its pace shared per base URL and token. */
export function createExecutor(configuration: Configuration): Executor {
	return new Executor({
		baseUrl: configuration.baseUrl,
		token: configuration.token,
		transport: fetchTransport,
		timing: realTiming,
		pacingKey: pacingKey(configuration.baseUrl, configuration.token),
		// The list's window of pages is the executor's default, the nodes' 8: measured against 16 with `bench/run.ts
		// --only=list`, a 5,000-chat list in parts of 1,000 took the nodes' time either way (pacing, not the window,
		// bounds the rate), so the server keeps no number of its own.
	});
}

export const log = (line: string) => process.stderr.write(`[chat-messaging-mcp] ${line}\n`);

/** The service's address as logs show it: its origin only, never a path or query where a secret may have been pasted. */
export function shownBaseUrl(baseUrl: string): string {
	try {
		return new URL(baseUrl).origin;
	} catch {
		return '(the configured base URL)';
	}
}

export interface ServeOptions {
	/** The tools of the session (a scope's `selectTools`). */
	tools?: readonly CatalogueTool[];
	/** Whether to ask the user before irreversible and administrative calls (see `ServerOptions.confirm`). */
	confirm?: boolean;
	/** The process's file links (see `ServerOptions.links`): every session and request of the process shares them. */
	links?: FileLinks;
	/** Whether tools/list shows each tool's outputSchema (false: --no-output-schemas). */
	outputSchemas?: boolean;
}
