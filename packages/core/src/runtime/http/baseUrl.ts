/** The service's base URL, the one rule every request and every download link is checked against. */
import { FIELD_KINDS, isHttpUrl } from '../../catalogue/fields';
import { inputError } from '../errors';

/** Strips trailing slashes: the live service answers `…/chats/` with an HTML 404. */
export function normalizeBaseUrl(baseUrl: string): string {
	const trimmed = String(baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
	if (!isHttpUrl(trimmed))
		throw inputError('baseUrl', `${FIELD_KINDS.url.message} such as https://api.example.com, got "${baseUrl}"`, 'Base URL');
	return trimmed;
}
