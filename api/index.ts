/** Public surface of the catalogue and executor, shared by the n8n and Node-RED adapters. */
export * from './types';
export * from './catalogue';
export * from './errors';
export * from './executor';
export * from './pacing';
export * from './events';
export * from './defaults';
export {
	prepareRequest,
	coerceField,
	isBlank,
	isRecord,
	PHONE_PATTERN,
	PHONE_FILTER_PATTERN,
	JID_PATTERN,
	EMAIL_PATTERN,
	INTEGER_TEXT,
} from './validation';
export { EVENT_TYPES } from './fields';
export { TRI_STATE_ANY, HINTS, fieldHint } from './fields';
export * from './lookups';
export * from './send';
