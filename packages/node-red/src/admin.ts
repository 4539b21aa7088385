/**
 * Admin endpoints the editor calls (under Node-RED's httpAdminRoot, behind its authentication):
 *   GET  chat-messaging/lookup/<list>?config=<id>&search=<text>&page=<token>  one page of a pick list
 *        (chat, teammate, account, webhook, file, invitation, label: packages/core/src/runtime/lookups.ts, as n8n's lists)
 *   POST chat-messaging/test-connection {config, baseUrl?, token?}  the config dialog's Test connection
 *
 * Guarded by what they do: reading a list needs `chat-messaging-config.read`; Test connection makes the server call
 * a URL the caller chooses, with a token the caller chooses, so it needs `chat-messaging-config.write` (a read-only
 * editor user could otherwise make the server call internal addresses and read the answer back).
 *
 * They run server-side with the config node's STORED token: the token never travels to the browser.
 * A config node that is not deployed yet has no stored token; the chat list then answers "deploy
 * first", and Test connection accepts the URL and token typed in the dialog (sent once, over the
 * editor's own connection) and answers without echoing them. Every answer goes through redaction.
 */
import {
	ChatMessagingError,
	Executor,
	findOperation,
	LOOKUPS,
	lookup,
	normalizeBaseUrl,
	redactError,
	type LookupKey,
} from '@chat-messaging/core';
import { CONFIG_TYPE, type ConfigNode } from './nodes/config';
import { asChatMessagingError } from './shared/errors';
import { createHttpClient, realTiming } from './shared/transport';
import type { Request as HttpRequest, RequestHandler as HttpMiddleware, Response as HttpResponse } from 'express';
import type { NodeAPI } from 'node-red';

export const ADMIN_PREFIX = '/chat-messaging';
/** Node-RED's permission scheme: `<type>.read` / `<type>.write`; the admin "read" role has `*.read`. */
export const READ_PERMISSION = `${CONFIG_TYPE}.read`;
/** For a route that makes the server call out: what a user who may change the configuration has. */
export const WRITE_PERMISSION = `${CONFIG_TYPE}.write`;
/** Node-RED's password inputs show this placeholder for a stored credential left unchanged. */
const UNCHANGED_PASSWORD = '__PWRD__';

function reply(res: HttpResponse, status: number, body: unknown): void {
	res.status(status).json(body);
}

/** A failure as the editor shows it: message and code, with any secret it might carry removed. */
function failure(error: unknown, secrets: string[]): { message: string; code?: string; field?: string } {
	const problem = asChatMessagingError(redactError(error, secrets));
	return { message: problem.message, code: problem.errorCode ?? problem.kind, field: problem.field };
}

const deployedConfig = (RED: NodeAPI, id: unknown): ConfigNode | undefined => {
	const node = typeof id === 'string' && id ? (RED.nodes.getNode(id) as ConfigNode | null) : null;
	return node && node.type === CONFIG_TYPE && typeof node.getExecutor === 'function' ? node : undefined;
};

export function registerAdminRoutes(RED: NodeAPI): void {
	const admin = RED.httpAdmin;
	if (!admin) return; // the node test helper may run without an admin app
	const open: HttpMiddleware = (_req, _res, next) => next();
	const canRead: HttpMiddleware = RED.auth?.needsPermission(READ_PERMISSION) ?? open;
	const canWrite: HttpMiddleware = RED.auth?.needsPermission(WRITE_PERMISSION) ?? open;
	const getWorkspace = findOperation('workspace:get');

	admin.get(`${ADMIN_PREFIX}/lookup/:list`, canRead, (req: HttpRequest, res: HttpResponse) => {
		const query = (req.query ?? {}) as Record<string, unknown>;
		const list = String(req.params.list ?? '');
		if (!Object.prototype.hasOwnProperty.call(LOOKUPS, list))
			return reply(res, 404, { message: `Unknown list "${list}"`, code: 'unknown_list' });
		const config = deployedConfig(RED, query.config);
		if (!config) {
			return reply(res, 409, {
				message: 'Deploy the Chat Messaging configuration node first: the list is read with its stored token',
				code: 'not_deployed',
			});
		}
		const pageToken = typeof query.page === 'string' && query.page ? query.page : undefined;
		let secrets: string[] = [];
		Promise.resolve()
			.then(() => {
				secrets = [String(config.credentials?.token ?? '')].filter(Boolean);
				return lookup(config.getExecutor(), list as LookupKey, String(query.search ?? ''), pageToken);
			})
			.then((page) => reply(res, 200, page))
			.catch((error: unknown) => reply(res, 502, failure(error, secrets)));
	});

	admin.post(`${ADMIN_PREFIX}/test-connection`, canWrite, (req: HttpRequest, res: HttpResponse) => {
		const body = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
		const config = deployedConfig(RED, body.config);
		const typedToken = typeof body.token === 'string' && body.token !== UNCHANGED_PASSWORD ? body.token.trim() : '';
		const token = typedToken || String(config?.credentials?.token ?? '');
		const typedUrl = typeof body.baseUrl === 'string' ? body.baseUrl.trim() : '';
		const baseUrlText = typedUrl || config?.baseUrl || '';
		const secrets = [token].filter(Boolean);
		let destroy = () => {};
		Promise.resolve()
			.then(() => {
				if (!baseUrlText) throw new ChatMessagingError('baseUrl: enter the Service URL', { kind: 'input', field: 'baseUrl' });
				// The stored token only ever goes to the URL it was stored with: testing another URL needs the token typed again.
				if (config && !typedToken && typedUrl && normalizeBaseUrl(typedUrl) !== normalizeBaseUrl(config.baseUrl)) {
					throw new ChatMessagingError(
						'token: enter the API token again to test a changed Service URL (the stored one stays with its URL)',
						{
							kind: 'input',
							field: 'token',
						},
					);
				}
				if (!token) {
					throw new ChatMessagingError(config ? 'token: the deployed configuration holds no API token' : 'token: enter the API token', {
						kind: 'input',
						field: 'token',
					});
				}
				// The deployed node's own executor when nothing was changed; otherwise a short-lived one.
				if (config && !typedToken && (!typedUrl || typedUrl === config.baseUrl)) return config.getExecutor();
				const client = createHttpClient();
				destroy = () => client.destroy();
				return new Executor({ baseUrl: normalizeBaseUrl(baseUrlText), token, transport: client.transport, timing: realTiming });
			})
			.then((executor) => executor.run(getWorkspace, {}))
			.then((workspace) => {
				const info = (workspace && typeof workspace === 'object' ? workspace : {}) as Record<string, unknown>;
				const name = info.display_name ?? info.workspace_id;
				reply(res, 200, { ok: true, message: `Connected${name === undefined ? '' : ` to workspace "${String(name)}"`}` });
			})
			.catch((error: unknown) => reply(res, 200, { ok: false, ...failure(error, secrets) }))
			.finally(() => destroy());
	});
}
