/**
 * The consent page: plain server-rendered HTML, no script, that names the client asking (its name and where the
 * answer goes), takes the workspace's API token and the access to give (read-only, the default toolsets, or
 * chosen toolsets; the default toolsets preselected, administrative ones unticked). Its headers keep it out of
 * frames (`frame-ancestors 'none'`), caches and other origins' referrers; the form may post only here and answer only to the
 * client's registered redirect URI.
 */
import type { Response } from 'express';

import { TOOLSETS } from '@chat-messaging/core';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';

import type { ConsentRecord } from './records';

const escape = (text: string) =>
	text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char);

/** The toolsets an administrator turns on knowingly (src/scopes.ts leaves them out of the default). */
const ADMINISTRATIVE_TOOLSETS = new Set(['webhooks', 'team']);

/** Where the browser goes after the form: a web origin, or the scheme of an app's redirect (vscode:, cursor:). */
function formTarget(redirectUri: string): string {
	const url = new URL(redirectUri);
	return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}

export interface ConsentView {
	client: OAuthClientInformationFull;
	consent: ConsentRecord;
	consentId: string;
	csrf: string;
	action: string;
	/** Why the last answer was not taken (a wrong workspace token), shown above the form. */
	error?: string;
}

export function renderConsent(res: Response, status: number, view: ConsentView): void {
	const { client, consent } = view;
	const redirect = new URL(consent.redirectUri);
	const name = client.client_name?.trim() || 'An unnamed client';
	const toolsets = TOOLSETS.map(
		(toolset) =>
			`<label><input type="checkbox" name="toolsets" value="${escape(toolset)}"${ADMINISTRATIVE_TOOLSETS.has(toolset) ? '' : ' checked'}> ${escape(toolset)}${ADMINISTRATIVE_TOOLSETS.has(toolset) ? ' (administrative)' : ''}</label>`,
	).join('\n');
	const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Connect a Chat Messaging workspace</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 36rem; margin: 2rem auto; padding: 0 1rem; color: #1b1b1b; }
h1 { font-size: 1.4rem; } fieldset { border: 1px solid #ccc; margin: 1rem 0; } label { display: block; }
.error { background: #fde8e8; border: 1px solid #e0a0a0; padding: .5rem 1rem; } .muted { color: #555; }
input[type=password] { width: 100%; box-sizing: border-box; padding: .4rem; } button { margin-right: 1rem; padding: .4rem 1rem; }
</style>
</head>
<body>
<h1>Connect a workspace to <span id="client-name">${escape(name)}</span></h1>
<p><strong>${escape(name)}</strong> asks to use the Chat Messaging tools on a workspace of yours.
After you connect, you go back to <strong id="redirect-host">${escape(redirect.host || redirect.protocol)}</strong>.</p>
${client.client_uri ? `<p class="muted">About the client: ${escape(client.client_uri)}</p>` : ''}
${consent.requestedScope ? `<p class="muted">It asked for: <code id="requested-scope">${escape(consent.requestedScope)}</code></p>` : ''}
${view.error ? `<p class="error" role="alert" id="error">${escape(view.error)}</p>` : ''}
<form method="post" action="${escape(view.action)}">
<input type="hidden" name="consent" value="${escape(view.consentId)}">
<input type="hidden" name="csrf" value="${escape(view.csrf)}">
<label for="workspace_token">The workspace's API token (from the workspace owner's account settings)</label>
<input type="password" id="workspace_token" name="workspace_token" autocomplete="off" required>
<fieldset>
<legend>Access to give</legend>
<label><input type="radio" name="access" value="read-only"> Read only: chats, messages, files and the workspace, nothing changed or sent</label>
<label><input type="radio" name="access" value="default" checked> The default tools: read, send, label, note, assign and close; no webhooks or invitations</label>
<label><input type="radio" name="access" value="toolsets"> Only the toolsets ticked below:</label>
${toolsets}
</fieldset>
<button type="submit" name="decision" value="approve">Connect</button>
<button type="submit" name="decision" value="deny" formnovalidate>Cancel</button>
</form>
</body>
</html>`;
	res
		.status(status)
		.set({
			'Content-Type': 'text/html; charset=utf-8',
			'Cache-Control': 'no-store',
			'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${formTarget(consent.redirectUri)}; frame-ancestors 'none'; base-uri 'none'`,
			'X-Frame-Options': 'DENY',
			// same-origin, not no-referrer: under no-referrer the browser posts the form with "Origin: null", which the Origin check refuses.
			'Referrer-Policy': 'same-origin',
			'X-Content-Type-Options': 'nosniff',
		})
		.send(html);
}
