import { Executor } from '@chat-messaging/core';
import { fetchTransport, realTiming } from './fetch-transport';

type ExecutorOptions = ConstructorParameters<typeof Executor>[0];

/** An executor against a sandbox over real HTTP, retrying quickly (tests wait for no back-off). */
export const sandboxExecutor = (baseUrl: string, token: string, extra: Partial<ExecutorOptions> = {}): Executor =>
	new Executor({ baseUrl, transport: fetchTransport, timing: realTiming, token, retry: { baseDelayMs: 20 }, ...extra });
