/**
 * The migrations in the editor (src/shared/migrate.ts): a saved node is checked as it runs, and its dialog shows
 * what it runs with, Node-RED having filled in none of the properties it was saved without.
 */
import { migrate } from '../shared/migrate';
import { CATALOGUE } from './catalogue';

/** The node as the runtime will run it: its missing properties filled in. */
export const migrated = <Node extends object>(type: string, node: Node): Node => migrate(node, CATALOGUE.migrations[type] ?? []).node;

/**
 * Puts the values the migrations fill in into the dialog just opened (`<prefix>-<property>` inputs, as Node-RED
 * names them): saving it then saves them with the node.
 */
export function showMigrated(type: string, node: object, prefix = 'node-input'): void {
	const { filled } = migrate(node, CATALOGUE.migrations[type] ?? []);
	for (const [property, value] of Object.entries(filled)) {
		const $input = $(`#${prefix}-${property}`);
		if ($input.is(':checkbox')) $input.prop('checked', value === true);
		else $input.val(String(value));
	}
}
