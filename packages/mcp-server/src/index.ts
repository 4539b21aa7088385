/**
 * `@chat-messaging/mcp-server`: the Chat Messaging Service as MCP tools, over stdio (the default, for
 * desktop clients that start the server themselves) or Streamable HTTP (`--http <port>`, loopback unless
 * `--host` says otherwise). The service's base URL and token come from the environment only
 * (CHAT_MESSAGING_BASE_URL, CHAT_MESSAGING_TOKEN): arguments show in process lists and client logs.
 * Everything the server says goes to stderr; stdout belongs to the stdio protocol.
 */
import type { Server as HttpServer } from 'node:http';

import { parseArguments, USAGE, type CliOptions } from './cli/arguments';
import { configurationFromEnvironment } from './cli/configuration';
import { realTiming } from '@chat-messaging/client';
import type { OAuthSetup } from './oauth/setup';
import { defaultStorePath } from './store/openStore';
import { FileLinks } from './resources/fileLinks';
import { packageVersion, type ServeOptions } from './revisions/common';
import { ScopeError, selectTools } from './scopes';
import { catalogueTools, type CatalogueTool } from './tools';
import { ENV, HTTP_PATH, UsageError } from './settings';
import { serveHttp } from './transports/http';
import { log } from './log';
import { serveStdio } from './transports/stdio';
import { createExecutor, type Configuration } from './workspace';

export { callTool, type CallContext } from './calls/callTool';
export { confirmationMessage, CONFIRM_FIELD } from './calls/confirmation';
export { ToolTasks } from './calls/taskStore';
export { createServer } from './revisions/2025-11-25';
export { packageVersion, SERVER_NAME, type ServeOptions } from './revisions/common';
export { annotationsOf, catalogueTool, catalogueTools, toolName, LIST_LIMIT, type CatalogueTool } from './tools';
export { selectTools, type ToolScope } from './scopes';
export { isLoopbackName, refusal } from './transports/access';
export { USAGE, parseArguments, type CliOptions, type HttpOptions } from './cli/arguments';
export { configurationFromEnvironment } from './cli/configuration';
export { ENV, HTTP_PATH, UsageError } from './settings';
export { createExecutor, type Configuration } from './workspace';
export { shownBaseUrl } from './log';
export { serveStdio } from './transports/stdio';
export { serveHttp, type HttpServeOptions } from './transports/http';
export { MAX_SESSIONS, MAX_SESSIONS_PER_OWNER, SESSION_IDLE_MS } from './transports/sessions';

/** The command: parses the arguments, reads the environment, serves until stdin closes or a signal. */
export async function main(argv: readonly string[]): Promise<void> {
	let options: CliOptions;
	let configuration: Configuration;
	let tools: CatalogueTool[];
	try {
		options = parseArguments(argv, process.env);
		if (options.help) return void process.stdout.write(`${USAGE}\n`);
		if (options.version) return void process.stdout.write(`${packageVersion()}\n`);
		configuration = configurationFromEnvironment(process.env, { tokenRequired: !options.http?.publicUrl });
		try {
			tools = selectTools(catalogueTools(), options.scope);
		} catch (error) {
			if (error instanceof ScopeError) throw new UsageError(error.message);
			throw error;
		}
		if (!tools.length) throw new UsageError('The options leave no tool: check --toolsets, --tools, --exclude-tools and --read-only');
	} catch (error) {
		if (!(error instanceof UsageError)) throw error;
		process.stderr.write(`${error.message}\n\n${USAGE}\n`);
		process.exitCode = 2;
		return;
	}
	const executor = configuration.token ? createExecutor(configuration) : undefined;
	const links = new FileLinks({ timing: executor?.timing ?? realTiming, inlineLimitBytes: options.inlineFileLimit });
	const serve: ServeOptions = { tools, confirm: options.confirm, links, outputSchemas: options.outputSchemas };
	if (options.http) {
		const authToken = (process.env[ENV.authToken] ?? '').trim();
		let http: HttpServer;
		let oauth: OAuthSetup | undefined;
		try {
			if (options.http.publicUrl) oauth = await startOAuthFromEnvironment(options.http.publicUrl, configuration, tools);
			http = await serveHttp(executor, {
				...serve,
				...options.http,
				baseUrl: configuration.baseUrl,
				...(authToken ? { authToken } : {}),
				...(oauth ? { oauth } : {}),
				...(oauth?.tasks ? { tasks: oauth.tasks } : {}),
				secrets: configuration.token ? [configuration.token] : [],
			});
		} catch (error) {
			await oauth?.store.close();
			if (!(error instanceof UsageError)) throw error;
			process.stderr.write(`${error.message}\n`);
			process.exitCode = 2;
			return;
		}
		const stop = () => {
			http.close(() => void (oauth?.store.close() ?? Promise.resolve()).finally(() => process.exit(0)));
			// Open event streams (a session's GET) would keep the server from closing.
			http.closeAllConnections();
		};
		process.once('SIGINT', stop);
		process.once('SIGTERM', stop);
	} else {
		if (!executor) throw new Error('stdio needs the service token');
		await serveStdio(executor, serve);
	}
}

/** OAuth's store and servers from the environment: a store that cannot be opened is a usage error naming why. */
async function startOAuthFromEnvironment(
	publicUrl: string,
	configuration: Configuration,
	tools: readonly CatalogueTool[],
): Promise<OAuthSetup> {
	const storeLocation = (process.env[ENV.store] ?? '').trim() || defaultStorePath();
	try {
		// Loaded only with OAuth on: express and the SDK's OAuth handlers cost nothing to stdio or a plain HTTP start.
		const { startOAuth } = await import('./oauth/setup');
		const oauth = await startOAuth({
			publicUrl,
			mcpPath: HTTP_PATH,
			storeLocation,
			secretKey: (process.env[ENV.secretKey] ?? '').trim() || undefined,
			names: { store: ENV.store, secretKey: ENV.secretKey },
			offeredTools: tools,
			executorFor: (workspaceToken) => createExecutor({ baseUrl: configuration.baseUrl, token: workspaceToken }),
			onStoreError: (error) => log(`the grant store: ${error.message}`),
		});
		log(`OAuth grants in ${oauth.store.description}`);
		return oauth;
	} catch (error) {
		throw new UsageError((error as Error).message);
	}
}
