/** The phone rule: international format, digits with an optional leading `+`; brackets, spaces and dashes are invalid. */

/**
 * International format with the country code, `+` optional: a country code never starts with 0, so a
 * number that does is in a national format (015112345678) and invalid — it is never given a country
 * code it does not have.
 */
const SEND_FORMAT = /^\+?[1-9]\d{6,14}$/;

/** Sanitises a phone for sending: `+<digits>`, or null when it is not in international format. */
export function sanitizePhoneForSending(raw: string): string | null {
	const trimmed = raw.trim();
	if (!SEND_FORMAT.test(trimmed)) return null;
	return `+${trimmed.replace(/^\+/, '')}`;
}

/**
 * The GET /chats `phone` filter: sanitised as for sending (same character rule, any length so partial numbers
 * work). A value starting with `+` must equal the stored phone; otherwise its leading zeroes are removed and it
 * matches as a substring.
 */
export function phoneFilter(raw: string): ((stored: string) => boolean) | null {
	const trimmed = raw.trim();
	if (!/^\+?\d+$/.test(trimmed)) return null;
	if (trimmed.startsWith('+')) return (stored) => stored === trimmed;
	const digits = trimmed.replace(/^0+/, '');
	return (stored) => digits.length > 0 && stored.includes(digits);
}
