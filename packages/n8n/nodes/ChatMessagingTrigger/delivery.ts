/**
 * A delivery at the trigger's webhook: checked against the secret, parsed by the core, recognised when
 * delivered again, narrowed by the Options (event filters, human takeover), then turned into the item
 * that starts the workflow, with the attachments when asked.
 */
import { timingSafeEqual } from 'crypto';
import type { IBinaryKeyData, IDataObject, INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import {
	agentInputOf,
	downloadEventAttachments,
	eventKey,
	eventPassesFilter,
	HumanTakeover,
	isFilterEmpty,
	parseDelivery,
	readEventFilter,
	readInboxOptions,
	SeenEvents,
	type ChatEvent,
	type EventFilter,
} from '@chat-messaging/core';
import { createExecutor, n8nTiming } from '../shared/transport';
import { chosenEvents, readState, SECRET_PARAMETER, type TriggerState } from './subscriptions';

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
		const files = await downloadEventAttachments(await createExecutor(context), event);
		if (!files.length) return item;
		const binary: IBinaryKeyData = {};
		for (const [index, file] of files.entries()) {
			const bytes = Buffer.from(file.data.buffer, file.data.byteOffset, file.data.byteLength);
			binary[`attachment_${index}`] = await context.helpers.prepareBinaryData(bytes, file.filename, file.mimeType);
		}
		item.binary = binary;
	} catch (error) {
		context.logger.warn(
			`Chat Messaging: could not download the attachments of ${event.message_uid ?? 'an event'}: ${(error as Error).message}`,
		);
		item.json = { ...item.json, attachment_error: (error as Error).message };
	}
	return item;
}

function sameSecret(given: unknown, expected: string): boolean {
	if (typeof given !== 'string') return false;
	const a = Buffer.from(given);
	const b = Buffer.from(expected);
	return a.length === b.length && timingSafeEqual(a, b);
}

/** The answer to a delivery, and the item it starts the workflow with (none when ignored or narrowed out). */
export async function handleDelivery(context: IWebhookFunctions): Promise<IWebhookResponseData> {
	const response = context.getResponseObject();
	const state = readState(context);
	const query = context.getQueryData() as IDataObject;
	if (typeof state.secret !== 'string' || !sameSecret(query[SECRET_PARAMETER], state.secret)) {
		response.status(401).json({ status: 'error', message: 'Unauthorized: missing or wrong secret' });
		return { noWebhookResponse: true };
	}

	const delivery = parseDelivery(context.getBodyData());
	if ('malformed' in delivery) {
		response.status(400).json({ status: 'error', message: `Malformed delivery: ${delivery.malformed}` });
		return { noWebhookResponse: true };
	}

	const { event } = delivery;
	if (!chosenEvents(context).includes(event.event_type)) {
		return { webhookResponse: { status: 'ok', ignored: `event ${event.event_type} is not chosen in this trigger` } };
	}

	const key = eventKey(event);
	if (key) {
		const { seen, persisted } = seenEventsOf(context, state);
		if (!seen.remember(key)) return { webhookResponse: { status: 'ok', duplicate: true } };
		if (persisted) state.seenEvents = seen.snapshot();
	}

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
		return { workflowData: [[{ json: { ...(event as unknown as IDataObject), ...agentInputOf(event) } }]] };
	}

	// Answered before the options' work: the service wants a 2xx within 5 seconds, and reading the chat
	// or downloading a 20 MB file can take longer. n8n sends nothing more for this call (noWebhookResponse)
	// and starts the workflow with what webhook() returns once it returns.
	response.status(200).json({ status: 'ok' });
	try {
		if (!isFilterEmpty(filter) && !(await eventPassesFilter(await createExecutor(context), event, filter))) {
			return { noWebhookResponse: true };
		}
		if (!takeover.off && (await takeover.skipReason(await createExecutor(context), event))) return { noWebhookResponse: true };
	} catch (error) {
		// The delivery is answered, so the service will not send it again: the event goes on, saying why
		// the options could not be checked, rather than being lost.
		filterError = (error as Error).message;
		context.logger.warn(`Chat Messaging: could not check the trigger options for an event: ${filterError}`);
	}
	const item = await eventItem(context, event, downloads);
	if (filterError !== undefined) item.json = { ...item.json, filter_error: filterError };
	return { noWebhookResponse: true, workflowData: [[item]] };
}
