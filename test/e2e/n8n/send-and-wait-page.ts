/**
 * Answering a Send and Wait for Response link the way a person's browser does, for end-to-end scripts that need an
 * answer without driving a browser: open the link (GET: the page), then send the page's form back (POST) with the
 * fields the page holds (its hidden form token) and any the person fills in.
 */

export interface PageAnswer {
	status: number;
	html: string;
}

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

/** The hidden fields of a page's form, by name. */
export function hiddenFields(html: string): Record<string, string> {
	const fields: Record<string, string> = {};
	for (const [input] of html.matchAll(/<input\b[^>]*type="hidden"[^>]*>/g)) {
		const name = /name="([^"]*)"/.exec(input)?.[1];
		if (name) fields[name] = /value="([^"]*)"/.exec(input)?.[1] ?? '';
	}
	return fields;
}

/**
 * Opens the link as a person would, reloading while n8n answers 409 "running already": the message can reach the
 * chat before n8n has saved its execution as waiting, and until then n8n refuses the link (bounded: 30 s).
 */
async function openPage(link: string): Promise<PageAnswer> {
	const until = Date.now() + 30_000;
	for (;;) {
		const page = await fetch(link, { headers: { 'user-agent': BROWSER } });
		const opened = { status: page.status, html: await page.text() };
		if (opened.status !== 409 || !opened.html.includes('running already') || Date.now() > until) return opened;
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

/** Opens the link, then posts its page's form back with `fill` added; the page each step got. */
export async function answerThroughPage(
	link: string,
	fill: Record<string, string> = {},
): Promise<{ opened: PageAnswer; answered: PageAnswer }> {
	const opened = await openPage(link);
	if (!opened.html.includes('<form method="post">'))
		throw new Error(`the link's page (${opened.status}) has no form: ${opened.html.slice(0, 300)}`);
	const posted = await fetch(link, {
		method: 'POST',
		headers: { 'user-agent': BROWSER, 'content-type': 'application/x-www-form-urlencoded', origin: new URL(link).origin },
		body: new URLSearchParams({ ...hiddenFields(opened.html), ...fill }).toString(),
	});
	return { opened, answered: { status: posted.status, html: await posted.text() } };
}
