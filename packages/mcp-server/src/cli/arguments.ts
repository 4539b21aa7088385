/**
 * The command's arguments: its usage text and the parsing of its options (each from its argument, else from its
 * environment variable, named in settings.ts, else its default).
 */
import { TOOLSETS } from '@chat-messaging/core';
import { INLINE_DOWNLOAD_LIMIT_BYTES } from '../resources/fileLinks';
import { ALL_TOOLSETS, DEFAULT_TOOLSET, listOf, type ToolScope } from '../scopes';
import { ENV, HTTP_PATH, UsageError } from '../settings';
import { isLoopbackName, parseHost, parseOrigin, type HostAndPort } from '../transports/access';

export const USAGE = `Usage: chat-messaging-mcp-server [options]

Serves the Chat Messaging Service API as MCP tools.
  (no option)                stdio, for a desktop client that starts the server itself
  --http <port>              Streamable HTTP on http://<host>:<port>${HTTP_PATH} (0: any free port)
  --host <address>           address to listen on with --http (default 127.0.0.1, loopback only); any other
                             address needs ${ENV.authToken}, --allowed-hosts and --allowed-origins
  --allowed-hosts <list>     Host names (name or name:port) requests may name besides loopback
  --allowed-origins <list>   browser Origins (https://app.example.com) allowed besides loopback; "none" for none
  --public-url <url>         with --http: the origin clients reach the server at (https, or http on loopback);
                             HTTP clients then connect through OAuth, each person to their own workspace
  --read-only                only the tools that read
  --toolsets <list>          ${[DEFAULT_TOOLSET, ALL_TOOLSETS, ...TOOLSETS].join(', ')} (default: ${DEFAULT_TOOLSET},
                             every toolset without the administrative tools: webhooks, invitations)
  --tools <list>             tools by name (alone: only these; with --toolsets: added)
  --exclude-tools <list>     tools by name to leave out
  --no-confirm               run deletes, Replace All, Remove All and administrative changes without asking the user
  --no-output-schemas        tools/list without each tool's outputSchema (about 40% fewer tokens in a model's context;
                             results keep their structuredContent)
  --inline-file-limit <bytes> downloads up to this size come inline in the result; larger ones as a resource_link
                             read through resources/read for 15 minutes (default ${INLINE_DOWNLOAD_LIMIT_BYTES}, 1 MB)

Environment (never arguments for secrets: they show in process lists):
  ${ENV.baseUrl}          the service's base URL, e.g. https://api.example.com
  ${ENV.token}             the bearer token
  ${ENV.authToken}    the secret HTTP clients send as "Authorization: Bearer …"
  ${ENV.store}         with --public-url: where grants are kept, a SQLite file (default in the user's
                             data folder) or redis://host:port for replicas
  ${ENV.secretKey}    the key sealing workspace tokens at rest (32 bytes, base64; required with Redis;
                             else generated beside the SQLite file)
  ${ENV.allowedHosts}, ${ENV.allowedOrigins}, ${ENV.readOnly} (true),
  ${ENV.toolsets}, ${ENV.tools}, ${ENV.excludeTools}, ${ENV.noConfirm} (true),
  ${ENV.noOutputSchemas} (true), ${ENV.inlineFileLimit}:
  the options above, for clients that pass environment rather than arguments (an option given wins)`;

export interface HttpOptions {
	port: number;
	host: string;
	/** `--allowed-hosts`: names (or name:port) besides loopback. */
	allowedHosts: HostAndPort[];
	/** `--allowed-origins`: origins besides loopback; undefined when not given at all ("none" gives []). */
	allowedOrigins?: string[];
	/** `--public-url`: the origin clients reach the server at; with it, clients connect through OAuth. */
	publicUrl?: string;
}

export interface CliOptions {
	http?: HttpOptions;
	scope: ToolScope;
	/** False with --no-confirm. */
	confirm: boolean;
	/** --inline-file-limit: the largest download returned inline, in bytes. */
	inlineFileLimit: number;
	/** False with --no-output-schemas. */
	outputSchemas: boolean;
	help?: boolean;
	version?: boolean;
}

const truthy = (text: string | undefined) => /^(1|true|yes|on)$/i.test((text ?? '').trim());

function hostsOf(option: string, text: string): HostAndPort[] {
	return listOf(text).map((entry) => {
		const parsed = parseHost(entry);
		if (!parsed) throw new UsageError(`${option}: "${entry}" is not a host name (name or name:port)`);
		return parsed;
	});
}

function originsOf(option: string, text: string): string[] {
	const entries = listOf(text);
	if (entries.length === 1 && entries[0]?.toLowerCase() === 'none') return [];
	return entries.map((entry) => {
		const parsed = parseOrigin(entry);
		if (!parsed) throw new UsageError(`${option}: "${entry}" is not an origin (scheme://host[:port], e.g. https://app.example.com)`);
		return parsed;
	});
}

/**
 * The public URL as an origin: https (TLS in front), or http on a loopback name only (a trial on one machine);
 * no path, since the metadata and the MCP endpoint are at the origin's root.
 */
function publicOrigin(text: string): string {
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		throw new UsageError(`--public-url: "${text}" is not a URL (https://mcp.example.com)`);
	}
	if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackName(url.hostname)))
		throw new UsageError('--public-url: https (with TLS in front of the server), or http on a loopback name only');
	if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== ''))
		throw new UsageError(`--public-url: the origin only (${url.origin}), without a path, query or user`);
	return url.origin;
}

/**
 * The command's options: each from its argument, else from its environment variable (desktop clients pass
 * environment, not arguments), else its default.
 */
export function parseArguments(argv: readonly string[], env: NodeJS.ProcessEnv = {}): CliOptions {
	const options: CliOptions = { scope: {}, confirm: true, inlineFileLimit: INLINE_DOWNLOAD_LIMIT_BYTES, outputSchemas: true };
	const given: Partial<Record<string, string | true>> = {};
	for (let index = 0; index < argv.length; index++) {
		const argument = argv[index] ?? '';
		const [flag, inline] = argument.startsWith('--') && argument.includes('=') ? argument.split(/=(.*)/s, 2) : [argument, undefined];
		const value = () => {
			const text = inline ?? argv[++index];
			if (text === undefined || text === '') throw new UsageError(`${flag} needs a value`);
			return text;
		};
		switch (flag) {
			case '--http':
			case '--host':
			case '--allowed-hosts':
			case '--allowed-origins':
			case '--public-url':
			case '--toolsets':
			case '--tools':
			case '--exclude-tools':
			case '--inline-file-limit':
				given[flag] = value();
				break;
			case '--read-only':
			case '--no-confirm':
			case '--no-output-schemas':
				given[flag] = true;
				break;
			case '--help':
			case '-h':
				options.help = true;
				break;
			case '--version':
				options.version = true;
				break;
			default:
				// Never echo the argument: it may be the token a user tried to pass.
				if (/token|base-?url|url|secret/i.test(flag))
					throw new UsageError(
						`The base URL and tokens come from the environment (${ENV.baseUrl}, ${ENV.token}, ${ENV.authToken}), not from arguments`,
					);
				throw new UsageError('Unknown argument');
		}
	}
	const text = (flag: string, variable: string): string | undefined => {
		const value = given[flag];
		if (typeof value === 'string') return value;
		const fromEnv = (env[variable] ?? '').trim();
		return fromEnv || undefined;
	};
	const flagOn = (flag: string, variable: string) => given[flag] === true || truthy(env[variable]);

	const toolsets = text('--toolsets', ENV.toolsets);
	const tools = text('--tools', ENV.tools);
	const excludeTools = text('--exclude-tools', ENV.excludeTools);
	options.scope = {
		...(flagOn('--read-only', ENV.readOnly) ? { readOnly: true } : {}),
		...(toolsets ? { toolsets: listOf(toolsets) } : {}),
		...(tools ? { tools: listOf(tools) } : {}),
		...(excludeTools ? { excludeTools: listOf(excludeTools) } : {}),
	};
	options.confirm = !flagOn('--no-confirm', ENV.noConfirm);
	options.outputSchemas = !flagOn('--no-output-schemas', ENV.noOutputSchemas);
	const inlineLimit = text('--inline-file-limit', ENV.inlineFileLimit);
	if (inlineLimit !== undefined) {
		if (!/^\d+$/.test(inlineLimit) || !Number.isSafeInteger(Number(inlineLimit)))
			throw new UsageError(`--inline-file-limit: a number of bytes, 0 or more, got "${inlineLimit}"`);
		options.inlineFileLimit = Number(inlineLimit);
	}

	const portText = given['--http'];
	const host = given['--host'];
	for (const flag of ['--host', '--allowed-hosts', '--allowed-origins', '--public-url'])
		if (given[flag] !== undefined && portText === undefined) throw new UsageError(`${flag} only goes with --http <port>`);
	if (typeof portText === 'string') {
		const port = Number(portText);
		if (!/^\d+$/.test(portText) || port > 65535) throw new UsageError(`--http: a port from 0 to 65535, got "${portText}"`);
		const hosts = text('--allowed-hosts', ENV.allowedHosts);
		const origins = text('--allowed-origins', ENV.allowedOrigins);
		const publicText = text('--public-url', ENV.publicUrl);
		const publicUrl = publicText === undefined ? undefined : publicOrigin(publicText);
		// The public URL's own host and origin are always accepted: clients and the consent page use them.
		const own = publicUrl ? new URL(publicUrl) : undefined;
		options.http = {
			port,
			host: typeof host === 'string' ? host : '127.0.0.1',
			allowedHosts: [
				...(hosts ? hostsOf('--allowed-hosts', hosts) : []),
				...(own ? [{ hostname: own.hostname, ...(own.port ? { port: Number(own.port) } : {}) }] : []),
			],
			...(origins || own
				? { allowedOrigins: [...(origins ? originsOf('--allowed-origins', origins) : []), ...(own ? [own.origin] : [])] }
				: {}),
			...(publicUrl ? { publicUrl } : {}),
		};
	}
	return options;
}
