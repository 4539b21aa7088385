/**
 * What an operation means for an agent that runs it (the MCP server's tools, n8n's tool variant): whether it
 * reads, only adds, or overwrites and removes; which group of tools it belongs to; whether a person should
 * confirm it. Derived from the descriptors, so a new operation gets its answers from what it declares.
 */
import { operationId, RESOURCES } from './catalogue';
import { COMPOSITES, type CatalogueOperation } from './composites';
import type { ResourceDescriptor, ResourceKey } from './types';

/**
 * - `read`: changes nothing.
 * - `adds`: adds something new (a message, a note, a file, labels kept with the others); nothing is lost.
 * - `overwrites`: changes or removes what is there (updates included: a renamed or reassigned chat loses its
 *   old name or agent).
 */
export type Change = 'read' | 'adds' | 'overwrites';

export function changeOf(op: CatalogueOperation): Change {
	if (op.effect === 'read') return 'read';
	return op.effect === 'create' || ('additive' in op && op.additive === true) ? 'adds' : 'overwrites';
}

const resourceOf = (key: ResourceKey): ResourceDescriptor => {
	const found = RESOURCES.find((resource) => resource.key === key);
	if (!found) throw new Error(`No resource ${key}`);
	return found;
};

/** The toolsets, in catalogue order: `chats`, `labels`, …, `webhooks`. */
export const TOOLSETS: readonly string[] = [...new Set(RESOURCES.map((resource) => resource.toolset))];

export const toolsetOf = (op: Pick<CatalogueOperation, 'resource'>): string => resourceOf(op.resource).toolset;

/** Administers the workspace (webhooks, invitations): off for agents unless turned on. */
export const isAdministrative = (op: Pick<CatalogueOperation, 'resource'>): boolean => resourceOf(op.resource).administrative === true;

/**
 * Whether a person should confirm the call before it runs: what no operation can undo (deletes, Replace All,
 * Remove All, a subscription's new address) and every administrative write (where events go, who joins).
 */
export function needsConfirmation(op: CatalogueOperation): boolean {
	if (changeOf(op) === 'read') return false;
	return ('irreversible' in op && op.irreversible === true) || isAdministrative(op);
}

const COMPOSITE_VARIANTS = new Set(
	COMPOSITES.flatMap((composite) => (composite.variants?.options ?? []).map((variant) => variant.operation)),
);

/**
 * An endpoint a composite runs as one of its variants (Send to Phone is Send with Send To phone): an agent
 * that has the composite needs no tool of its own for it.
 */
export const isCompositeVariant = (op: CatalogueOperation): boolean => op.kind !== 'composite' && COMPOSITE_VARIANTS.has(operationId(op));
