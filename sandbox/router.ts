import { ApiError } from './errors';
import type { SandboxRuntime } from './runtime';
import type { Workspace } from './workspace';

/** What a handler sees of a request. */
export interface RequestContext {
  runtime: SandboxRuntime;
  ws: Workspace;
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

/** A reply that is not the `{status:"ok", data}` envelope (file downloads). */
export class RawReply {
  constructor(readonly status: number, readonly headers: Record<string, string>, readonly body: Buffer | string) {}
}

export type Handler = (ctx: RequestContext) => unknown | Promise<unknown>;

/**
 * `api` routes are the public API (auth, rate limit, faults, latency); `control` routes are `/_sandbox/...`
 * (auth only); `public` routes need no token (signed download links).
 */
export type RouteKind = 'api' | 'control' | 'public';

export interface Route {
  method: string;
  pattern: string;
  kind: RouteKind;
  /** `json` bodies are parsed up front; `raw` leaves the bytes to the handler (multipart). */
  body: 'json' | 'raw';
  handler: Handler;
  /** Segments of `pattern` compiled once. */
  segments: string[];
}

export function route(method: string, pattern: string, handler: Handler, kind: RouteKind = 'api', body: 'json' | 'raw' = 'json'): Route {
  return { method, pattern, kind, body, handler, segments: pattern.split('/').slice(1) };
}

export type Match = { route: Route; params: Record<string, string> } | { allowed: string[] } | null;

export function matchRoute(routes: Route[], method: string, path: string): Match {
  const parts = path.split('/').slice(1);
  const allowed: string[] = [];
  for (const candidate of routes) {
    if (candidate.segments.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < parts.length && ok; i += 1) {
      const segment = candidate.segments[i]!;
      if (segment.startsWith(':')) {
        try {
          params[segment.slice(1)] = decodeURIComponent(parts[i]!);
        } catch {
          ok = false;
        }
      } else if (segment !== parts[i]) {
        ok = false;
      }
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
