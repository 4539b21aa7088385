import type { AddressInfo } from 'net';
import { resolveOptions, type SandboxOptions } from './options';
import { SandboxRuntime } from './runtime';
import { createSandboxServer } from './server';

export type { SandboxOptions } from './options';
export { DEFAULT_OPTIONS } from './options';

export interface RunningSandbox {
	/** `http://host:port`, no trailing slash. */
	url: string;
	port: number;
	/** Bearer tokens, one per workspace. */
	tokens: string[];
	/** Stops the server, cancels timers and pending webhook deliveries, and writes the state file (if any). */
	stop(): Promise<void>;
}

/** Starts a sandbox of the Chat Messaging Service API. Programmatic default port: 0 (a free port). */
export async function startSandbox(options: Partial<SandboxOptions> = {}): Promise<RunningSandbox> {
	const resolved = resolveOptions(options);
	const runtime = new SandboxRuntime(resolved);
	const tokens = runtime.init();
	const server = createSandboxServer(runtime);
	// Node closes an idle kept-alive connection after 5 s, the moment a client may be reusing it for its next
	// request: a POST sent into that close fails with a reset the client must not retry (it cannot know whether it
	// arrived). Services behind load balancers keep idle connections about a minute; so does the sandbox.
	server.keepAliveTimeout = 65_000;
	server.headersTimeout = 66_000;
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(resolved.port, resolved.host, () => {
			server.off('error', reject);
			resolve();
		});
	});
	const port = (server.address() as AddressInfo).port;
	const hostForUrl = resolved.host.includes(':') ? `[${resolved.host}]` : resolved.host === '0.0.0.0' ? '127.0.0.1' : resolved.host;
	runtime.baseUrl = resolved.publicUrl?.replace(/\/+$/, '') ?? `http://${hostForUrl}:${port}`;
	let stopping: Promise<void> | null = null;
	return {
		url: `http://${hostForUrl}:${port}`,
		port,
		tokens,
		stop() {
			stopping ??= new Promise<void>((resolve) => {
				runtime.stop();
				server.close(() => resolve());
				server.closeAllConnections();
			});
			return stopping;
		},
	};
}
