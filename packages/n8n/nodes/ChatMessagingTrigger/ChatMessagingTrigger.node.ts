/**
 * The Chat Messaging Trigger: an n8n adapter over packages/core/src/runtime/events.ts. What stays here is n8n's: the webhook
 * URL n8n gives the node, the secret query parameter on it (the service signs nothing, so the secret
 * is what tells real deliveries from forged ones), and the node's static data.
 */
import { randomBytes, timingSafeEqual } from 'crypto';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import type {
	IBinaryKeyData,
	IDataObject,
	IHookFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import {
	ACCOUNTS_FILTER,
	API_SENT_FILTER,
	BURST_WEBHOOK_NOTE,
	CHAT_TYPE_FILTER,
	checkReceiverUrl,
	deleteSubscriptions,
	downloadEventAttachments,
	EVENT_TYPES,
	eventKey,
	eventPassesFilter,
	HumanTakeover,
	IGNORE_GROUPS_FILTER,
	isFilterEmpty,
	isNotFound,
	LABELS_FILTER,
	parseDelivery,
	readEventFilter,
	readInboxOptions,
	SeenEvents,
	SKIP_ASSIGNED_OPTION,
	syncSubscriptions,
	TEAMMATE_QUIET_OPTION,
	type ChatEvent,
	type EventFilter,
	type SeenEntry,
} from '@chat-messaging/core';
import { toNodeError } from '../shared/errors';
import { eventFilterProperty } from '../shared/eventFilterOptions';
import { inboxOptionProperty } from '../shared/inboxOptions';
import { CREDENTIAL_TYPE, createExecutor, n8nTiming } from '../shared/transport';

/** What the trigger keeps in the node's static data. */
interface TriggerState extends IDataObject {
	subscriptionIds?: number[];
	secret?: string;
	events?: string[];
	/**
	 * SeenEvents' snapshot (`[key, seenAt]`; bare keys from older versions), so a restart, or another webhook
	 * process, still recognises redeliveries — where n8n saves it: 2.41.1 does not save static data written
	 * in webhook() (docs/queue-mode.md).
	 */
	seenEvents?: Array<SeenEntry | string>;
}

const SECRET_PARAMETER = 'secret';

/** The chosen events by their names, for the subtitle: each wire value replaced by its name. */
const friendlyEventsExpression = EVENT_TYPES.reduce(
	(expression, event) => `${expression}.replace(${JSON.stringify(event.value)}, ${JSON.stringify(event.name)})`,
	'$parameter["events"].join(", ")',
);

/** Shown at the top of the panel: what the service needs to reach this trigger, and what to do locally. */
const PUBLIC_URL_NOTICE =
	"The service delivers events only to a <b>public HTTPS</b> address: this workflow's Production URL (n8n's WEBHOOK_URL) must be reachable from the internet. " +
	"Running n8n on your own machine? Expose it through a tunnel (for example cloudflared or ngrok) and set WEBHOOK_URL to the tunnel's address, " +
	'or use the <b>Chat Messaging Poll Trigger</b>, which needs no public URL and no webhook subscription (the workspace allows 10).';

/** The Options collection read into the shared event filter (version 1's Ignore Group Messages included). */
function eventFilterOf(context: IWebhookFunctions): EventFilter {
	return readEventFilter(context.getNodeParameter('options', {}) as IDataObject);
}

/** The version that offers the catalogue's Chat Type in place of version 1's Ignore Group Messages. */
const CHAT_TYPE_VERSION = 1.1;

/**
 * The Options collection of a version: the event filters (core catalogue), then the inbox options. Version 1
 * keeps Ignore Group Messages, which workflows saved with it hold; later versions offer Chat Type.
 */
function optionsCollection(version: 'first' | 'chatType'): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: { show: { '@version': version === 'first' ? [1] : [{ _cnd: { gte: CHAT_TYPE_VERSION } }] } },
		description: `Narrow the events that start the workflow. An option that needs the chat or the message is checked after the delivery is answered (one request); if that read fails, the event still starts the workflow, with the reason in filter_error. ${BURST_WEBHOOK_NOTE.replace(/\.$/, '')}.`,
		options: [
			...(version === 'chatType' ? [eventFilterProperty(CHAT_TYPE_FILTER)] : []),
			eventFilterProperty(ACCOUNTS_FILTER),
			...(version === 'first' ? [eventFilterProperty(IGNORE_GROUPS_FILTER)] : []),
			eventFilterProperty(API_SENT_FILTER),
			eventFilterProperty(LABELS_FILTER),
			inboxOptionProperty(TEAMMATE_QUIET_OPTION),
			inboxOptionProperty(SKIP_ASSIGNED_OPTION),
		],
	};
}

const PUBLIC_URL_HELP =
	"Set n8n's public webhook URL (the WEBHOOK_URL environment variable) to an https address the internet reaches, for example " +
	'through a tunnel such as cloudflared or ngrok; to try the trigger locally, point the credentials at the sandbox instead';

function urlWithSecret(webhookUrl: string, secret: string): string {
	return `${webhookUrl}${webhookUrl.includes('?') ? '&' : '?'}${SECRET_PARAMETER}=${encodeURIComponent(secret)}`;
}

/** The subscription URL without its secret, to recognise this node's subscriptions. */
function urlWithoutSecret(url: string): string {
	const [base, query = ''] = url.split('?', 2);
	const kept = query.split('&').filter((pair) => pair && !pair.startsWith(`${SECRET_PARAMETER}=`));
	return kept.length ? `${base}?${kept.join('&')}` : base;
}

const ownedBy = (webhookUrl: string) => (url: string) => urlWithoutSecret(url) === webhookUrl;

function readState(context: IHookFunctions | IWebhookFunctions): TriggerState {
	return context.getWorkflowStaticData('node') as TriggerState;
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
	const item: INodeExecutionData = { json: event as unknown as IDataObject };
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

function chosenEvents(context: IHookFunctions | IWebhookFunctions): string[] {
	const events = context.getNodeParameter('events', []) as string[];
	return Array.isArray(events) ? events.map(String) : [];
}

function sameSecret(given: unknown, expected: string): boolean {
	if (typeof given !== 'string') return false;
	const a = Buffer.from(given);
	const b = Buffer.from(expected);
	return a.length === b.length && timingSafeEqual(a, b);
}

export class ChatMessagingTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Chat Messaging Trigger',
		name: 'chatMessagingTrigger',
		icon: { light: 'file:chat-messaging.svg', dark: 'file:chat-messaging.dark.svg' },
		group: ['trigger'],
		version: [1, CHAT_TYPE_VERSION],
		defaultVersion: CHAT_TYPE_VERSION,
		// Event names as the Events list shows them ("Message Received"), not the wire values.
		subtitle: `={{${friendlyEventsExpression}}}`,
		description: 'Starts the workflow when the Chat Messaging Service reports a message or a new chat',
		defaults: {
			name: 'Chat Messaging Trigger',
		},
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: CREDENTIAL_TYPE,
				required: true,
			},
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				path: 'chat-messaging',
			},
		],
		properties: [
			{
				displayName: PUBLIC_URL_NOTICE,
				name: 'publicUrlNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				required: true,
				options: EVENT_TYPES.map((event) => ({ name: event.name, value: event.value, description: event.description })),
				default: ['message:received:new'],
				description: 'The events that start the workflow; one webhook subscription is registered per event',
			},
			{
				displayName: 'Download Attachments',
				name: 'downloadAttachments',
				type: 'boolean',
				default: false,
				description:
					"Whether to download the files attached to messages into the item's binary data (attachment_0, attachment_1, …): their links expire after about 15 minutes. When the delivery does not list them, the message is read first (one request). The delivery is answered before the download, so a large file never makes the service retry; a download that fails is named in the item's attachment_error.",
			},
			optionsCollection('first'),
			optionsCollection('chatType'),
		],
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const state = readState(this);
				const webhookUrl = this.getNodeWebhookUrl('default');
				const events = chosenEvents(this);
				if (!webhookUrl || !state.secret || !state.subscriptionIds?.length) return false;
				if ([...(state.events ?? [])].sort().join() !== [...events].sort().join()) return false;
				const expectedUrl = urlWithSecret(webhookUrl, state.secret);
				const executor = await createExecutor(this);
				for (const id of state.subscriptionIds) {
					try {
						const subscription = (await executor.run('webhook:get', { id })) as IDataObject;
						if (subscription.url !== expectedUrl || subscription.enabled === false) return false;
					} catch (error) {
						if (isNotFound(error)) {
							this.logger.debug(`Chat Messaging webhook subscription ${id} no longer exists; it will be registered again`);
							return false;
						}
						throw toNodeError(this.getNode(), error);
					}
				}
				return true;
			},

			async create(this: IHookFunctions): Promise<boolean> {
				const webhookUrl = this.getNodeWebhookUrl('default');
				if (!webhookUrl) throw new NodeOperationError(this.getNode(), 'n8n did not provide a webhook URL for this trigger');
				const events = chosenEvents(this);
				if (!events.length) throw new NodeOperationError(this.getNode(), 'events: choose at least one event');
				const state = readState(this);
				const secret = state.secret ?? randomBytes(24).toString('hex');
				try {
					const executor = await createExecutor(this);
					checkReceiverUrl(executor.baseUrl, webhookUrl, PUBLIC_URL_HELP);
					const target = { ownsUrl: ownedBy(webhookUrl), url: urlWithSecret(webhookUrl, secret), events };
					state.subscriptionIds = await syncSubscriptions(executor, target);
				} catch (error) {
					throw toNodeError(this.getNode(), error);
				}
				state.secret = secret;
				state.events = events;
				return true;
			},

			async delete(this: IHookFunctions): Promise<boolean> {
				const state = readState(this);
				const webhookUrl = this.getNodeWebhookUrl('default');
				try {
					const executor = await createExecutor(this);
					// Subscriptions whose ids were lost (static data not saved) are found by their URL.
					await deleteSubscriptions(executor, state.subscriptionIds ?? [], webhookUrl ? ownedBy(webhookUrl) : undefined);
				} catch (error) {
					this.logger.warn(`Could not delete the Chat Messaging webhook subscriptions: ${(error as Error).message}`);
					return false;
				}
				delete state.subscriptionIds;
				delete state.events;
				// The secret stays: the service retries deliveries that failed while the workflow was inactive, and a
				// reactivation subscribes with the same secret, so those retries still get in.
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const response = this.getResponseObject();
		const state = readState(this);
		const query = this.getQueryData() as IDataObject;
		if (typeof state.secret !== 'string' || !sameSecret(query[SECRET_PARAMETER], state.secret)) {
			response.status(401).json({ status: 'error', message: 'Unauthorized: missing or wrong secret' });
			return { noWebhookResponse: true };
		}

		const delivery = parseDelivery(this.getBodyData());
		if ('malformed' in delivery) {
			response.status(400).json({ status: 'error', message: `Malformed delivery: ${delivery.malformed}` });
			return { noWebhookResponse: true };
		}

		const { event } = delivery;
		if (!chosenEvents(this).includes(event.event_type)) {
			return { webhookResponse: { status: 'ok', ignored: `event ${event.event_type} is not chosen in this trigger` } };
		}

		const key = eventKey(event);
		if (key) {
			const { seen, persisted } = seenEventsOf(this, state);
			if (!seen.remember(key)) return { webhookResponse: { status: 'ok', duplicate: true } };
			if (persisted) state.seenEvents = seen.snapshot();
		}

		let filter: EventFilter = {};
		let filterError: string | undefined;
		try {
			filter = eventFilterOf(this);
		} catch (error) {
			filterError = (error as Error).message;
		}
		const takeover = takeoverOf(this);
		const downloads = event.event_type.startsWith('message:') && this.getNodeParameter('downloadAttachments', false) === true;
		if (isFilterEmpty(filter) && filterError === undefined && takeover.off && !downloads) {
			return { workflowData: [[{ json: event as unknown as IDataObject }]] };
		}

		// Answered before the options' work: the service wants a 2xx within 5 seconds, and reading the chat
		// or downloading a 20 MB file can take longer. n8n sends nothing more for this call (noWebhookResponse)
		// and starts the workflow with what webhook() returns once it returns.
		response.status(200).json({ status: 'ok' });
		try {
			if (!isFilterEmpty(filter) && !(await eventPassesFilter(await createExecutor(this), event, filter))) {
				return { noWebhookResponse: true };
			}
			if (!takeover.off && (await takeover.skipReason(await createExecutor(this), event))) return { noWebhookResponse: true };
		} catch (error) {
			// The delivery is answered, so the service will not send it again: the event goes on, saying why
			// the options could not be checked, rather than being lost.
			filterError = (error as Error).message;
			this.logger.warn(`Chat Messaging: could not check the trigger options for an event: ${filterError}`);
		}
		const item = await eventItem(this, event, downloads);
		if (filterError !== undefined) item.json = { ...item.json, filter_error: filterError };
		return { noWebhookResponse: true, workflowData: [[item]] };
	}
}
