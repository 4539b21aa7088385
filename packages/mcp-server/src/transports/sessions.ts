/** The sessions of Streamable HTTP clients (http.ts): each closed when unused for long or when too many are open. */
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** How long a session may go unused before it is closed, and how many are kept at most (the oldest closed first). */
export const SESSION_IDLE_MS = 30 * 60 * 1000;
export const MAX_SESSIONS = 64;

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
		if (this.open_.size >= MAX_SESSIONS) {
			const oldest = this.open_.keys().next().value;
			if (oldest !== undefined) this.close(oldest);
		}
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
