import { ApiError } from '../errors';
import type { WebhookRecord } from '../model';
import { idParam, route, type RequestContext, type Route } from '../router';
import { parseWith, webhookCreateBody, webhookUpdateBody } from '../schemas';

export const MAX_WEBHOOKS = 10;

function hookOf(ctx: RequestContext): WebhookRecord {
	const id = idParam(ctx, 'id');
	return ctx.runtime.directory.owned(ctx.ws, (w) => w.data.webhooks.find((h) => h.id === id), 'Webhook');
}

/** Creating a subscription emits nothing. */
function create(ctx: RequestContext) {
	const body = parseWith(webhookCreateBody, ctx.body);
	if (ctx.ws.data.webhooks.length >= MAX_WEBHOOKS) {
		throw ApiError.coded('plan_feature_unavailable', `At most ${MAX_WEBHOOKS} webhook subscriptions per workspace`);
	}
	const hook: WebhookRecord = {
		id: ctx.ws.nextId('webhook'),
		eventType: body.event_type,
		url: body.url,
		enabled: body.enabled ?? true,
		errorsCounter: 0,
		createdAt: Date.now(),
	};
	ctx.ws.data.webhooks.push(hook);
	return ctx.runtime.renderer.webhook(hook);
}

function list(ctx: RequestContext) {
	return { webhooks: ctx.ws.data.webhooks.map((h) => ctx.runtime.renderer.webhook(h)) };
}

function get(ctx: RequestContext) {
	return ctx.runtime.renderer.webhook(hookOf(ctx));
}

function update(ctx: RequestContext) {
	const hook = hookOf(ctx);
	const body = parseWith(webhookUpdateBody, ctx.body);
	if (body.url !== undefined) hook.url = body.url;
	if (body.enabled !== undefined) hook.enabled = body.enabled;
	return ctx.runtime.renderer.webhook(hook);
}

function remove(ctx: RequestContext) {
	const hook = hookOf(ctx);
	ctx.ws.data.webhooks = ctx.ws.data.webhooks.filter((h) => h !== hook);
	return { id: hook.id, deleted: true };
}

export const webhookRoutes: Route[] = [
	route('POST', '/webhooks', create),
	route('GET', '/webhooks', list),
	route('GET', '/webhooks/:id', get),
	route('PUT', '/webhooks/:id', update),
	route('DELETE', '/webhooks/:id', remove),
];
