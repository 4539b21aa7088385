/** Validators as Node-RED runs them: a text (or list of texts) says why a property is invalid. */
import type { EditorNodeInstance, EditorNodeProperties } from 'node-red';

/**
 * Node-RED takes a validator's text (or list of texts) as the reason a property is invalid only when
 * the validator declares two parameters (value, options); with one, any text counts as "valid". The typings know
 * only the boolean answer, hence the one cast here.
 */
export type Check<Props extends EditorNodeProperties, Value> = (
	this: EditorNodeInstance<Props>,
	value: Value,
) => boolean | string | string[];

export const validator = <Props extends EditorNodeProperties, Value>(check: Check<Props, Value>) =>
	function (this: EditorNodeInstance<Props>, value: Value, _options?: unknown) {
		return check.call(this, value);
	} as unknown as (this: EditorNodeInstance<Props>, value: string) => boolean;
