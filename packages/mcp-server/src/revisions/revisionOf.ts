/**
 * Which revision a message speaks, told without loading either SDK: 2026-07-28 requests carry their revision in
 * `_meta` (the envelope's protocolVersion key) or ask server/discover; 2025-11-25 opens with initialize and carries
 * neither. Used to load the v2 SDK only when a 2026-07-28 client comes (it costs a cold start a few hundred ms):
 * over stdio on the first message, over HTTP on the first POST that may speak it (the SDK's isLegacyRequest then
 * decides).
 */
import { isRecord } from '@chat-messaging/core';

/** The `_meta` key of a 2026-07-28 request's revision (the v2 SDK's PROTOCOL_VERSION_META_KEY). */
const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';

export type Revision = '2025-11-25' | '2026-07-28';

export function revisionOf(message: unknown): Revision {
	if (!isRecord(message)) return '2025-11-25';
	if (message.method === 'server/discover') return '2026-07-28';
	const meta = isRecord(message.params) ? message.params._meta : undefined;
	return isRecord(meta) && typeof meta[PROTOCOL_VERSION_META_KEY] === 'string' ? '2026-07-28' : '2025-11-25';
}
