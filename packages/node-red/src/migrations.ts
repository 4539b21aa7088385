/** Every node type's migrations, by node type: the runtime runs each node's at its start, the editor gets them all. */
import { ACTION_MIGRATIONS } from './nodes/action/migrations';
import { CONFIG_MIGRATIONS } from './nodes/config/migrations';
import { EVENT_MIGRATIONS } from './nodes/event/migrations';
import type { FillStep } from './shared/migrate';

export const MIGRATIONS: Readonly<Record<string, readonly FillStep[]>> = {
	'chat-messaging-config': CONFIG_MIGRATIONS,
	'chat-messaging': ACTION_MIGRATIONS,
	'chat-messaging-event': EVENT_MIGRATIONS,
};
