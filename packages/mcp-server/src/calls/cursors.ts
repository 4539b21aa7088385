/**
 * A list tool's cursor: opaque to the model, it holds the position (page, records of it already returned, records
 * per page) and a digest of the filters it belongs to, so a cursor passed back with other filters is refused instead
 * of continuing some other list.
 */
import { createHash } from 'node:crypto';

import { inputError, isRecord, type ListPosition } from '@chat-messaging/core';
import { CURSOR_ARGUMENT } from '../tools';

export function encodeCursor(position: ListPosition, filters: string): string {
	const { page: p, skip: s, pageSize: n } = position;
	return Buffer.from(JSON.stringify({ p, s, ...(n ? { n } : {}), f: filters })).toString('base64url');
}

const wholeAtLeast = (value: unknown, min: number): value is number => typeof value === 'number' && Number.isInteger(value) && value >= min;

export function decodeCursor(cursor: unknown, filters: string): ListPosition {
	const invalid = () => inputError(CURSOR_ARGUMENT, 'is not a cursor this tool returned; leave it out to start the list again');
	if (typeof cursor !== 'string' || !cursor) throw invalid();
	let decoded: unknown;
	try {
		decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
	} catch {
		throw invalid();
	}
	if (!isRecord(decoded) || !wholeAtLeast(decoded.p, 1) || !wholeAtLeast(decoded.s, 0)) throw invalid();
	if (decoded.f !== filters)
		throw inputError(CURSOR_ARGUMENT, 'belongs to a call with other filters: pass the same filters as the call that returned it');
	return { page: decoded.p, skip: decoded.s, ...(wholeAtLeast(decoded.n, 1) ? { pageSize: decoded.n } : {}) };
}

/** A digest of a list call's filters (everything but cursor and limit), independent of key order. */
export function filtersDigest(input: Record<string, unknown>): string {
	const sorted = Object.keys(input)
		.sort()
		.map((key) => [key, input[key]]);
	return createHash('sha256').update(JSON.stringify(sorted)).digest('base64url').slice(0, 16);
}
