/**
 * The endpoints of the catalogue: every endpoint of the Chat Messaging Service API plus the friendly operations
 * mapped onto them, by resource. Adding an endpoint means adding one descriptor to its resource file
 * (docs/development.md). The composites build on these; catalogue.ts lists both.
 */
import { accountResource } from './resources/accounts';
import { chatResource } from './resources/chats';
import { fileResource } from './resources/files';
import { invitationResource } from './resources/invitations';
import { labelResource } from './resources/labels';
import { messageResource } from './resources/messages';
import { noteResource } from './resources/notes';
import { reactionResource } from './resources/reactions';
import { teammateResource } from './resources/teammates';
import { webhookResource } from './resources/webhooks';
import { workspaceResource } from './resources/workspace';
import type { OperationDescriptor, ResourceDescriptor } from './types';

export const RESOURCES: readonly ResourceDescriptor[] = [
	chatResource,
	labelResource,
	noteResource,
	messageResource,
	reactionResource,
	fileResource,
	accountResource,
	workspaceResource,
	teammateResource,
	invitationResource,
	webhookResource,
];

/** `resource:operation`, the id adapters store and the executor looks up. */
export const operationId = (op: Pick<OperationDescriptor, 'resource' | 'operation'>): string => `${op.resource}:${op.operation}`;

export const OPERATIONS: readonly OperationDescriptor[] = RESOURCES.flatMap((resource) => resource.operations);

const byId = new Map(OPERATIONS.map((op) => [operationId(op), op]));

export function findOperation(id: string): OperationDescriptor {
	const op = byId.get(id);
	if (!op) throw new Error(`Unknown operation "${id}"`);
	return op;
}

/**
 * Whether the operation changes or removes what its path ids name (an update, a rename, a label or reaction
 * set, a delete): its effect says so. Reads leave the record as it is, and a create adds something under it
 * (a message into a chat, a note), so adapters may take those ids from incoming data; never these.
 */
export const changesTarget = (op: Pick<OperationDescriptor, 'effect'>): boolean => op.effect === 'idempotent';

/** The distinct endpoints (method + path) behind the catalogue: the spec's. */
export function endpoints(): string[] {
	return [...new Set(OPERATIONS.filter((op) => !op.friendlyOf).map((op) => `${op.method} ${op.path}`))];
}
