/**
 * The names a user configures the server by, and the error of a setting it cannot start with: read by the command
 * (cli/) and by the transports, which refuse a setting of their own (listening beyond loopback without a secret).
 */

export const ENV = {
	baseUrl: 'CHAT_MESSAGING_BASE_URL',
	token: 'CHAT_MESSAGING_TOKEN',
	/** The bearer secret HTTP clients must send; required to listen anywhere but loopback. */
	authToken: 'CHAT_MESSAGING_MCP_AUTH_TOKEN',
	allowedHosts: 'CHAT_MESSAGING_MCP_ALLOWED_HOSTS',
	allowedOrigins: 'CHAT_MESSAGING_MCP_ALLOWED_ORIGINS',
	readOnly: 'CHAT_MESSAGING_MCP_READ_ONLY',
	toolsets: 'CHAT_MESSAGING_MCP_TOOLSETS',
	tools: 'CHAT_MESSAGING_MCP_TOOLS',
	excludeTools: 'CHAT_MESSAGING_MCP_EXCLUDE_TOOLS',
	noConfirm: 'CHAT_MESSAGING_MCP_NO_CONFIRM',
	inlineFileLimit: 'CHAT_MESSAGING_MCP_INLINE_FILE_LIMIT',
	noOutputSchemas: 'CHAT_MESSAGING_MCP_NO_OUTPUT_SCHEMAS',
	/** The server's public URL: with it, HTTP clients connect through OAuth. */
	publicUrl: 'CHAT_MESSAGING_MCP_PUBLIC_URL',
	/** Where OAuth grants are kept: a SQLite file, or redis://… for replicas. */
	store: 'CHAT_MESSAGING_MCP_STORE',
	/** The key that seals workspace tokens at rest (required with Redis). */
	secretKey: 'CHAT_MESSAGING_MCP_SECRET_KEY',
} as const;

/** The path the Streamable HTTP endpoint answers on. */
export const HTTP_PATH = '/mcp';

/** A usage error: printed with the usage, exit code 2. */
export class UsageError extends Error {}
