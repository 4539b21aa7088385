/**
 * The Node-RED module: registers the config node, the action node and the event node. The editor
 * side (nodes-red/index.html in the package) is generated from the catalogue at build time.
 */
import { registerActionNode } from './action';
import { registerConfigNode } from './config';
import { registerEventNode } from './event';
import type { NodeAPI } from './types';

const REGISTRATIONS: ReadonlyArray<(RED: NodeAPI) => void> = [registerConfigNode, registerActionNode, registerEventNode];

function chatMessagingNodes(RED: NodeAPI): void {
	for (const register of REGISTRATIONS) register(RED);
}

export = chatMessagingNodes;
