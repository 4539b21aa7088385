/** The action node's properties as the editor saves them (its `defaults`); flows hold them (UI contract). */
import type { EditorNodeProperties } from 'node-red';
import type { Typed } from '../../../editor/catalogue';

export interface ActionProps extends EditorNodeProperties {
	config: string;
	resource: string;
	operation: string;
	fields: Record<string, Typed>;
	outputMode: string;
	output: string;
	outputFields: string;
	payloadFields: boolean;
	returnAll: boolean;
	limit: number | string;
	attachment: Typed;
	attachmentName: string;
	waitFor: string;
	sendTo: string;
	waitForReply: boolean;
	replyTimeout: number | string;
	outputs: number;
	waitTimeout: number | string;
}
