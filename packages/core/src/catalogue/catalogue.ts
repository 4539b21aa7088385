/**
 * The operation catalogue: every operation users can run, the endpoints (endpoints.ts: one descriptor per
 * endpoint of the API, plus the friendly operations mapped onto them) and the composites (composites.ts:
 * one operation made of several calls). Generators and adapters iterate `CATALOGUE`.
 */
import { ALL_COMPOSITES, COMPOSITES, type CompositeDescriptor } from './composites';
import { operationId, OPERATIONS } from './endpoints';
import type { OperationDescriptor } from './types';

/** An endpoint descriptor or a composite: what `CATALOGUE` lists. */
export type CatalogueOperation = (OperationDescriptor & { kind?: 'endpoint' }) | CompositeDescriptor;

export const isComposite = (op: CatalogueOperation): op is CompositeDescriptor => op.kind === 'composite';

/** Every operation users can run: the endpoints (and friendly operations) of OPERATIONS, then the composites. */
export const CATALOGUE: readonly CatalogueOperation[] = [...OPERATIONS, ...COMPOSITES];

const compositesById = new Map(ALL_COMPOSITES.map((composite) => [operationId(composite), composite]));

export const findComposite = (id: string): CompositeDescriptor | undefined => compositesById.get(id);
