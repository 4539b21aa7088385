/**
 * The Chat Messaging Poll Trigger: an n8n polling adapter over packages/core/src/runtime/events/ (polling, pollStep), for users without a
 * public HTTPS URL or at the workspace's limit of 10 webhook subscriptions. It holds no subscription:
 * on n8n's schedule it reads what is new since the cursor kept in the node's static data, so each
 * event starts the workflow once, across polls and restarts. "Fetch Test Event" returns a real
 * recent item and leaves the cursor alone.
 */
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import type { IDataObject, INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';

import {
	agentInputOf,
	ACCOUNTS_FILTER,
	API_SENT_FILTER,
	BURST_QUIET_OPTION,
	CHAT_TYPE_FILTER,
	EVENT_TYPES,
	eventPassesFilter,
	HumanTakeover,
	isFilterEmpty,
	LABELS_FILTER,
	POLL_EVENT_TYPES,
	POLL_SOURCES,
	pollEvents,
	pollSample,
	pollStep,
	readEventFilter,
	readInboxOptions,
	SKIP_ASSIGNED_OPTION,
	TEAMMATE_QUIET_OPTION,
	type ChatEvent,
	type EventFilter,
	type InboxOptions,
	type PollFilter,
	type PollSource,
} from '@chat-messaging/core';
import { toNodeError } from '../shared/errors';
import { eventFilterProperty } from '../shared/eventFilterOptions';
import { inboxOptionProperty } from '../shared/inboxOptions';
import { CREDENTIAL_TYPE, createExecutor, n8nTiming } from '../shared/transport';

/** What the poll trigger keeps in the node's static data. */
interface PollState extends IDataObject {
	cursor?: IDataObject;
	/** Received messages held for burst batching (BurstState), saved with the cursor so a restart loses none. */
	burst?: IDataObject;
}

/** Each poll source as the event type it stands for (the catalogue's EVENT_TYPES: names and descriptions). */
const eventTypeOf = (source: PollSource): { name: string; description?: string } =>
	EVENT_TYPES.find((candidate) => candidate.value === POLL_EVENT_TYPES[source]) ?? { name: source };

const EVENT_NAMES = Object.fromEntries(POLL_SOURCES.map((source) => [source, eventTypeOf(source).name])) as Record<PollSource, string>;

interface PollSettings {
	source: PollSource;
	lookbackMs: number;
	filter: PollFilter;
	/** Narrowing the service cannot do in the list request (API-sent messages). */
	afterFilter: EventFilter;
	inbox: InboxOptions;
}

function readSettings(context: IPollFunctions): PollSettings {
	const source = String(context.getNodeParameter('event', 'messageReceived')) as PollSource;
	if (!POLL_SOURCES.includes(source)) {
		throw new NodeOperationError(context.getNode(), `Event must be one of ${POLL_SOURCES.join(', ')}, got "${source}"`);
	}
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const lookbackMinutes = Number(options.lookbackMinutes ?? 0);
	if (!Number.isFinite(lookbackMinutes) || lookbackMinutes < 0) {
		throw new NodeOperationError(
			context.getNode(),
			`Include Items From the Last (Minutes) must be 0 or more, got ${String(options.lookbackMinutes)}`,
		);
	}
	let inbox: InboxOptions;
	let filter: EventFilter;
	try {
		inbox = readInboxOptions(options);
		filter = readEventFilter(options);
	} catch (error) {
		throw new NodeOperationError(context.getNode(), (error as Error).message);
	}
	// Only received messages are batched: the option is not shown for other events, and is ignored if saved.
	if (source !== 'messageReceived') inbox = { ...inbox, burstQuietSeconds: 0 };
	return {
		source,
		lookbackMs: Math.round(lookbackMinutes * 60_000),
		// Labels, accounts and chat type travel in the list request; the service cannot tell API-sent messages apart.
		filter: { labels: filter.labels, accountIds: filter.accountIds, group: filter.group },
		afterFilter: { ignoreApiSent: source === 'messageSent' && filter.ignoreApiSent === true },
		inbox,
	};
}

export class ChatMessagingPollTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Chat Messaging Poll Trigger',
		name: 'chatMessagingPollTrigger',
		icon: { light: 'file:../../icons/chat-messaging.svg', dark: 'file:../../icons/chat-messaging.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: `={{${JSON.stringify(EVENT_NAMES)}[$parameter["event"]] ?? $parameter["event"]}}`,
		description: 'Starts the workflow on new messages or chats found by polling: no public URL or webhook subscription needed',
		defaults: {
			name: 'Chat Messaging Poll Trigger',
		},
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: CREDENTIAL_TYPE,
				required: true,
			},
		],
		properties: [
			{
				displayName:
					'Checks for new events on the Poll Times schedule, with no webhook subscription and no public URL. The first activation starts from now (see Options to include recent items). A quiet workspace costs one request per poll, plus one per chat with new messages.',
				name: 'pollNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Event',
				name: 'event',
				type: 'options',
				options: POLL_SOURCES.map((source) => ({
					name: EVENT_NAMES[source],
					value: source,
					description: eventTypeOf(source).description,
				})).sort((a, b) => a.name.localeCompare(b.name)),
				default: 'messageReceived',
				description: 'What starts the workflow; each new one starts it once',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					inboxOptionProperty(BURST_QUIET_OPTION, { show: { '/event': ['messageReceived'] } }),
					eventFilterProperty(CHAT_TYPE_FILTER),
					eventFilterProperty(ACCOUNTS_FILTER),
					eventFilterProperty(API_SENT_FILTER, { show: { '/event': ['messageSent'] } }),
					{
						displayName: 'Include Items From the Last (Minutes)',
						name: 'lookbackMinutes',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 0,
						description:
							'On the first activation only: also start the workflow for items from this many minutes back. 0 starts with what arrives after activation.',
					},
					eventFilterProperty(LABELS_FILTER),
					inboxOptionProperty(TEAMMATE_QUIET_OPTION, { show: { '/event': ['messageReceived', 'messageSent'] } }),
					inboxOptionProperty(SKIP_ASSIGNED_OPTION, { show: { '/event': ['messageReceived', 'messageSent'] } }),
				],
			},
		],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const settings = readSettings(this);
		try {
			const executor = await createExecutor(this);
			if (this.getMode() === 'manual') {
				// "Fetch Test Event": a real recent item; the production cursor is not touched.
				const sample = await pollSample(executor, settings.source, { filter: settings.filter });
				if (!sample) {
					throw new NodeOperationError(this.getNode(), `No ${EVENT_NAMES[settings.source].toLowerCase()} event found to show as a sample`, {
						description: 'Create one (send a message, or have a customer write), then fetch again',
					});
				}
				return [[{ json: { ...(sample as unknown as IDataObject), ...agentInputOf(sample) } }]];
			}

			const state = this.getWorkflowStaticData('node') as PollState;
			const now = n8nTiming.now();
			const result = await pollEvents(executor, {
				source: settings.source,
				cursor: state.cursor,
				lookbackMs: settings.lookbackMs,
				filter: settings.filter,
				now,
			});
			const found: ChatEvent[] = [];
			for (const event of result.events) {
				if (isFilterEmpty(settings.afterFilter) || (await eventPassesFilter(executor, event, settings.afterFilter))) found.push(event);
			}
			// Burst batching, evaluated at each poll (no timers), then human takeover: the core's poll step. A failed
			// lookup fails the poll before the cursor moves, so the next poll reads the same events.
			const { events, burst } = await pollStep(executor, found, {
				burst: state.burst,
				burstQuietMs: settings.inbox.burstQuietSeconds * 1000,
				takeover: new HumanTakeover(settings.inbox, n8nTiming.now),
				now,
			});
			state.cursor = result.cursor as unknown as IDataObject;
			if (burst.chats.length) state.burst = burst as unknown as IDataObject;
			else delete state.burst;
			if (!events.length) return null;
			return [events.map((event) => ({ json: { ...(event as unknown as IDataObject), ...agentInputOf(event) } }))];
		} catch (error) {
			throw toNodeError(this.getNode(), error);
		}
	}
}
