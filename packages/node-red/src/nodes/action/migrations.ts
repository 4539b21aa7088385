/**
 * The action node's migrations (src/shared/migrate.ts says how they run): what a node saved without one of these
 * properties ran with, before the property existed or in a flow written by hand.
 */
import {
	DEFAULT_SEND_TO,
	DEFAULT_WAIT_TIMEOUT_S,
	LIST_DEFAULTS,
	OUTPUT_WHEN_UNSET,
	REPLY_TIMEOUT_OF_FLOWS_SAVED_WITHOUT_IT_S,
} from '@chat-messaging/core';
import { migrate, type FillStep } from '../../shared/migrate';

export const ACTION_MIGRATIONS: readonly FillStep[] = [
	// Output (Simplified / Raw / Selected Fields) came after the first release: those nodes keep the whole records.
	{ name: 'fillOutputRaw', property: 'output', value: OUTPUT_WHEN_UNSET, missing: 'blank' },
	// New nodes wait an hour for a reply, as n8n does; nodes saved before keep the 300 s they always had.
	{ name: 'fillReplyTimeout300s', property: 'replyTimeout', value: REPLY_TIMEOUT_OF_FLOWS_SAVED_WITHOUT_IT_S, missing: 'blank' },
	{ name: 'fillWaitForReplyOff', property: 'waitForReply', value: false, missing: 'nullish' },
	// From payload reads nothing from msg.payload unless the user turned it on.
	{ name: 'fillPayloadFieldsOff', property: 'payloadFields', value: false, missing: 'nullish' },
	// Operation Send (the composite) without Send To: its first choice.
	{ name: 'fillSendToDefault', property: 'sendTo', value: DEFAULT_SEND_TO, missing: 'nullish' },
	// The editor always saves these; a flow written by hand without them gets the catalogue's defaults, as n8n does.
	{ name: 'fillReturnAllListDefault', property: 'returnAll', value: LIST_DEFAULTS.returnAll, missing: 'undefined' },
	{ name: 'fillLimitListDefault', property: 'limit', value: LIST_DEFAULTS.limit, missing: 'nullish' },
	{ name: 'fillWaitTimeoutDefault', property: 'waitTimeout', value: DEFAULT_WAIT_TIMEOUT_S, missing: 'nullish' },
];

export const migrateAction = <Node extends object>(node: Node): Node => migrate(node, ACTION_MIGRATIONS).node;
