/**
 * How a flow saved before a node property existed is brought up to date. Such a flow does not hold the property,
 * and Node-RED fills in no defaults when it loads one. Each node's migrations (src/nodes/<node>/migrations.ts) are
 * steps, each filling one such property with the value the node ran with while it did not hold it.
 *
 * The same steps run in the runtime when a node starts (before it reads its properties) and in the editor when a
 * saved node's dialog opens or a saved node is checked (src/generate.ts embeds them in the editor's catalogue, so the
 * dialog shows what runs). Steps are data, not code, for that: one list serves both sides. A step fills only what is
 * missing, so running them again changes nothing and a new node, which holds every property, needs none; no
 * version number is stored on the node (saved flows keep exactly the properties they hold: the UI contract).
 * No imports: the editor's bundle includes this file.
 */
export interface FillStep {
	/** Named after what it fills in, e.g. `fillOutputRaw`. */
	readonly name: string;
	/** The node property it fills. */
	readonly property: string;
	/** What the node ran with while it did not hold the property. */
	readonly value: string | number | boolean;
	/** What counts as not holding it: the property absent, absent or null, or absent, null or an empty text. */
	readonly missing: 'undefined' | 'nullish' | 'blank';
}

const isMissing = (value: unknown, missing: FillStep['missing']): boolean =>
	value === undefined || (missing !== 'undefined' && (value === null || (missing === 'blank' && value === '')));

export interface Migrated<Node> {
	/** The node with the missing properties filled in. */
	node: Node;
	/** The properties filled in, with their values. */
	filled: Record<string, FillStep['value']>;
	/** The names of the steps that filled something, in order. */
	applied: string[];
}

export function migrate<Node extends object>(node: Node, steps: readonly FillStep[]): Migrated<Node> {
	const filled: Record<string, FillStep['value']> = {};
	const applied: string[] = [];
	for (const step of steps) {
		if (!isMissing((node as Record<string, unknown>)[step.property], step.missing)) continue;
		filled[step.property] = step.value;
		applied.push(step.name);
	}
	return { node: { ...node, ...filled }, filled, applied };
}
