/**
 * The inbox options of the event surfaces (n8n Chat Messaging Trigger and Poll Trigger, Node-RED event
 * node): one definition each, so every platform shows the same names, defaults and descriptions. All are
 * off by default: a workflow or flow saved before they existed runs as before. What they do is
 * packages/core/src/runtime/events/ (takeover.ts, bursts.ts).
 */

export interface InboxOptionDescriptor {
	/** The saved parameter / node property name (UI contract). */
	name: 'skipAssigned' | 'teammateQuietMinutes' | 'burstQuietSeconds';
	displayName: string;
	type: 'boolean' | 'number';
	/** Off. */
	default: boolean | number;
	description: string;
	/** Numbers only: the smallest value, and the unit the editor shows. */
	minValue?: number;
	unit?: 'minutes' | 'seconds';
	/** Only events of these types are affected (the options apply to messages). */
	eventTypes: readonly string[];
}

/** Human takeover: skip events of chats a person handles. */
export const SKIP_ASSIGNED_OPTION: InboxOptionDescriptor = {
	name: 'skipAssigned',
	displayName: 'Skip Chats Assigned to a Teammate',
	type: 'boolean',
	default: false,
	description:
		"Whether to skip messages of chats that have a responsible teammate (the chat's responsible_email is set), so an agent leaves them to that person",
	eventTypes: ['message:received:new', 'message:sent:new'],
};

export const TEAMMATE_QUIET_OPTION: InboxOptionDescriptor = {
	name: 'teammateQuietMinutes',
	displayName: "Skip Chats After a Teammate's Message (Minutes)",
	type: 'number',
	default: 0,
	minValue: 0,
	unit: 'minutes',
	description:
		'Skip messages of chats where a teammate wrote (from the web or chat app, not through the API) within this many minutes. 0: off.',
	eventTypes: ['message:received:new', 'message:sent:new'],
};

/** Burst batching: one item per chat once the customer has been quiet. */
export const BURST_QUIET_OPTION: InboxOptionDescriptor = {
	name: 'burstQuietSeconds',
	displayName: "Batch a Customer's Burst (Quiet Seconds)",
	type: 'number',
	default: 0,
	minValue: 0,
	unit: 'seconds',
	description:
		'Hold received messages per chat until the customer has been quiet this many seconds, then emit one item: the texts joined by new lines, every message uid in message_uids. 0: off (one item per message).',
	eventTypes: ['message:received:new'],
};

export const INBOX_OPTIONS: readonly InboxOptionDescriptor[] = [SKIP_ASSIGNED_OPTION, TEAMMATE_QUIET_OPTION, BURST_QUIET_OPTION];

/** Where batching cannot be done without risking a message on a restart (n8n's webhook trigger): what to use instead. */
export const BURST_WEBHOOK_NOTE =
	"Batching a customer's burst is offered by the Chat Messaging Poll Trigger: this webhook trigger cannot hold messages across an n8n restart without losing them.";
