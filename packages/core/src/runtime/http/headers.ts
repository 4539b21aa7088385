/** Reading the response headers the executor relies on: Retry-After, Content-Disposition, Content-Type. */
import type { TransportResponse } from '../../catalogue/types';

export function header(response: TransportResponse, name: string): string | undefined {
	const value = response.headers[name] ?? response.headers[name.toLowerCase()];
	return Array.isArray(value) ? value[0] : value;
}

/** The file name of a Content-Disposition header (`filename*=UTF-8''…` preferred). */
export function filenameOf(disposition: string | undefined): string {
	if (!disposition) return '';
	const extended = /filename\*\s*=\s*(?:UTF-8)?''([^;]+)/i.exec(disposition);
	if (extended) {
		try {
			return decodeURIComponent(extended[1].trim());
		} catch {
			// fall through to the plain name
		}
	}
	return /filename\s*=\s*"?([^";]+)"?/i.exec(disposition)?.[1].trim() ?? '';
}

/** Retry-After in milliseconds: delta-seconds or an HTTP date. */
export function retryAfterMs(response: TransportResponse, now: number): number | undefined {
	const value = header(response, 'retry-after');
	if (!value) return undefined;
	if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
