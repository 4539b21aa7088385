import { ApiError } from './errors';
import type { SandboxRuntime } from './runtime';
import type { Workspace } from './workspace';

/** What a handler of a `public` route (no token) sees of a request. */
export interface PublicRequestContext {
	runtime: SandboxRuntime;
	params: Record<string, string>;
	/** Query parameters; when one repeats, the last value wins. */
	query: Record<string, string>;
	/** Parsed JSON body (`undefined` when empty); multipart routes read `rawBody` instead. */
	body: unknown;
	rawBody: Buffer;
	contentType: string;
	/** `http://host:port` as the client addressed the sandbox, for links the sandbox serves itself. */
	baseUrl: string;
}

/** What a handler of an authenticated route sees: the request plus the token's workspace. */
export interface RequestContext extends PublicRequestContext {
	ws: Workspace;
}

/** A reply that is not the `{status:"ok", data}` envelope (file downloads). */
export class RawReply {
	constructor(
		readonly status: number,
		readonly headers: Record<string, string>,
		readonly body: Buffer | string,
	) {}
}

export type Handler = (ctx: RequestContext) => unknown | Promise<unknown>;
export type PublicHandler = (ctx: PublicRequestContext) => unknown | Promise<unknown>;

/**
 * `api` routes are the public API (auth, rate limit, faults, latency); `control` routes are `/_sandbox/...`
 * (auth only); `public` routes need no token (signed download links).
 */
export type RouteKind = 'api' | 'control' | 'public';

interface RouteBase {
	method: string;
	pattern: string;
	/** `json` bodies are parsed up front; `raw` leaves the bytes to the handler (multipart). */
	body: 'json' | 'raw';
	/** Segments of `pattern` compiled once. */
	segments: string[];
}

/** Authenticated routes get the workspace of the token; public routes get no workspace at all. */
export type Route =
	(RouteBase & { kind: Exclude<RouteKind, 'public'>; handler: Handler }) | (RouteBase & { kind: 'public'; handler: PublicHandler });

export function route(
	method: string,
	pattern: string,
	handler: Handler,
	kind: Exclude<RouteKind, 'public'> = 'api',
	body: 'json' | 'raw' = 'json',
): Route {
	return { method, pattern, kind, body, handler, segments: pattern.split('/').slice(1) };
}

/** A route that needs no token (its handler sees no workspace). */
export function publicRoute(method: string, pattern: string, handler: PublicHandler): Route {
	return { method, pattern, kind: 'public', body: 'json', handler, segments: pattern.split('/').slice(1) };
}

export type Match = { route: Route; params: Record<string, string> } | { allowed: string[] } | null;

export function matchRoute(routes: Route[], method: string, path: string): Match {
	const parts = path.split('/').slice(1);
	const allowed: string[] = [];
	for (const candidate of routes) {
		if (candidate.segments.length !== parts.length) continue;
		const params: Record<string, string> = {};
		let ok = true;
		for (const [i, segment] of candidate.segments.entries()) {
			const part = parts[i];
			if (part === undefined) ok = false;
			else if (segment.startsWith(':')) {
				try {
					params[segment.slice(1)] = decodeURIComponent(part);
				} catch {
					ok = false;
				}
			} else if (segment !== part) {
				ok = false;
			}
			if (!ok) break;
		}
		if (!ok) continue;
		if (candidate.method === method) return { route: candidate, params };
		allowed.push(candidate.method);
	}
	return allowed.length > 0 ? { allowed } : null;
}

/** Numeric path ids: anything else is a validation error on that parameter. */
export function idParam(ctx: RequestContext, name: string): number {
	const raw = ctx.params[name] ?? '';
	if (!/^\d{1,15}$/.test(raw)) throw ApiError.field([name], `${name} must be an integer`);
	return Number(raw);
}
