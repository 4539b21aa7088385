/** Send with Send To in the dialog: which fields apply to the chosen Send To, and which sends it replaces in the list. */
import { CATALOGUE, type Field, type Operation } from '../../../editor/catalogue';

export /** A field's row: by its key (the wire name, or for Send one told apart from a namesake). */
const rowId = (op: Operation, field: Field): string => `node-input-cm-${op.resource}-${op.operation}-${field.key}`;
export const SEND_ID = `${CATALOGUE.send.resource}:${CATALOGUE.send.operation}`;
/** The first Send To choice (packages/core/src/catalogue/send.ts DEFAULT_SEND_TO). */
export const DEFAULT_SEND_TO = CATALOGUE.sendTargets[0]?.value ?? 'phone';
/** The send operations Send replaces in the list (still shown for a node saved with one). */
export const SEND_TARGET_OPERATIONS = CATALOGUE.sendTargets.map((target) => target.operation);
/** Whether a field applies: every field does, except Send's, which apply to their Send To choices. */
export const fieldApplies = (op: Operation, field: Field, sendTo: string | undefined): boolean =>
	op.id !== SEND_ID || !field.sendTo || field.sendTo.includes(sendTo || DEFAULT_SEND_TO);
