/**
 * The consent form's answer (POST): only from the browser the page was shown to (its cookie) and from the page
 * itself (the form's CSRF value); a workspace token the service refuses gives the page again with why, and no
 * code; nothing is stored before the service has accepted it. A form is answered once: sent again, even at the same
 * moment, it is refused as an expired one is.
 */
import type { Request, Response } from 'express';

import { TOOLSETS } from '@chat-messaging/core';

import type { Clients } from './clients';
import { renderConsent } from './consentPage';
import { CONSENT_COOKIE, type GrantProvider } from './provider';
import { READ_ONLY_SCOPE } from './scopes';

/** Undefined when the service accepts the workspace token; else what to tell the person (never the token). */
export type WorkspaceTokenCheck = (workspaceToken: string) => Promise<string | undefined>;

const field = (body: Record<string, unknown>, name: string): string => {
	const value = body[name];
	return typeof value === 'string' ? value : '';
};

function cookie(req: Request, name: string): string {
	for (const part of (req.headers.cookie ?? '').split(';')) {
		const [key, ...value] = part.trim().split('=');
		if (key !== name) continue;
		try {
			return decodeURIComponent(value.join('='));
		} catch {
			// Not this server's cookie (it writes base64url): the form is refused as one without it.
			return '';
		}
	}
	return '';
}

/** The scope the form's access choice gives, or a message when the choice gives nothing. */
function scopeOfChoice(body: Record<string, unknown>): { scope: string } | { error: string } {
	const access = field(body, 'access');
	if (access === 'read-only') return { scope: `default ${READ_ONLY_SCOPE}` };
	if (access === 'default') return { scope: 'default' };
	if (access === 'toolsets') {
		const ticked = ([] as unknown[]).concat(body.toolsets ?? []).filter((name): name is string => typeof name === 'string');
		const chosen = ticked.filter((name) => (TOOLSETS as readonly string[]).includes(name));
		if (!chosen.length) return { error: 'Tick at least one toolset, or choose another access' };
		return { scope: chosen.join(' ') };
	}
	return { error: 'Choose the access to give' };
}

export function consentHandler(options: {
	provider: GrantProvider;
	clients: Clients;
	checkWorkspaceToken: WorkspaceTokenCheck;
	secureCookie: boolean;
	action: string;
}) {
	return async (req: Request, res: Response): Promise<void> => {
		res.setHeader('Cache-Control', 'no-store');
		const body = (req.body ?? {}) as Record<string, unknown>;
		const consentId = field(body, 'consent');
		const csrf = field(body, 'csrf');
		const refuseForm = () =>
			res
				.status(403)
				.type('text/plain')
				.send(
					'This consent form has expired, was already answered, or was not sent from the page this server showed in this browser: start connecting again from the client',
				);
		const record = await options.provider.consentFor(consentId, csrf, cookie(req, CONSENT_COOKIE(options.secureCookie)));
		if (!record) return void refuseForm();
		const finish = async (outcome: Parameters<GrantProvider['finishConsent']>[1]) => {
			const target = await options.provider.finishConsent(consentId, outcome);
			if (!target) return void refuseForm();
			res.redirect(303, target);
		};
		if (field(body, 'decision') === 'deny') return finish('denied');
		const client = await options.clients.getClient(record.clientId);
		if (!client) {
			res.status(400).type('text/plain').send('The client is no longer registered: start connecting again from the client');
			return;
		}
		const again = (error: string) => renderConsent(res, 400, { client, consent: record, consentId, csrf, action: options.action, error });
		const choice = scopeOfChoice(body);
		if ('error' in choice) return again(choice.error);
		const workspaceToken = field(body, 'workspace_token').trim();
		if (!workspaceToken) return again('Enter the workspace’s API token');
		const refused = await options.checkWorkspaceToken(workspaceToken);
		if (refused) return again(refused);
		return finish({ scope: choice.scope, workspaceToken });
	};
}
