/**
 * The Node-RED module: registers the config node, the action node, the event node and the
 * admin endpoints their dialogs call (packages/node-red/src/admin.ts). The editor
 * side (packages/node-red/dist/index.html in the package) is generated from the catalogue at build time.
 */
import { registerActionNode } from './action';
import { registerAdminRoutes } from './admin';
import { registerConfigNode } from './config';
import { registerEventNode } from './event';
import type { NodeAPI } from './types';

const REGISTRATIONS: ReadonlyArray<(RED: NodeAPI) => void> = [
	registerConfigNode,
	registerActionNode,
	registerEventNode,
	registerAdminRoutes,
];

function chatMessagingNodes(RED: NodeAPI): void {
	for (const register of REGISTRATIONS) register(RED);
}

export = chatMessagingNodes;
