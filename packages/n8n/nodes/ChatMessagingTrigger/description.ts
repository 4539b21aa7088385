/** The trigger's parameters: the public URL notice, the events, attachments and the Options of each version. */
import type { INodeProperties } from 'n8n-workflow';

import {
	ACCOUNTS_FILTER,
	API_SENT_FILTER,
	BURST_WEBHOOK_NOTE,
	CHAT_TYPE_FILTER,
	EVENT_TYPES,
	IGNORE_GROUPS_FILTER,
	LABELS_FILTER,
	SKIP_ASSIGNED_OPTION,
	TEAMMATE_QUIET_OPTION,
} from '@chat-messaging/core';
import { eventFilterProperty } from '../shared/eventFilterOptions';
import { inboxOptionProperty } from '../shared/inboxOptions';

/** The chosen events by their names, for the subtitle: each wire value replaced by its name. */
export const friendlyEventsExpression = EVENT_TYPES.reduce(
	(expression, event) => `${expression}.replace(${JSON.stringify(event.value)}, ${JSON.stringify(event.name)})`,
	'$parameter["events"].join(", ")',
);

/** Shown at the top of the panel: what the service needs to reach this trigger, and what to do locally. */
const PUBLIC_URL_NOTICE =
	"The service delivers events only to a <b>public HTTPS</b> address: this workflow's Production URL (n8n's WEBHOOK_URL) must be reachable from the internet. " +
	"Running n8n on your own machine? Expose it through a tunnel (for example cloudflared or ngrok) and set WEBHOOK_URL to the tunnel's address, " +
	'or use the <b>Chat Messaging Poll Trigger</b>, which needs no public URL and no webhook subscription (the workspace allows 10).';

/** The version that offers the catalogue's Chat Type in place of version 1's Ignore Group Messages. */
export const CHAT_TYPE_VERSION = 1.1;

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

export const triggerProperties: INodeProperties[] = [
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
];
