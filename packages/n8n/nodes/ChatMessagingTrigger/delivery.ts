/**
 * A delivery at the trigger's webhook, through the core's way in (admitDelivery: method, secret, size, body) and
 * deliveryStep (the chosen events and redeliveries before the answer; event filters and human takeover after it),
 * then turned into the item that starts the workflow, with the attachments when asked. What stays here is n8n's:
 * the request as n8n hands it over, when and how the answer goes, where the seen events are kept.
 */
import type { IDataObject, INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import {
	admitDelivery,
	agentInputOf,
	deliveryAnswer,
	deliveryStep,
	downloadEventAttachments,
	HumanTakeover,
	isFilterEmpty,
	readEventFilter,
	readInboxOptions,
	SECRET_PARAMETER,
	SeenEvents,
	type ChatEvent,
	type DeliveryAnswer,
	type DeliveryBody,
	type EventFilter,
} from '@chat-messaging/core';
import { attachmentsBinary } from '../shared/files';
import { createExecutor, n8nTiming } from '../shared/transport';
import { chosenEvents, readState, type TriggerState } from './subscriptions';

/** The Options collection read into the shared event filter (version 1's Ignore Group Messages included). */
function eventFilterOf(context: IWebhookFunctions): EventFilter {
	return readEventFilter(context.getNodeParameter('options', {}) as IDataObject);
}

/**
 * Seen event keys per trigger node and webhook, in process memory: it survives between deliveries
 * in every execution mode. The test webhook ("Listen for test event") keeps its own memory, so an
 * event it received is still new to the production webhook. Only production's memory is mirrored
 * into static data for restarts (n8n persists a node's static data only after production executions).
 */
const seenByNode = new Map<string, SeenEvents>();

/**
 * Human takeover per trigger node and its settings, in process memory: its brief per-chat cache lets a
 * customer's burst cost one lookup. A changed setting gets a fresh one.
 */
const takeoverByNode = new Map<string, HumanTakeover>();

function takeoverOf(context: IWebhookFunctions): HumanTakeover {
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const inbox = { ...readInboxOptions(options), burstQuietSeconds: 0 };
	const key = `${context.getWorkflow().id ?? ''}|${context.getNode().id ?? context.getNode().name}|${JSON.stringify(inbox)}`;
	let takeover = takeoverByNode.get(key);
	if (!takeover) {
		if (takeoverByNode.size > 100) takeoverByNode.clear();
		takeover = new HumanTakeover(inbox, n8nTiming.now);
		takeoverByNode.set(key, takeover);
	}
	return takeover;
}

function seenEventsOf(context: IWebhookFunctions, state: TriggerState): { seen: SeenEvents; persisted: boolean } {
	const persisted = context.getMode() !== 'manual';
	const nodeKey = `${context.getWorkflow().id ?? ''}|${context.getNode().id ?? context.getNode().name}|${persisted ? 'production' : 'test'}`;
	let seen = seenByNode.get(nodeKey);
	if (!seen) {
		seen = new SeenEvents({ seed: persisted && Array.isArray(state.seenEvents) ? state.seenEvents : [] });
		seenByNode.set(nodeKey, seen);
	} else if (persisted && Array.isArray(state.seenEvents)) {
		// n8n reads the static data from its database for every production delivery. In queue mode each
		// webhook process keeps its own memory, so the keys another process saved are learnt here: a
		// redelivery arriving at another process than the first delivery is still recognised (on an n8n
		// that saves what webhook() writes; 2.41.1 does not, so there nothing arrives here).
		seen.merge(state.seenEvents);
	}
	return { seen, persisted };
}

/**
 * The event as an item: ChatEvent holds JSON only (raw is the parsed body). With Download Attachments
 * the files of an inbound message come along as binary data; a download that fails does not lose the
 * event: the item says why in `attachment_error`.
 */
async function eventItem(context: IWebhookFunctions, event: ChatEvent, downloads: boolean): Promise<INodeExecutionData> {
	const item: INodeExecutionData = { json: { ...(event as unknown as IDataObject), ...agentInputOf(event) } };
	if (!downloads) return item;
	try {
		const binary = await attachmentsBinary(context.helpers, await downloadEventAttachments(await createExecutor(context), event));
		if (binary) item.binary = binary;
	} catch (error) {
		context.logger.warn(
			`Chat Messaging: could not download the attachments of ${event.message_uid ?? 'an event'}: ${(error as Error).message}`,
		);
		item.json = { ...item.json, attachment_error: (error as Error).message };
	}
	return item;
}

/**
 * The body as n8n's webhook server read it: the raw bytes it keeps (`req.rawBody`), else what its parser made (a
 * workflow of version 1.1 sends n8n no content type it parses: then nothing was read, and n8n's reader is asked).
 */
async function bodyOf(context: IWebhookFunctions): Promise<DeliveryBody> {
	const request = context.getRequestObject() as { rawBody?: unknown; readRawBody?: () => Promise<void> };
	if (!Buffer.isBuffer(request.rawBody) && typeof request.readRawBody === 'function') await request.readRawBody();
	if (Buffer.isBuffer(request.rawBody)) return { raw: request.rawBody };
	const parsed = context.getBodyData() as unknown;
	if (typeof parsed === 'string') return { raw: parsed };
	return { parsed, size: Buffer.byteLength(JSON.stringify(parsed ?? null)) };
}

function answer(context: IWebhookFunctions, sent: DeliveryAnswer): IWebhookResponseData {
	const response = context.getResponseObject();
	for (const [name, value] of Object.entries(sent.headers ?? {})) response.setHeader(name, value);
	response.status(sent.status).json(sent.body);
	return { noWebhookResponse: true };
}

/**
 * The answer to a delivery, and the item it starts the workflow with (none when refused, ignored or narrowed out).
 * n8n answers some requests before webhook() runs: a method other than POST (404, the webhook is registered for
 * POST only), a JSON body it cannot parse (422) and a body past its own limit (N8N_PAYLOAD_SIZE_MAX, 16 MB).
 */
export async function handleDelivery(context: IWebhookFunctions): Promise<IWebhookResponseData> {
	const state = readState(context);
	const request = context.getRequestObject();
	const declared = Number(context.getHeaderData()['content-length']);
	const admission = await admitDelivery(
		{
			method: request.method ?? 'POST',
			secret: String((context.getQueryData() as IDataObject)[SECRET_PARAMETER] ?? ''),
			declaredSize: Number.isFinite(declared) ? declared : undefined,
			readBody: () => bodyOf(context),
		},
		{ secret: typeof state.secret === 'string' ? state.secret : undefined },
	);
	if ('refused' in admission) return answer(context, admission.refused);
	const { event } = admission;
	const persisted = context.getMode() !== 'manual';
	const { seen } = seenEventsOf(context, state);
	const taken = await deliveryAnswer(event, {
		chosen: chosenEvents(context),
		seen: {
			remember(key) {
				const first = seen.remember(key);
				if (first && persisted) state.seenEvents = seen.snapshot();
				return first;
			},
		},
	});
	if (!taken.taken) return { webhookResponse: taken.answer.body };

	let filter: EventFilter = {};
	let filterError: string | undefined;
	try {
		filter = eventFilterOf(context);
	} catch (error) {
		filterError = (error as Error).message;
	}
	const takeover = takeoverOf(context);
	const downloads = event.event_type.startsWith('message:') && context.getNodeParameter('downloadAttachments', false) === true;
	if (isFilterEmpty(filter) && filterError === undefined && takeover.off && !downloads) {
		return {
			webhookResponse: taken.answer.body,
			workflowData: [[{ json: { ...(event as unknown as IDataObject), ...agentInputOf(event) } }]],
		};
	}

	// Answered before the options' work: the service wants a 2xx within 5 seconds, and reading the chat
	// or downloading a 20 MB file can take longer. n8n sends nothing more for this call (noWebhookResponse)
	// and starts the workflow with what webhook() returns once it returns.
	answer(context, taken.answer);
	let problem: string | undefined;
	try {
		const step = await deliveryStep(await createExecutor(context), event, { filter, takeover });
		if (!step.passed) return { noWebhookResponse: true };
		problem = step.problems.filter ?? step.problems.takeover;
	} catch (error) {
		problem = (error as Error).message;
	}
	if (problem !== undefined) {
		// The delivery is answered, so the service will not send it again: the event goes on, saying why
		// the options could not be checked, rather than being lost.
		context.logger.warn(`Chat Messaging: could not check the trigger options for an event: ${problem}`);
		filterError ??= problem;
	}
	const item = await eventItem(context, event, downloads);
	if (filterError !== undefined) item.json = { ...item.json, filter_error: filterError };
	return { noWebhookResponse: true, workflowData: [[item]] };
}
