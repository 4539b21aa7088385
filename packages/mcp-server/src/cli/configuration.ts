/** The service the command serves: its address and token, from the environment. */
import { normalizeBaseUrl, redactText } from '@chat-messaging/core';
import { ENV, UsageError } from '../settings';
import type { Configuration } from '../workspace';

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
