import type { DeliveryAttempt, EventType, WebhookRecord } from './model';
import type { WebhookPayload } from './options';
import type { PayloadBuilder, WebhookEvent } from './payloads';
import type { SandboxServices } from './services';
import type { Workspace } from './workspace';

/** Keeps the delivery log bounded; the newest attempts are the interesting ones. */
const MAX_LOGGED_ATTEMPTS = 2000;
const ATTEMPTS = 3;

export interface EmitOptions {
	/** Deliveries of the same body per subscription (2 = a redelivery). */
	copies?: number;
	/** Body shape for this event; default the `webhookPayload` option. */
	payload?: WebhookPayload;
}

/**
 * Webhook deliveries as the spec describes them: POST `{event_type, data}` (or the live shape) as JSON, 2xx within the time-out
 * counts as success, 3 attempts in total, `errors_counter` += 1 when all fail, never disabled automatically.
 */
export class WebhookDispatcher {
	constructor(
		private readonly services: SandboxServices,
		private readonly payloads: PayloadBuilder,
	) {}

	/**
	 * Sends an event to every enabled subscription of its type. The body is built now (a snapshot), in the shape
	 * `payload` names (default: the `webhookPayload` option). `copies` > 1 models a redelivery of the same event.
	 */
	emit(ws: Workspace, eventType: EventType, event: WebhookEvent, { copies = 1, payload }: EmitOptions = {}): void {
		const eventId = ws.nextUid('event');
		const shape = payload ?? this.services.options.webhookPayload;
		const body = this.payloads.body(ws, eventType, event, shape, eventId, this.services.linkBase());
		for (const hook of ws.data.webhooks) {
			if (!hook.enabled || hook.eventType !== eventType) continue;
			let times = copies;
			if (times === 1 && this.services.options.duplicateRate > 0 && this.services.rng.chance(this.services.options.duplicateRate)) {
				times = 2;
			}
			void this.deliverTimes(ws, hook, body, times);
		}
	}

	private async deliverTimes(ws: Workspace, hook: WebhookRecord, body: unknown, times: number): Promise<void> {
		for (let copy = 0; copy < times; copy += 1) {
			await this.deliver(ws, hook, body, copy > 0);
			if (this.services.scheduler.isStopped) return;
		}
	}

	private async deliver(ws: Workspace, hook: WebhookRecord, body: unknown, duplicate: boolean): Promise<void> {
		const { scheduler, options } = this.services;
		const deliveryId = ws.nextUid('event').replace('evt_', 'dlv_');
		const payload = JSON.stringify(body);
		for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
			if (scheduler.isStopped || !this.services.isCurrent(ws)) return;
			const { signal, done } = scheduler.controller(options.webhookTimeoutMs);
			const record = {
				delivery_id: deliveryId,
				webhook_id: hook.id,
				event_type: hook.eventType,
				url: hook.url,
				attempt,
				ok: false,
				duplicate,
				at: new Date().toISOString(),
				body,
			} as DeliveryAttempt;
			try {
				const response = await fetch(hook.url, {
					method: 'POST',
					headers: { 'content-type': 'application/json', 'user-agent': 'chat-messaging-sandbox' },
					body: payload,
					signal,
					redirect: 'manual',
				});
				// Drain the body so the connection is released.
				await response.arrayBuffer().catch(() => undefined);
				record.status_code = response.status;
				record.ok = response.status >= 200 && response.status < 300;
				if (!record.ok) record.error = `HTTP ${response.status}`;
			} catch (error) {
				const reason = signal.aborted ? signal.reason : error;
				record.error = reason instanceof Error ? reason.message : String(reason);
			} finally {
				done();
			}
			if (scheduler.isStopped) return;
			this.log(ws, record);
			if (record.ok) return;
			if (attempt < ATTEMPTS && !(await scheduler.sleep(options.webhookRetryMs))) return;
		}
		// All attempts failed: count it on the subscription (if it still exists) and keep it enabled.
		if (this.services.isCurrent(ws)) {
			const current = ws.data.webhooks.find((h) => h.id === hook.id);
			if (current) current.errorsCounter += 1;
			this.services.changed();
		}
	}

	private log(ws: Workspace, record: DeliveryAttempt): void {
		if (!this.services.isCurrent(ws)) return;
		ws.data.deliveries.push(record);
		if (ws.data.deliveries.length > MAX_LOGGED_ATTEMPTS) ws.data.deliveries.splice(0, ws.data.deliveries.length - MAX_LOGGED_ATTEMPTS);
	}
}
