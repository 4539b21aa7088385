/**
 * A node's definition as Node-RED hands it to the node's constructor: @types/node-red's NodeDef (id, type, name, z)
 * and the properties its flow saved, in whatever shape the flow holds them (an old flow, or one written by hand).
 */
import type { NodeDef } from 'node-red';

export type SavedNodeDef = NodeDef & Record<string, unknown>;
