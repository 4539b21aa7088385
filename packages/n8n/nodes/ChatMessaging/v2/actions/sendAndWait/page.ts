/**
 * The pages Send and Wait for Response's links open: small and self-contained (no scripts, no outside
 * resources), every text escaped.
 */
import { FORM_TOKEN_FIELD } from './resumeLinks';

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** A small self-contained page: no scripts, no outside resources. */
function page(title: string, body: string): string {
	return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222}p{white-space:pre-wrap}textarea{width:100%;min-height:8rem;box-sizing:border-box}button{font-size:1rem;padding:.5rem 1.25rem;margin-top:1rem}</style></head><body>${body}</body></html>`;
}

export const RECORDED_PAGE = page('Response recorded', '<h1>Got it, thanks</h1><p>This page can be closed now.</p>');
export const NO_LONGER_VALID_PAGE = page(
	'This link is no longer valid',
	'<h1>This link is no longer valid</h1><p>The request it was sent for has already been answered or has timed out. Nothing was changed.</p>',
);
export const NOT_FROM_PAGE = page(
	'Not answered',
	'<h1>Not answered</h1><p>An answer counts only when it is sent with the button of the page this link opens. Open the link and use its button. Nothing was changed.</p>',
);
export const UNCHECKED_PAGE = page('Not answered', '<h1>Not answered</h1><p>This link could not be checked. Nothing was changed.</p>');

/** The wait's form token as a hidden field of the page's form (none for a wait begun without one). */
const tokenField = (formToken: string | undefined): string =>
	formToken === undefined ? '' : `<input type="hidden" name="${FORM_TOKEN_FIELD}" value="${escapeHtml(formToken)}">`;

/** Approval: the question and the one button whose POST answers. */
export function approvalPage(label: string, text: string, formToken: string | undefined): string {
	return page(
		label,
		`<h1>${escapeHtml(label)}?</h1>${text ? `<p>${escapeHtml(text)}</p>` : ''}` +
			`<form method="post">${tokenField(formToken)}<button type="submit">${escapeHtml(label)}</button></form>`,
	);
}

/** Free Text: the form; `blank` asks again after an empty answer. */
export function freeTextPage(
	form: { title: string; description: string; button: string; blank: boolean },
	formToken: string | undefined,
): string {
	const { title, description, button } = form;
	const blank = form.blank ? '<p role="alert">Please write a response.</p>' : '';
	return page(
		title || 'Your response',
		`${title ? `<h1>${escapeHtml(title)}</h1>` : ''}${description ? `<p>${escapeHtml(description)}</p>` : ''}${blank}` +
			`<form method="post">${tokenField(formToken)}<label for="response">Response</label><textarea id="response" name="response" required></textarea>` +
			`<button type="submit">${escapeHtml(button)}</button></form>`,
	);
}
