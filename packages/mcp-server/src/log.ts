/** What the server says (its transports, its OAuth server): to stderr only (stdout belongs to the stdio protocol), never a secret. */

export const log = (line: string) => process.stderr.write(`[chat-messaging-mcp] ${line}\n`);

/** The service's address as logs show it: its origin only, never a path or query where a secret may have been pasted. */
export function shownBaseUrl(baseUrl: string): string {
	try {
		return new URL(baseUrl).origin;
	} catch {
		return '(the configured base URL)';
	}
}
