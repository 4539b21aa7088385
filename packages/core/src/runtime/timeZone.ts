/**
 * Date-times given as wall time (no zone) are read in the platform's zone (the workflow's, the configuration
 * node's): the arithmetic from the platform's own time-zone data, and the UTC text they are sent as.
 */

/** Milliseconds a zone is ahead of UTC at an instant, from the platform's own time-zone data. */
function zoneOffsetMs(timeZone: string, instant: number): number {
	const parts = new Intl.DateTimeFormat('en-US', {
		timeZone,
		hourCycle: 'h23',
		year: 'numeric',
		month: 'numeric',
		day: 'numeric',
		hour: 'numeric',
		minute: 'numeric',
		second: 'numeric',
	}).formatToParts(new Date(instant));
	const part = (type: string) => Number(parts.find((item) => item.type === type)?.value);
	return (
		Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second')) - Math.floor(instant / 1000) * 1000
	);
}

/** RFC 3339 in UTC, without a fraction when there is none: `2026-01-31T09:00:00Z`. */
export const toUtcText = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

/**
 * The instant (epoch ms) of a wall time in `timeZone`; `wall` holds its fields read as UTC. The offset is the one
 * at the instant itself, not at the wall time read as UTC (they differ at DST edges).
 */
export function wallTimeToUtc(wall: number, timeZone: string): number {
	const guess = wall - zoneOffsetMs(timeZone, wall);
	return wall - zoneOffsetMs(timeZone, guess);
}
