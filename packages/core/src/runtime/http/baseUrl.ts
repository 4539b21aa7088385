/** The service's base URL, the one rule every request and every download link is checked against. */
import { inputError } from '../errors';

/** Strips trailing slashes: the live service answers `…/chats/` with an HTML 404. */
export function normalizeBaseUrl(baseUrl: string): string {
	const trimmed = String(baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
	let protocol = '';
	try {
		protocol = new URL(trimmed).protocol;
	} catch {
		// reported below
	}
	if (protocol !== 'http:' && protocol !== 'https:')
		throw inputError('baseUrl', `must be an http(s) URL such as https://api.example.com, got "${baseUrl}"`, 'Base URL');
	return trimmed;
}
