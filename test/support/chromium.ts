/** Debian's Chromium, headless and quiet, as every browser test and the demo test drive it. */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** CHROMIUM_PATH overrides where Chromium is. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** No GPU, no sandbox (CI runs as root), and nothing that reaches for the network on its own. */
const FLAGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

export async function launchChromium(): Promise<Browser> {
	if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: apt-get update && apt-get install -y chromium`);
	return chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
}

/**
 * Where the browser tests put the screenshots docs/editors.md shows: docs/screenshots with UPDATE_SCREENSHOTS=1 (to
 * refresh those pictures on purpose), else a temporary folder, so a test run leaves the checkout as it was.
 */
export const DOCS_SCREENSHOTS = process.env.UPDATE_SCREENSHOTS
	? join(__dirname, '..', '..', 'docs', 'screenshots')
	: join(tmpdir(), 'chat-messaging-docs-screenshots');
