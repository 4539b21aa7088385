/**
 * The Node-RED module: registers the config node, the action node, the event node and the
 * admin endpoints their dialogs call (packages/node-red/src/admin.ts). The editor
 * side (packages/node-red/dist/index.html in the package) is generated from the catalogue at build time (src/generate);
 * each node's runtime, editor code, dialog, texts and help are in its folder under src/nodes.
 */
import { registerAdminRoutes } from './admin';
import { registerActionNode } from './nodes/action';
import { registerConfigNode } from './nodes/config';
import { registerEventNode } from './nodes/event';
import type { NodeAPI } from 'node-red';

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
