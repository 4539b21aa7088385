import { DEFAULT_FAULT_KINDS, FAULT_KINDS, type Fault } from './traffic';
/**
 * Shape of webhook bodies: the spec's `{event_type, data}` (with the sandbox's extra members), exactly the
 * spec's (`spec-exact`: `data` holds only the fields the spec names), or the live service's unwrapped
 * `{event_type, chat, chatapp_account, message}`.
 */
export const WEBHOOK_PAYLOADS = ['spec', 'spec-exact', 'live'] as const;
export type WebhookPayload = (typeof WEBHOOK_PAYLOADS)[number];

export function isWebhookPayload(value: unknown): value is WebhookPayload {
	return (WEBHOOK_PAYLOADS as readonly unknown[]).includes(value);
}

/** Options of a sandbox instance. The CLI flags map one to one onto these (kebab-case → camelCase). */
export interface SandboxOptions {
	/** TCP port; 0 picks a free one (the programmatic default). */
	port: number;
	host: string;
	/** Bearer tokens; each one is its own workspace. Empty → one token is generated. */
	tokens: string[];
	/** Seed of every generated thing (workspaces, chats, uids, jitter, faults). */
	seed: number;
	/** Number of generated chats per workspace. */
	chats: number;
	/** Number of chat-app accounts per workspace (1 or 2); 0 lets the seed decide. */
	accounts: number;
	/** Instant the generated history ends at (ISO 8601) or "now". Fixed by default so a seed gives the same data every day. */
	seedTime: string;
	/** Workspace timezone as ±HHMM, used by every `YYYY-MM-DD HH:MM:SS ±ZZZZ` timestamp. */
	utcOffset: string;
	/** Mean pause between two sends of one workspace; each pause is jittered by ±25 %. */
	paceMs: number;
	/** Message credits per workspace. */
	quota: number;
	/** File that holds the whole state; loaded at start, rewritten atomically after changes. */
	statePath?: string;
	/** Extra delay before answering each public API request. */
	latencyMs: number;
	/** Requests per second per workspace (burst 10); 0 = no limit. */
	rateLimit: number;
	/** Share (0..1) of public API requests that get a fault (500, 502, 429, or a dropped connection). */
	faultRate: number;
	/** The fault kinds `faultRate` draws from (see traffic.ts); default the first five, without `http-500-after` and `slow`. */
	faultKinds: Fault[];
	/** How late a `slow` fault answers (after the request took effect). */
	slowMs: number;
	/** Share (0..1) of webhook deliveries that are sent twice. */
	duplicateRate: number;
	/** Delay from `sent` to `delivered`; 0 or negative = only the control API moves it. */
	deliveredAfterMs: number;
	/** Delay from `sent` to `read`; 0 or negative = only the control API moves it. */
	readAfterMs: number;
	/** Pause between two attempts of one webhook delivery. */
	webhookRetryMs: number;
	/** Time-out of one webhook attempt (the spec's 5 seconds). */
	webhookTimeoutMs: number;
	/** Shape of webhook bodies (`spec` by default); `POST /_sandbox/incoming` can override it per call. */
	webhookPayload: WebhookPayload;
	/** Base URL to print in links when the sandbox sits behind a proxy; default: the request's Host. */
	publicUrl?: string;
	/** Largest request body (default: a 100 MB document plus multipart overhead); beyond it, 413. */
	maxBodyBytes: number;
	/** Log one line per request to stderr. */
	log: boolean;
	/**
	 * Key that signs the temporary download links. Unset (the default, and the only choice the CLI offers): a random
	 * key per process, so nobody who knows the seed can forge a link to another workspace's file. Tests that need
	 * reproducible links pass a key of their own.
	 */
	downloadSigningKey?: string;
	/**
	 * Answer a list page that holds nothing (past the end, or a filter matching nothing) with the
	 * spec's `404 entities not found` instead of an empty page: GET /chats documents that status, and
	 * a client must end the list on it. Applies to GET /chats, GET /chats/{id}/messages and GET /files.
	 */
	emptyList404: boolean;
}

export const DEFAULT_OPTIONS: SandboxOptions = {
	port: 0,
	host: '127.0.0.1',
	tokens: [],
	seed: 1,
	chats: 25,
	accounts: 0,
	seedTime: '2025-06-02T10:00:00Z',
	utcOffset: '+0000',
	paceMs: 2000,
	quota: 1000,
	latencyMs: 0,
	rateLimit: 0,
	faultRate: 0,
	faultKinds: [...DEFAULT_FAULT_KINDS],
	slowMs: 3000,
	duplicateRate: 0,
	deliveredAfterMs: 1500,
	readAfterMs: 4000,
	webhookRetryMs: 1000,
	webhookTimeoutMs: 5000,
	webhookPayload: 'spec',
	log: false,
	maxBodyBytes: 101 * 1024 * 1024,
	emptyList404: false,
};

export function resolveOptions(partial: Partial<SandboxOptions> = {}): SandboxOptions {
	const merged: SandboxOptions = { ...DEFAULT_OPTIONS };
	for (const [key, value] of Object.entries(partial)) {
		if (value !== undefined) (merged as unknown as Record<string, unknown>)[key] = value;
	}
	if (merged.faultRate < 0 || merged.faultRate > 1) throw new Error('faultRate must be between 0 and 1');
	const unknownKinds = merged.faultKinds.filter((kind) => !(FAULT_KINDS as readonly string[]).includes(kind));
	if (unknownKinds.length) throw new Error(`faultKinds: unknown ${unknownKinds.join(', ')} (known: ${FAULT_KINDS.join(', ')})`);
	if (merged.duplicateRate < 0 || merged.duplicateRate > 1) throw new Error('duplicateRate must be between 0 and 1');
	if (!isWebhookPayload(merged.webhookPayload)) throw new Error(`webhookPayload must be one of ${WEBHOOK_PAYLOADS.join(', ')}`);
	if (!/^[+-]\d{4}$/.test(merged.utcOffset)) throw new Error('utcOffset must look like +0200');
	return merged;
}
