/**
 * A workspace as the server reaches it: the service's base URL and the workspace's API token, and the executor every
 * tool call of its callers runs on.
 */
import { Executor, pacingKey } from '@chat-messaging/core';
import { fetchTransport, realTiming } from '@chat-messaging/client';

export interface Configuration {
	baseUrl: string;
	token: string;
}

/** The executor of one workspace: its pace shared per base URL and token in the process. */
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
