import { ApiError } from '../errors';
import { route, type RequestContext, type Route } from '../router';
import { invitationBody, parseWith } from '../schemas';

function listAccounts(ctx: RequestContext) {
	return { chatapp_accounts: ctx.ws.data.accounts.map((a) => ctx.runtime.renderer.account(ctx.ws, a)) };
}

function getWorkspace(ctx: RequestContext) {
	return ctx.runtime.renderer.workspace(ctx.ws);
}

function listTeammates(ctx: RequestContext) {
	return { teammates: ctx.ws.data.teammates.map((t) => ctx.runtime.renderer.teammate(ctx.ws, t)) };
}

/** Invites a person: a teammate record with status `invited` (cannot be made responsible until active). */
function invite(ctx: RequestContext) {
	const body = parseWith(invitationBody, ctx.body);
	const { ws } = ctx;
	const email = body.email.toLowerCase();
	if (ws.data.teammates.some((t) => t.email.toLowerCase() === email)) {
		throw ApiError.field(['email'], 'This email is already a member of the workspace or invited');
	}
	const name = [body.first_name, body.last_name]
		.filter((p) => p && p.trim())
		.join(' ')
		.trim();
	const mate = {
		userId: ws.nextId('user'),
		displayName: name || email,
		email,
		status: 'invited' as const,
		createdAt: Date.now(),
		role: body.role ?? 'teammate',
		teamTitle: body.team_title ?? 'Default team',
		accountIds: [],
	};
	ws.data.teammates.push(mate);
	return ctx.runtime.renderer.teammate(ws, mate);
}

function revoke(ctx: RequestContext) {
	const raw = ctx.params.user_id ?? '';
	const userId = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
	const pick = (w: typeof ctx.ws) => w.data.teammates.find((t) => t.userId === userId);
	const mate = pick(ctx.ws);
	if (!mate) {
		if (ctx.runtime.directory.list().some((w) => pick(w))) throw ApiError.accessDenied();
		throw ApiError.coded('member_not_found', `No invitation with user_id ${raw}`);
	}
	if (mate.status !== 'invited')
		throw ApiError.coded('not_supported', 'Only a pending invitation can be revoked; this user is an active member');
	ctx.ws.data.teammates = ctx.ws.data.teammates.filter((t) => t !== mate);
	return { user_id: mate.userId, revoked: true };
}

export const workspaceRoutes: Route[] = [
	route('GET', '/chatapp_accounts', listAccounts),
	route('GET', '/workspace', getWorkspace),
	route('GET', '/workspace/teammates', listTeammates),
	route('POST', '/workspace/invitations', invite),
	route('DELETE', '/workspace/invitations/:user_id', revoke),
];
