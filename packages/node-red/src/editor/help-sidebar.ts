/** The help sidebar shows the details of one operation: the selected action node's (see the action node's help.ts). */
import { operationsById } from './catalogue';

/**
 * A style rule rather than classes on the help's elements: the sidebar re-renders its content at times
 * of its own (its tree list selects the node type after the selection event), and a rule outlives that.
 */
export function showOperationHelp(opId: string | undefined): void {
	let $style = $('#cm-help-style');
	if (!$style.length) $style = $('<style id="cm-help-style"></style>').appendTo($('head'));
	$style.text(
		opId && operationsById[opId]
			? `.red-ui-help .cm-help-op[data-operation="${opId}"] { display: block; } .red-ui-help .cm-help-hint { display: none; }`
			: '',
	);
}

/** Follows the workspace selection: one action node selected shows its operation's help. */
export function followSelection(): void {
	// (RED.events is absent only where the script runs outside an editor: the UI contract reads its definitions.)
	RED.events?.on('view:selection-changed', (selection) => {
		const nodes = selection.nodes ?? [];
		const node = nodes.length === 1 ? nodes[0] : undefined;
		showOperationHelp(node && node.type === 'chat-messaging' ? `${String(node.resource)}:${String(node.operation)}` : undefined);
	});
}
