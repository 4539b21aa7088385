/** The sessions of Streamable HTTP clients (http.ts): each closed when unused for long or when its owner, or everyone, has too many open. */
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** How long a session may go unused before it is closed. */
export const SESSION_IDLE_MS = 30 * 60 * 1000;
/**
 * How many sessions one owner (a grant, the static secret, the anonymous loopback caller) keeps at most: its own
 * least recently used is closed for a new one, so that one caller opening many cannot close everyone else's. A server
 * with one owner keeps as many as before there were owners.
 */
export const MAX_SESSIONS_PER_OWNER = 64;
/** How many are kept at most in all: past it, the least recently used of anyone's is closed. */
export const MAX_SESSIONS = 256;

interface Session {
	transport: StreamableHTTPServerTransport;
	/** Whose the session is (the caller that initialized it): no other caller may use it. */
	owner: string;
	touch: () => void;
}

/** Sessions of clients that initialized one, each closed after SESSION_IDLE_MS unused or when the client ends it. */
export class Sessions {
	/** onCloseFailed hears a session whose closing failed (evicted or idle, nobody awaits it): told, not lost. */
	constructor(private readonly onCloseFailed: (error: Error) => void) {}

	private readonly open_ = new Map<string, Session & { timer: NodeJS.Timeout; server: { close: () => Promise<void> } }>();

	get(id: string): Session | undefined {
		return this.open_.get(id);
	}

	open(id: string, transport: StreamableHTTPServerTransport, server: { close: () => Promise<void> }, owner: string): void {
		// The map is in order of use, least recent first.
		const owned = [...this.open_].filter(([, session]) => session.owner === owner);
		const oldest =
			owned.length >= MAX_SESSIONS_PER_OWNER ? owned[0]?.[0] : this.open_.size >= MAX_SESSIONS ? this.open_.keys().next().value : undefined;
		if (oldest !== undefined) this.close(oldest);
		const session = {
			transport,
			server,
			owner,
			timer: setTimeout(() => this.close(id), SESSION_IDLE_MS).unref(),
			touch: () => {
				session.timer.refresh();
				// Most recently used last, so the oldest is the first to go.
				this.open_.delete(id);
				this.open_.set(id, session);
			},
		};
		this.open_.set(id, session);
	}

	delete(id: string): void {
		const session = this.open_.get(id);
		if (session) clearTimeout(session.timer);
		this.open_.delete(id);
	}

	private close(id: string): void {
		const session = this.open_.get(id);
		this.delete(id);
		if (!session) return;
		session.transport
			.close()
			.then(() => session.server.close())
			.catch((error: unknown) => this.onCloseFailed(error as Error));
	}
}
