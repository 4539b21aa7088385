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

/**
 * RFC 3339 date-time: date, `T` (or `t`, or a space, as RFC 3339 allows), time with seconds, an optional fraction
 * and a time zone (`Z`, `±HH:MM`, `±HHMM` or `±HH`). What the spec calls `string date-time`, and what an OpenAPI
 * validator accepts for `format: date-time`.
 */
const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|([+-])(\d{2})(?::?(\d{2}))?)$/;

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
 * Parses a date-time query value: RFC 3339 only (the spec's `date-time`). A date alone, a time without a zone
 * and the records' own `YYYY-MM-DD HH:MM:SS ±ZZZZ` are refused: the first two would have to be read in some
 * zone the client never named, and the third is no date-time in the sense of the spec's filter type.
 */
export function parseDateTime(value: string): number | null {
	const match = RFC3339.exec(value.trim());
	if (!match || !isCalendarDate(match[1])) return null;
	const [, date, hour, minute, second, fraction = '', zone, sign, zoneHours, zoneMinutes = '00'] = match;
	if (+hour > 23 || +minute > 59 || +second > 59 || +(zoneHours ?? 0) > 23 || +zoneMinutes > 59) return null;
	const offset = zone.toUpperCase() === 'Z' ? 'Z' : `${sign}${zoneHours}:${zoneMinutes}`;
	const ms = Date.parse(`${date}T${hour}:${minute}:${second}${fraction}${offset}`);
	return Number.isNaN(ms) ? null : ms;
}
