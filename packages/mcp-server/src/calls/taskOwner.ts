/**
 * Whose a task or a file link is. A task's id and a link's URI are random, but neither is a secret once logged or
 * shown: each belongs to the one who started it and is "not found" for anyone else. With a session (2025-11-25 over
 * HTTP) a task is the session's; otherwise (a stateless 2025-11-25 POST, every 2026-07-28 request), and for links
 * always, the owner is the caller: its secret (its Authorization header, kept as a digest, never the secret itself),
 * and without a secret (loopback with no client secret, where any local process may call every tool anyway) the one
 * anonymous caller. Over stdio it is the connection.
 */
import { createHash } from 'node:crypto';

/** The owner of what a request without a session starts and reads. */
export function taskOwnerOf(authorization: string | null | undefined): string {
	if (!authorization) return 'caller:anonymous';
	return `caller:${createHash('sha256').update(authorization).digest('base64url')}`;
}

/** The owner over stdio: the one client at the other end of the pipe. */
export const STDIO_OWNER = 'stdio';

/** The owner of a 2025-11-25 session's tasks. */
export const sessionOwner = (sessionId: string): string => `session:${sessionId}`;
