/** Timestamp helpers: the spec's `YYYY-MM-DD HH:MM:SS ±ZZZZ` for records, ISO 8601 UTC for status history. */

export function parseUtcOffset(offset: string): number {
	const sign = offset.startsWith('-') ? -1 : 1;
	return sign * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(3, 5)));
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** Formats an instant in the workspace timezone, e.g. `2025-06-02 12:00:00 +0200`. */
export function formatSpecTimestamp(ms: number, offsetMinutes: number): string {
	const shifted = new Date(ms + offsetMinutes * 60_000);
	const sign = offsetMinutes < 0 ? '-' : '+';
	const abs = Math.abs(offsetMinutes);
	return (
		`${shifted.getUTCFullYear()}-${pad(shifted.getUTCMonth() + 1)}-${pad(shifted.getUTCDate())} ` +
		`${pad(shifted.getUTCHours())}:${pad(shifted.getUTCMinutes())}:${pad(shifted.getUTCSeconds())} ` +
		`${sign}${pad(Math.floor(abs / 60))}${pad(abs % 60)}`
	);
}

export function isoUtc(ms: number): string {
	return new Date(ms).toISOString();
}

const SPEC_FORMAT = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) ([+-])(\d{2})(\d{2})$/;
const ISO_FORMAT = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Whether the value's leading `YYYY-MM-DD` names a day that exists. Date.parse rolls an impossible day over
 * (2026-02-30 becomes 2 March), which would answer a mistyped filter with another day's records.
 */
function isCalendarDate(value: string): boolean {
	const [year, month, day] = value.slice(0, 10).split('-').map(Number);
	if (month < 1 || month > 12 || day < 1) return false;
	return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Parses a date-time query value. Accepts ISO 8601 (a date alone means midnight UTC, a time without an
 * offset means UTC) and the spec's own record format, so a client can feed back what it read.
 */
export function parseDateTime(value: string): number | null {
	const trimmed = value.trim();
	if (!isCalendarDate(trimmed)) return null;
	const spec = SPEC_FORMAT.exec(trimmed);
	if (spec) {
		const ms = Date.parse(`${spec[1]}T${spec[2]}${spec[3]}${spec[4]}:${spec[5]}`);
		return Number.isNaN(ms) ? null : ms;
	}
	if (!ISO_FORMAT.test(trimmed)) return null;
	let normalized = trimmed.replace(' ', 'T');
	if (/^\d{4}-\d{2}-\d{2}$/.test(normalized)) normalized += 'T00:00:00Z';
	else if (!/(Z|[+-]\d{2}:?\d{2})$/i.test(normalized)) normalized += 'Z';
	normalized = normalized.replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
	const ms = Date.parse(normalized);
	return Number.isNaN(ms) ? null : ms;
}
