import {
	sandboxClient,
	startReceiver,
	waitFor,
	type HttpAnswer,
	type Receiver,
	type SandboxCallOptions,
} from '../../../test/support/harness';
import { startSandbox, type SandboxOptions } from '../src';

/** Fast settings for tests: short pace and status delays, quick webhook retries. */
export const FAST: Partial<SandboxOptions> = {
	paceMs: 40,
	deliveredAfterMs: 80,
	readAfterMs: 160,
	webhookRetryMs: 30,
	webhookTimeoutMs: 1000,
	seed: 7,
	chats: 25,
};

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

/** A call as the given sandbox's first workspace (another token, or none, in `options`). */
export const call = (
	sandbox: Sandbox,
	method: string,
	path: string,
	body?: unknown,
	options: SandboxCallOptions = {},
): Promise<HttpAnswer> => sandboxClient(sandbox.url, sandbox.tokens[0]!).call(method, path, body, options);

/** GET and unwrap `data` (asserting the ok envelope). */
export async function data(sandbox: Sandbox, path: string, token?: string): Promise<any> {
	const res = await call(sandbox, 'GET', path, undefined, token ? { token } : {});
	if (res.status !== 200 || res.body?.status !== 'ok') throw new Error(`GET ${path} → ${res.status} ${res.text}`);
	return res.body.data;
}

export { startReceiver, waitFor, type Receiver };

export const SPEC_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [+-]\d{4}$/;
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

export { startSandbox };
