/** The phone rule: international format, digits with an optional leading `+`; brackets, spaces and dashes are invalid. */

const SEND_FORMAT = /^\+?\d{7,15}$/;

/** Sanitises a phone for sending: returns `+<digits>` (leading zeroes of an `00` prefix dropped) or null when invalid. */
export function sanitizePhoneForSending(raw: string): string | null {
	const trimmed = raw.trim();
	if (!SEND_FORMAT.test(trimmed)) return null;
	const digits = trimmed.replace(/^\+/, '').replace(/^0+/, '');
	return digits.length >= 7 ? `+${digits}` : null;
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
